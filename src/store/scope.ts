import { and, TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { ApiRequest } from '../request/api-request.js';
import type { Collection } from '../schema/collection.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';

/**
 * What a caller may see of one collection: the rows matching `where` (bound to that
 * collection), and optionally only `fields` of them. The store ANDs `where` into every
 * statement that reads or changes the collection's rows.
 */
export interface Scope {
  readonly where: FilterNode;
  readonly fields?: ReadonlySet<string>;
}

/** The scopes of one request, by collection name; a collection not listed is unrestricted. */
export type Scopes = ReadonlyMap<string, Scope>;

export const NO_SCOPES: Scopes = new Map();

/** Gives the scopes of a request (the seam a permission system plugs into; tests inject one). */
export type ScopeProvider = (request: ApiRequest, snapshot: SchemaSnapshot) => Scopes;

/** The row filter of a collection's scope (TRUE when unrestricted). */
export function scopeWhere(scopes: Scopes, collection: Collection): FilterNode {
  return scopes.get(collection.name)?.where ?? TRUE_NODE;
}

/**
 * `where` over `collection` with the scopes ANDed in: the collection's own, and the target's
 * inside every association path (`exists`), so a filter cannot test rows out of scope.
 */
export function scoped(scopes: Scopes, collection: Collection, where: FilterNode): FilterNode {
  if (scopes.size === 0) return where;
  return and([scopeWhere(scopes, collection), scopeRelated(scopes, where)]);
}

/**
 * Rewrites association paths only: new leaf kinds of FilterNode need no case here (they
 * fall to `default`); a new kind that holds a subfilter over another collection needs one.
 */
function scopeRelated(scopes: Scopes, node: FilterNode): FilterNode {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { kind: node.kind, items: node.items.map((item) => scopeRelated(scopes, item)) };
    case 'not':
      return { kind: 'not', item: scopeRelated(scopes, node.item) };
    case 'exists':
      return { kind: 'exists', relation: node.relation, where: scoped(scopes, node.relation.target, node.where) };
    default:
      return node;
  }
}
