import { ApiError } from '../errors/api-error.js';
import { bindFilter } from '../plan/bind-filter.js';
import type { FilterNode } from '../plan/filter-node.js';
import type { QueryParams } from '../request/query-params.js';
import type { Collection } from '../schema/collection.js';
import { isRecord } from '../is-record.js';

/**
 * The lookup of firstOrCreate and updateOrCreate: every field named by `filterKeys` equals
 * the body's value for it (`null` matches NULL). Each name must be a readable field of the
 * collection. A name the body leaves out matches NULL, as in NocoBase (`updateOrCreate` with
 * `{}` and `filterKeys=title` finds, or creates, the row without a title): the lookup never
 * widens to "any row".
 */
export function filterKeysLookup(collection: Collection, params: QueryParams, body: unknown): FilterNode {
  const names = params.filterKeys ?? [];
  if (names.length === 0) throw new ApiError('PARAM_INVALID', 'filterKeys must name the fields that find the record', { field: 'filterKeys' });
  if (!isRecord(body)) throw new ApiError('BODY_INVALID', 'the body must be an object');
  const raw: Record<string, unknown> = {};
  for (const name of names) {
    const field = collection.fields.get(name);
    if (field === undefined || field.hidden) throw new ApiError('PARAM_INVALID', `filterKeys: ${collection.name} has no field ${name}`, { field: 'filterKeys' });
    raw[name] = { $eq: Object.hasOwn(body, name) ? body[name] : null };
  }
  return bindFilter(raw, collection, params.timeZone);
}
