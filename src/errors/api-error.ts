import { ERROR_CATALOGUE, type ErrorCode } from './catalogue.js';

/** One entry of the public error body. */
export interface ErrorEntry {
  code: ErrorCode;
  message: string;
  field?: string;
  details?: Record<string, unknown>;
}

/**
 * An error whose public shape is safe by construction: only code, message, field and details
 * reach the client. `cause` is for the log.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly entries: ErrorEntry[];
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    extra: { field?: string; details?: Record<string, unknown>; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    const entry: ErrorEntry = { code, message: message ?? ERROR_CATALOGUE[code].message };
    if (extra.field !== undefined) entry.field = extra.field;
    if (extra.details !== undefined) entry.details = extra.details;
    super(entry.message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'ApiError';
    this.status = ERROR_CATALOGUE[code].status;
    this.entries = [entry];
    this.headers = extra.headers ?? {};
  }

  get code(): ErrorCode {
    return this.entries[0]!.code;
  }

  /** Several entries of the same status (validation reports one per failing field). */
  static many(entries: ErrorEntry[]): ApiError {
    const first = entries[0];
    if (first === undefined) throw new Error('ApiError.many needs at least one entry');
    const error = new ApiError(first.code, first.message, { field: first.field, details: first.details });
    error.entries.splice(0, 1, ...entries);
    return error;
  }
}
