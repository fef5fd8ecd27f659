import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { compileBrowserGuard, type BrowserRules } from './browser-guard.js';

/** Every method Corral serves; anything else is 405 on every path. */
export const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const KNOWN_METHODS: ReadonlySet<string> = new Set(ALL_METHODS);

/** How long browsers may cache a preflight answer. */
export const CORS_MAX_AGE_S = 600;

/** What a browser on an allowed origin may read besides the body. */
const EXPOSED_HEADERS = 'x-request-id, location';
const ALLOWED_METHODS = ALL_METHODS.join(', ');

export interface RequestGateOptions extends BrowserRules {
  /** True once shutdown started: new requests get 503 SHUTTING_DOWN with `Connection: close`. */
  isClosing(): boolean;
}

export type RequestGate = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/**
 * The one onRequest hook, run before the body is read: request id header, shutdown refusal,
 * method, Host and Origin rules (browser-guard.ts), then CORS for an allowed Origin.
 *
 * CORS is written here rather than with @fastify/cors: the plugin resolved its options for
 * every request (a delegator, so that only a real preflight is answered), which cost more
 * than the rest of the hooks together on a key lookup. A request without Origin now only gets
 * `Vary: Origin`. The headers are those the plugin wrote with the options Corral gave it
 * (reflected origin, exposed headers, every method, requested headers, max age, 204 with
 * `Content-Length: 0`, no credentials); test/http/browser-rules.test.ts pins them.
 */
export function compileRequestGate(options: RequestGateOptions): RequestGate {
  const browserGuard = compileBrowserGuard(options);
  return (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (options.isClosing()) {
      reply.header('connection', 'close');
      return done(new ApiError('SHUTTING_DOWN'));
    }
    // Fastify routes methods it has no route for (QUERY, PROPFIND, …) to the 404 handler.
    if (!KNOWN_METHODS.has(request.method)) return done(new ApiError('METHOD_NOT_ALLOWED', `method ${request.method} is not supported`));
    const headers = request.headers;
    if (headers.host === undefined && request.raw.httpVersion === '1.1') return done(new ApiError('REQUEST_INVALID', 'an HTTP/1.1 request needs a Host header'));
    const refusal = browserGuard(headers, () => request.protocol);
    if (refusal !== undefined) return done(refusal);
    // The answer depends on Origin, so caches must key on it, with or without one.
    const origin = headers.origin;
    if (origin === undefined) {
      reply.header('vary', 'Origin');
      return done();
    }
    reply.header('access-control-allow-origin', origin);
    reply.header('access-control-expose-headers', EXPOSED_HEADERS);
    if (request.method !== 'OPTIONS' || headers['access-control-request-method'] === undefined) {
      reply.header('vary', 'Origin');
      return done();
    }
    // A preflight (an allowed origin was checked above): answered here, before any route runs.
    reply.header('vary', 'Origin, Access-Control-Request-Headers');
    reply.header('access-control-allow-methods', ALLOWED_METHODS);
    const requested = headers['access-control-request-headers'];
    if (requested !== undefined) reply.header('access-control-allow-headers', requested);
    reply.header('access-control-max-age', String(CORS_MAX_AGE_S));
    void reply.code(204).header('content-length', '0').send();
  };
}
