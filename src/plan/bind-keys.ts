import { ApiError } from '../errors/api-error.js';
import type { KeyInput } from '../request/query-params.js';
import type { Collection } from '../schema/collection.js';
import type { FilterNode } from './filter-node.js';

/** Parses keys (from the path or filterByTk) with the key field's type; KEY_INVALID otherwise. */
export function parseKeys(collection: Collection, keys: KeyInput): unknown[] {
  if (!collection.keyed) throw new ApiError('COLLECTION_HAS_NO_KEY', `${collection.name} has no key field: filter its rows instead`);
  const list = Array.isArray(keys) ? keys : [keys];
  return list.map((key) => {
    const parsed = collection.key.type.parse(key, collection.key.def);
    if (!parsed.ok) throw new ApiError('KEY_INVALID', `key ${JSON.stringify(key)} ${parsed.message}`, { field: collection.key.name });
    return parsed.value;
  });
}

export function keyFilter(collection: Collection, keys: unknown[]): FilterNode {
  const field = collection.key;
  return keys.length === 1 ? { kind: 'compare', field, op: 'eq', value: keys[0] } : { kind: 'in', field, values: keys, negate: false };
}
