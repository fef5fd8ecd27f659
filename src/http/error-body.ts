import { classifyDriverError } from '../db/driver-error.js';
import { ApiError } from '../errors/api-error.js';
import type { Dialect } from '../schema/types.js';

/** Fastify's own errors that are the client's doing, by Fastify error code. */
const FASTIFY_ERRORS: Record<string, () => ApiError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new ApiError('PAYLOAD_TOO_LARGE'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new ApiError('UNSUPPORTED_MEDIA_TYPE'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new ApiError('BODY_INVALID', 'Content-Length does not match the body'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new ApiError('BODY_INVALID_JSON', 'the body is empty'),
  FST_ERR_CTP_INVALID_JSON_BODY: () => new ApiError('BODY_INVALID_JSON'),
  FST_ERR_BAD_URL: () => new ApiError('ROUTE_NOT_FOUND', 'the URL is not valid'),
  FST_ERR_ASYNC_CONSTRAINT: () => new ApiError('ROUTE_NOT_FOUND'),
  FST_ERR_ROUTE_MISSING_CONTENT_TYPE: () => new ApiError('UNSUPPORTED_MEDIA_TYPE', 'a request of this method must send Content-Type: application/json'),
};

/** Any thrown value to the public error; `cause` keeps the original for the log. */
export function toApiError(error: unknown, dialect: Dialect, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : '';
  const fastify = FASTIFY_ERRORS[code];
  if (fastify !== undefined) return fastify();
  if (error instanceof SyntaxError && 'statusCode' in error) return new ApiError('BODY_INVALID_JSON', undefined, { cause: error });
  // Any other Fastify refusal of the request itself is the client's mistake, not a 500.
  const statusCode = typeof error === 'object' && error !== null && 'statusCode' in error ? Number((error as { statusCode: unknown }).statusCode) : 0;
  if (code.startsWith('FST_') && statusCode >= 400 && statusCode < 500) return new ApiError('REQUEST_INVALID', undefined, { cause: error });
  const { kind } = classifyDriverError(error, dialect);
  if (kind === 'unavailable') return new ApiError('DATABASE_UNAVAILABLE', undefined, { cause: error });
  if (kind === 'conflict') return new ApiError('WRITE_CONFLICT', undefined, { cause: error });
  if (kind === 'denied') return new ApiError('DATABASE_READ_ONLY', undefined, { cause: error });
  // A value bound to a column the database's own type refuses (a column of an existing table
  // of a type Corral does not model: native-type.ts checks the common ones before the query).
  if (kind === 'invalidInput' || kind === 'range') return new ApiError('VALIDATION_FAILED', "a value does not fit its column's type", { cause: error });
  if (kind === 'schemaMoved') return new ApiError('SCHEMA_CHANGED', undefined, { cause: error });
  return new ApiError('INTERNAL', `internal error; the server log has the cause under request id ${requestId}`, {
    cause: error,
    details: { requestId },
  });
}
