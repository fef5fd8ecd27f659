import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { LogLevel } from '../config/config.js';

/** Levels at which the one line per request is written (Fastify's own two lines are turned off: `disableRequestLogging`). */
const LOGS_REQUESTS: ReadonlySet<LogLevel> = new Set<LogLevel>(['info', 'debug', 'trace']);

/** The first error code of an error answer's body (`{"errors":[{"code":"…"`). */
const ERROR_CODE = /"code":"([A-Z0-9_]{1,64})"/;

/**
 * The request's URL with the values of its query parameters left out: a query may carry a
 * stream ticket, a filter with personal data, a cursor. The names stay, so the line still tells
 * which parameters were sent (`/api/posts:list?filter&page`).
 */
export function loggedUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const names = url
    .slice(query + 1)
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq === -1 ? part : part.slice(0, eq);
    });
  return `${url.slice(0, query)}?${names.join('&')}`;
}

/** Fastify's own request lines turned off: registerRequestLog writes one line instead of its two. */
export function requestLogController(): LogController {
  return new LogController({ disableRequestLogging: true });
}

/**
 * One `info` line per request once it is answered, instead of Fastify's two ("incoming request"
 * and "request completed"): method, URL without query values, status, duration in ms, the error
 * code of an error answer, and the request id (the line's `reqId`). Nothing is added below `info`.
 */
export function registerRequestLog(app: FastifyInstance, level: LogLevel): void {
  if (!LOGS_REQUESTS.has(level)) return;
  const codes = new WeakMap<FastifyRequest, string>();
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode >= 400 && typeof payload === 'string') {
      const code = ERROR_CODE.exec(payload)?.[1];
      if (code !== undefined) codes.set(request, code);
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const code = codes.get(request);
    request.log.info(
      {
        method: request.method,
        url: loggedUrl(request.url),
        statusCode: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ...(code === undefined ? {} : { code }),
      },
      'request completed',
    );
    done();
  });
}
