import type { Server } from 'node:http';
import type { FastifyHttpOptions, FastifyReply } from 'fastify';
import qs from 'qs';
import { DEFAULT_CONFIG, type Config } from '../config/config.js';
import { ApiError } from '../errors/api-error.js';
import { answerClientError, MAX_HEADER_BYTES, requestTimeouts } from './client-error.js';
import { toApiError } from './error-body.js';
import { renderError } from './render-error.js';
import { requestLogController } from './request-log.js';
import { requestLoggerFactory } from './request-logger.js';
import { REQUEST_ID_PATTERN, requestIdGenerator } from './request-id.js';

/** qs settings that read the NocoBase SDK's serialisation (brackets arrays, strict nulls). */
const QS_OPTIONS = { strictNullHandling: true, arrayLimit: 1000, depth: 10, parameterLimit: 2000 } as const;

/** The Fastify constructor's options: logging, limits, request ids, timeouts, proxies, early errors. */
export function fastifyOptions(config: Config, logStream?: { write(line: string): void }): FastifyHttpOptions<Server> {
  const childLoggerFactory = requestLoggerFactory(config.logLevel);
  const newRequestId = requestIdGenerator();
  const bodyTimeoutMs = config.bodyTimeoutMs ?? DEFAULT_CONFIG.bodyTimeoutMs;
  return {
    logger: { level: config.logLevel, ...(logStream === undefined ? {} : { stream: logStream }) },
    // Above `info`, a request's pino child is made only if something is logged (request-logger.ts).
    ...(childLoggerFactory === undefined ? {} : { childLoggerFactory }),
    bodyLimit: config.bodyLimit,
    routerOptions: { querystringParser: (text: string) => qs.parse(text, QS_OPTIONS) },
    // A client's x-request-id is kept only when it is short and plain (API.md section 12):
    // it is echoed in a header, written to logs and quoted in INTERNAL messages.
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID_PATTERN.test(given) ? given : newRequestId();
    },
    // Our own onRequest hook answers 503 SHUTTING_DOWN in the error envelope instead.
    return503OnClosing: false,
    // One line per request from request-log.ts instead of Fastify's two.
    logController: requestLogController(),
    // Request heads up to 64 KiB (a 16 KiB filter fits in a URL); a request without Host gets
    // our envelope (request-gate.ts) instead of Node's empty 400.
    http: { maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false, ...requestTimeouts(bodyTimeoutMs) },
    // A request (head and body) that has not fully arrived in time is answered 408 REQUEST_TIMEOUT
    // by answerClientError and closed: slow senders cannot hold connections (docs/security.md).
    requestTimeout: bodyTimeoutMs,
    // Requests Node's parser refuses never reach Fastify: answer them in the envelope too.
    clientErrorHandler: answerClientError,
    // request.ip: the right-most X-Forwarded-For address not sent by a listed proxy, else the socket's (proxy-addr).
    ...(config.trustedProxies.length === 0 ? {} : { trustProxy: config.trustedProxies }),
    // Bad URLs and the like are answered before routing: render them like every other error.
    frameworkErrors: (error, request, reply) => {
      const apiError =
        error.code === 'FST_ERR_BAD_URL'
          ? new ApiError('KEY_INVALID', 'the path is not valid percent-encoding')
          : toApiError(error, config.database.dialect, String(request.id));
      const { status, headers, body } = renderError(apiError);
      void (reply as FastifyReply).status(status).headers(headers).send(body);
    },
  };
}
