import { ApiError } from '../errors/api-error.js';
import { compositeKeyFilter, keyFilter, parseKeys } from '../plan/bind-keys.js';
import { bindFilter } from '../plan/bind-filter.js';
import { and, TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { ApiRequest } from '../request/api-request.js';
import type { Collection } from '../schema/collection.js';

/** Which rows a request addresses: its keys ANDed with its filter (and an association scope). */
export interface Target {
  where: FilterNode;
  /** Parsed keys, when the request named any. */
  keys?: unknown[];
  /** The answer is one object and a miss is 404: one scalar key, or a to-one association. */
  single: boolean;
  /** True when something narrows the rows: a key, a non-empty filter, or a to-one scope. */
  narrowed: boolean;
}

/**
 * `scope` narrows every request to the rows of an association; `scopeIsTarget` says the scope
 * alone names one row (to-one associations), so get, update and destroy need no key.
 */
export function bindTarget(request: ApiRequest, collection: Collection, scope: FilterNode = TRUE_NODE, scopeIsTarget = false): Target {
  const filter = request.params.filter === undefined ? TRUE_NODE : bindFilter(request.params.filter, collection, request.params.timeZone);
  const narrowedByFilter = filter !== TRUE_NODE;
  if (request.keys === undefined) {
    return { where: and([scope, filter]), single: scopeIsTarget, narrowed: narrowedByFilter || scopeIsTarget };
  }
  if (collection.compositeKey !== undefined) {
    // One composite key (filterByTk[a]=1&filterByTk[b]=2): one row, as a scalar key names one.
    return { where: and([scope, filter, compositeKeyFilter(collection.compositeKey, request.keys)]), keys: [request.keys], single: true, narrowed: true };
  }
  const keys = parseKeys(collection, request.keys);
  return { where: and([scope, filter, keyFilter(collection, keys)]), keys, single: !Array.isArray(request.keys), narrowed: true };
}

/** update and destroy never touch every row by accident: they need a key or a real filter. */
export function requireTarget(target: Target): void {
  if (!target.narrowed) throw new ApiError('KEY_REQUIRED', 'name a key (path or filterByTk) or a non-empty filter');
}
