import { ApiError } from '../errors/api-error.js';

/** What a failed call to the bucket tells about the service: the parts of an SDK error read here. */
interface ServiceFailure {
  readonly name?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/**
 * A failed call to the object storage as the client sees it, never a 500: the service refused
 * the request (an HTTP 4xx: credentials, policy, a bucket gone) is 502 STORAGE_REFUSED; it failed
 * (5xx), timed out (CORRAL_S3_TIMEOUT_MS) or could not be reached is 503 STORAGE_UNAVAILABLE.
 * The service's own words stay in the log (`cause`).
 */
export function storageFailure(error: unknown, call: string): ApiError {
  const failure = (typeof error === 'object' && error !== null ? error : {}) as ServiceFailure;
  const status = failure.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 400 && status < 500 && failure.name !== 'TimeoutError') {
    return new ApiError('STORAGE_REFUSED', `the file storage refused the ${call} (HTTP ${status})`, { cause: error, details: { status } });
  }
  return new ApiError('STORAGE_UNAVAILABLE', `the file storage did not complete the ${call}; try again later`, { cause: error, headers: { 'retry-after': '5' } });
}
