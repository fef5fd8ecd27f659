import { ApiError } from '../errors/api-error.js';

/** 409 SCHEMA_NOT_MANAGED: `what` would need DDL on a table Corral did not create (`managed: false`). */
export function notManaged(collection: string, what: string): ApiError {
  return new ApiError('SCHEMA_NOT_MANAGED', `${collection} is a table Corral did not create (managed: false): ${what} would change its schema, which Corral never does`, { details: { collection } });
}
