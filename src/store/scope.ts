import { and, FALSE_NODE, TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { ApiRequest } from '../request/api-request.js';
import type { Collection } from '../schema/collection.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';

/**
 * What a caller may see of one collection: the rows matching `where` (bound to that
 * collection), and optionally only `fields` of them. The store ANDs `where` into every
 * statement that reads or changes the collection's rows. `denied`: the action is not granted
 * at all (`where` is then FALSE).
 */
export interface Scope {
  readonly where: FilterNode;
  readonly fields?: ReadonlySet<string>;
  readonly denied?: true;
}

/** The scopes of one request, by collection name; a collection not listed is unrestricted. */
export type Scopes = ReadonlyMap<string, Scope>;

export const NO_SCOPES: Scopes = new Map();

/** The four things a grant allows on a collection. */
export type GrantAction = 'view' | 'create' | 'update' | 'destroy';

/** A scope that grants nothing. */
export const DENIED: Scope = Object.freeze({ where: FALSE_NODE, denied: true as const });

/**
 * What one caller may do, per collection and action: the store's one source of authorization.
 * The unit of work asks it for every statement it runs (src/store/unit-of-work.ts).
 */
export interface Grants {
  /** Nothing is restricted anywhere (root, or authentication off without a scope provider). */
  readonly open: boolean;
  /** The `view` scope of every restricted collection (appends, association paths, key lookups, answers). */
  readonly view: Scopes;
  /** The scope of `collection` for `action`: undefined when unrestricted, DENIED when not granted. */
  scope(collection: Collection, action: GrantAction): Scope | undefined;
}

export const OPEN_GRANTS: Grants = Object.freeze({ open: true, view: NO_SCOPES, scope: () => undefined });

/**
 * Every row of every collection, but not root: a non-root caller on a resource that is no
 * collection's rows (the schema API, auth, app). Root-only resources stay out of reach
 * (root-only.ts).
 */
export const UNRESTRICTED_GRANTS: Grants = Object.freeze({ open: false, view: NO_SCOPES, scope: () => undefined });

/** The provider seam (tests inject one): one scope per collection, whatever the action. */
export function grantsOfScopes(scopes: Scopes): Grants {
  if (scopes.size === 0) return OPEN_GRANTS;
  return { open: false, view: scopes, scope: (collection) => scopes.get(collection.name) };
}

/** Both sets of grants at once: a collection restricted by both gets both filters and the narrower field set. */
export function bothGrants(a: Grants, b: Grants): Grants {
  if (a.open) return b;
  if (b.open) return a;
  const view = new Map(a.view);
  for (const [name, scope] of b.view) {
    const other = view.get(name);
    view.set(name, other === undefined ? scope : bothScopes(other, scope)!);
  }
  return { open: false, view, scope: (collection, action) => bothScopes(a.scope(collection, action), b.scope(collection, action)) };
}

function bothScopes(a: Scope | undefined, b: Scope | undefined): Scope | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (a.denied || b.denied) return DENIED;
  const fields = a.fields === undefined ? b.fields : b.fields === undefined ? a.fields : new Set([...a.fields].filter((name) => b.fields!.has(name)));
  return { where: and([a.where, b.where]), ...(fields === undefined ? {} : { fields }) };
}

/** Gives the scopes of a request (the seam a permission system plugs into; tests inject one). */
export type ScopeProvider = (request: ApiRequest, snapshot: SchemaSnapshot) => Scopes;

/** The row filter of a collection's scope (TRUE when unrestricted). */
export function scopeWhere(scopes: Scopes, collection: Collection): FilterNode {
  return scopes.get(collection.name)?.where ?? TRUE_NODE;
}

/**
 * `where` over `collection` with `own` (the collection's scope for the statement's action)
 * ANDed in, and the `view` scope of the target inside every association path (`exists`), so
 * a filter cannot test rows out of scope.
 */
export function scoped(view: Scopes, own: FilterNode, where: FilterNode): FilterNode {
  if (view.size === 0 && own === TRUE_NODE) return where;
  return and([own, view.size === 0 ? where : scopeRelated(view, where)]);
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
      return { kind: 'exists', relation: node.relation, where: scoped(scopes, scopeWhere(scopes, node.relation.target), node.where) };
    default:
      return node;
  }
}
