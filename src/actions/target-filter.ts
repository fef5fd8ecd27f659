import { ApiError } from '../errors/api-error.js';
import { keyFilter, parseKeys } from '../plan/bind-keys.js';
import { bindFilter } from '../plan/bind-filter.js';
import { and, TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { ApiRequest } from '../request/api-request.js';
import type { Collection } from '../schema/collection.js';

/** Which rows a request addresses: its keys ANDed with its filter. */
export interface Target {
  where: FilterNode;
  /** Parsed keys, when the request named any. */
  keys?: unknown[];
  /** True when exactly one key was named as a scalar (the answer is one object, a miss is 404). */
  single: boolean;
}

export function bindTarget(request: ApiRequest, collection: Collection): Target {
  const parts: FilterNode[] = [];
  if (request.params.filter !== undefined) parts.push(bindFilter(request.params.filter, collection));
  if (request.keys === undefined) return { where: and(parts), single: false };
  const keys = parseKeys(collection, request.keys);
  parts.push(keyFilter(collection, keys));
  return { where: and(parts), keys, single: !Array.isArray(request.keys) };
}

/** update and destroy never touch every row by accident: they need a key or a real filter. */
export function requireTarget(target: Target): void {
  if (target.keys === undefined && target.where === TRUE_NODE) {
    throw new ApiError('KEY_REQUIRED', 'name a key (path or filterByTk) or a non-empty filter');
  }
}
