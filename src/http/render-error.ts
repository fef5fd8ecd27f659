import type { ApiError, ErrorEntry } from '../errors/api-error.js';

/** What an error answer is made of: the same for Fastify replies and raw sockets. */
export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: { errors: ErrorEntry[] };
}

/** The one error envelope: `{errors}` with the error's status and headers (Retry-After, Allow, …). */
export function renderError(apiError: ApiError): RenderedError {
  return { status: apiError.status, headers: apiError.headers, body: { errors: apiError.entries } };
}
