import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { ApiError } from '../errors/api-error.js';
import { renderError } from './render-error.js';

/**
 * Largest request head (request line and headers) Node's parser accepts. A filter may be
 * 16 KiB of JSON (request/query-params.ts), which percent-encoding can make about three
 * times longer in the URL.
 */
export const MAX_HEADER_BYTES = 64 * 1024;

/**
 * Node's own timers for a request that arrives too slowly. Node checks them only every
 * `connectionsCheckingInterval` (30 s by default), which would let a 10 s timeout run to 40 s:
 * the check runs a few times per timeout instead, at most once a second. The head gets no
 * longer than the whole request (Node requires headersTimeout <= requestTimeout).
 */
export function requestTimeouts(timeoutMs: number): { requestTimeout: number; headersTimeout: number; connectionsCheckingInterval: number } {
  return {
    requestTimeout: timeoutMs,
    headersTimeout: Math.min(timeoutMs, 60_000),
    connectionsCheckingInterval: Math.min(1000, Math.max(25, Math.floor(timeoutMs / 4))),
  };
}

/** Node's parser errors (and its request timeout) as error codes of the catalogue. */
export function clientErrorToApiError(error: NodeJS.ErrnoException): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new ApiError('HEADERS_TOO_LARGE', `the request line and headers exceed ${MAX_HEADER_BYTES} bytes`);
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError('REQUEST_TIMEOUT');
  if (error.code === 'HPE_INVALID_METHOD') return new ApiError('REQUEST_INVALID', 'the request method is not valid HTTP');
  return new ApiError('REQUEST_INVALID');
}

/**
 * Answers a request that Node's HTTP parser refused before Fastify saw it, in the same JSON
 * envelope as every other error, then closes the connection (its state is unknown).
 * A client that reset the connection gets nothing: there is no one left to answer.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const { status, headers, body: envelope } = renderError(clientErrorToApiError(error));
    const body = JSON.stringify(envelope);
    const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n${extra}` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/**
 * A client that closes its connection while sending the body makes the request stream fail
 * with ECONNRESET ("aborted"). That is the client's doing, not a database outage: it must not
 * be logged as DATABASE_UNAVAILABLE at error level, where any client could flood false alarms.
 */
export function isClientAbort(error: unknown, request: { readableAborted: boolean }): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'ECONNRESET' && (message === 'aborted' || request.readableAborted);
}
