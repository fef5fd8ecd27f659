import compress from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, RouteOptions } from 'fastify';
import { encodedTag } from '../request/entity-tag.js';

/** Answers smaller than this are sent as they are: compressing them saves too little to pay for itself. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** Encodings offered, best first (deflate adds nothing over gzip; zstd is not widely accepted yet). */
const ENCODINGS = ['br', 'gzip'] as const;

type OnSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: Error | null, payload?: unknown) => void) => void;

/**
 * gzip and brotli for answers of COMPRESSION_THRESHOLD_BYTES and more, as the request's
 * Accept-Encoding allows (`@fastify/compress`, which adds `Vary: Accept-Encoding`). Event streams
 * are written past Fastify (render-result.ts hijacks them) and the studio's assets arrive
 * compressed already (their Content-Encoding is set), so neither is touched. Register before any
 * route: the plugin hooks each route as it is added.
 *
 * Cost: the plugin negotiates Accept-Encoding and checks the type before it looks at the size;
 * each route's hook is wrapped so that an answer below the threshold is passed on untouched
 * first. Entity tags follow the bytes (RFC 9110 §8.8.3): a compressed answer's strong tag gets
 * the encoding appended (`"…-br"`), which If-None-Match and If-Match read back as the record's
 * own tag (entity-tag.ts).
 */
export async function registerCompression(app: FastifyInstance, enabled: boolean): Promise<void> {
  if (!enabled) return;
  // How many onSend hooks each route had before the plugin added its own: the one after them is the plugin's.
  const before = new WeakMap<RouteOptions, number>();
  app.addHook('onRoute', (route: RouteOptions) => {
    before.set(route, Array.isArray(route.onSend) ? route.onSend.length : route.onSend === undefined ? 0 : 1);
  });
  await app.register(compress, {
    encodings: [...ENCODINGS],
    threshold: COMPRESSION_THRESHOLD_BYTES,
    // Request bodies stay plain JSON: a compressed body would get past the body limit unread.
    globalDecompression: false,
  });
  app.addHook('onRoute', (route: RouteOptions) => {
    const hooks = route.onSend;
    const index = before.get(route);
    // A route the plugin left alone (none today) keeps its hooks as they are.
    if (!Array.isArray(hooks) || index === undefined || hooks.length !== index + 1) return;
    const compressing = hooks[index] as unknown as OnSend;
    hooks[index] = ((request, reply, payload, done) => {
      // Nothing to negotiate without Accept-Encoding (the plugin would send the answer as it is too).
      if (small(payload) || request.headers['accept-encoding'] === undefined) return done(null, payload);
      if (reply.statusCode === 304) {
        retagNotModified(request, reply);
        return done(null, payload);
      }
      compressing(request, reply, payload, (error, sent) => {
        if (error === null) retag(reply);
        done(error, sent);
      });
    }) as OnSend as unknown as onSendHookHandler;
  });
}

/** A text or byte payload below the threshold (a stream's size is not known: it is offered to the plugin). */
function small(payload: unknown): boolean {
  if (typeof payload === 'string') return payload.length < COMPRESSION_THRESHOLD_BYTES && Buffer.byteLength(payload) < COMPRESSION_THRESHOLD_BYTES;
  return Buffer.isBuffer(payload) && payload.length < COMPRESSION_THRESHOLD_BYTES;
}

/** A compressed answer's strong entity tag names its encoding, so no two encodings share a strong tag. */
function retag(reply: FastifyReply): void {
  const tag = reply.getHeader('etag');
  const encoding = reply.getHeader('content-encoding');
  if (typeof tag !== 'string' || tag.startsWith('W/')) return;
  if (encoding === 'br' || encoding === 'gzip') reply.header('etag', encodedTag(tag, encoding));
}

/** A 304 names the tag the client holds: the encoded one when that is what its If-None-Match sent. */
function retagNotModified(request: FastifyRequest, reply: FastifyReply): void {
  const tag = reply.getHeader('etag');
  const condition = request.headers['if-none-match'];
  if (typeof tag !== 'string' || tag.startsWith('W/') || typeof condition !== 'string') return;
  for (const encoding of ENCODINGS) {
    const encoded = encodedTag(tag, encoding);
    if (condition.includes(encoded)) return void reply.header('etag', encoded);
  }
}
