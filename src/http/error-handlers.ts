import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import type { Dialect } from '../schema/types.js';
import { isClientAbort } from './client-error.js';
import { toApiError } from './error-body.js';
import { renderError } from './render-error.js';

/**
 * Every error a route throws, and every unmatched route, answered in the `{errors}` envelope.
 * 5xx are logged at error level with their cause; a 4xx with a cause at info.
 */
export function registerErrorHandlers(app: FastifyInstance, dialect: Dialect): void {
  app.setErrorHandler((error, request, reply) => {
    const apiError = isClientAbort(error, request.raw)
      ? new ApiError('REQUEST_ABORTED', undefined, { cause: error })
      : toApiError(error, dialect, request.id);
    if (apiError.status >= 500) request.log.error({ err: apiError.cause ?? error }, apiError.message);
    else if (apiError.cause !== undefined) request.log.info({ err: apiError.cause }, apiError.message);
    const { status, headers, body } = renderError(apiError);
    void reply.status(status).headers(headers).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const { status, headers, body } = renderError(new ApiError('ROUTE_NOT_FOUND', `no route for ${request.method} ${request.url.split('?')[0]}`));
    void reply.status(status).headers(headers).send(body);
  });
}
