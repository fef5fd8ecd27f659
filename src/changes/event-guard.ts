import type { ApiRequest } from '../request/api-request.js';
import type { Collection, Item } from '../schema/collection.js';

/**
 * The permission seam of the change feed (authentication is not built yet): given the
 * request and a collection, how this caller may see an event's row — the row narrowed to the
 * fields it may read, or undefined when it may not view the row at all. No guard means every
 * row and field is visible. `webhooks` is root-only once roles exist.
 */
export type EventGuard = (request: ApiRequest, collection: Collection) => (data: Item) => Item | undefined;
