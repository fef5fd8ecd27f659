import { ApiError } from '../errors/api-error.js';
import type { Collection } from '../schema/collection.js';

/**
 * Checks `appends` against the collection's associations. Relation fields arrive with the
 * associations work; until then every name is unknown, and saying so beats ignoring it.
 */
export function bindAppends(collection: Collection, appends?: string[]): void {
  const first = appends?.[0];
  if (first !== undefined) {
    throw new ApiError('APPENDS_UNKNOWN', `${collection.name} has no association ${first.split('.')[0]}`, { field: first });
  }
}
