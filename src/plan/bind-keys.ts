import { ApiError } from '../errors/api-error.js';
import type { KeyInput } from '../request/query-params.js';
import type { Collection, Field } from '../schema/collection.js';
import { and, or, type FilterNode } from './filter-node.js';

/**
 * Parses keys (from the path or filterByTk) with the key field's type; KEY_INVALID otherwise.
 * A collection with a composite key takes its key only as filterByTk's object (`compositeKeyFilter`).
 */
export function parseKeys(collection: Collection, keys: KeyInput): unknown[] {
  if (!collection.keyed) throw new ApiError('COLLECTION_HAS_NO_KEY', `${collection.name} has no key field: filter its rows instead`);
  if (collection.compositeKey !== undefined) throw compositeOnly(collection.compositeKey);
  if (typeof keys === 'object' && !Array.isArray(keys)) throw new ApiError('KEY_INVALID', `${collection.name} has one key field (${collection.key.name}): filterByTk is its value, not an object`, { field: 'filterByTk' });
  const list = Array.isArray(keys) ? keys : [keys];
  return list.map((key) => {
    const parsed = collection.key.type.parse(key, collection.key.def);
    if (!parsed.ok) throw new ApiError('KEY_INVALID', `key ${JSON.stringify(key)} ${parsed.message}`, { field: collection.key.name });
    return parsed.value;
  });
}

/**
 * The rows of canonical keys. A composite key's keys are objects of every key field's value
 * (store/canonical.ts `rowKey`): one AND of equalities per key.
 */
export function keyFilter(collection: Collection, keys: unknown[]): FilterNode {
  const composite = collection.compositeKey;
  if (composite !== undefined) {
    return or(keys.map((key) => and(composite.map((field): FilterNode => ({ kind: 'compare', field, op: 'eq', value: (key as Record<string, unknown>)[field.name] })))));
  }
  const field = collection.key;
  return keys.length === 1 ? { kind: 'compare', field, op: 'eq', value: keys[0] } : { kind: 'in', field, values: keys, negate: false };
}

/** The message for a composite key given any other way than filterByTk's object. */
function compositeOnly(fields: readonly Field[]): ApiError {
  const form = fields.map((field) => `filterByTk[${field.name}]=…`).join('&');
  return new ApiError('PARAM_INVALID', `the key is composite (${fields.map((field) => field.name).join(', ')}): name one record with ${form}, not with a key in the path or a list of keys`, {
    field: 'filterByTk',
  });
}

/**
 * A composite key's filterByTk object (every key field, no other name), each part parsed with its
 * field's type: the filter that names that one row. Anything else is 400 PARAM_INVALID.
 */
export function compositeKeyFilter(fields: readonly Field[], keys: KeyInput): FilterNode {
  if (typeof keys !== 'object' || Array.isArray(keys)) throw compositeOnly(fields);
  const names = new Set(fields.map((field) => field.name));
  const extra = Object.keys(keys).filter((name) => !names.has(name));
  const missing = fields.filter((field) => !Object.hasOwn(keys, field.name)).map((field) => field.name);
  if (extra.length > 0 || missing.length > 0) {
    const parts = [missing.length > 0 ? `misses ${missing.join(', ')}` : '', extra.length > 0 ? `names ${extra.join(', ')}, not a key field` : ''].filter((part) => part !== '');
    throw new ApiError('PARAM_INVALID', `filterByTk ${parts.join(' and ')}: the key is (${[...names].join(', ')})`, { field: 'filterByTk', details: { missing, extra } });
  }
  return and(fields.map((field): FilterNode => {
    const raw = keys[field.name]!;
    const parsed = field.type.parse(raw, field.def);
    if (!parsed.ok) throw new ApiError('KEY_INVALID', `filterByTk[${field.name}] ${JSON.stringify(raw)} ${parsed.message}`, { field: field.name });
    return { kind: 'compare', field, op: 'eq', value: parsed.value };
  }));
}
