import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import { bindFilter } from '../plan/bind-filter.js';
import { and, FALSE_NODE, or, TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import { GRANT_COLLECTIONS } from '../schema/system-collection-tables.js';
import { DENIED, OPEN_GRANTS, type GrantAction as StoreGrantAction, type Grants, type Scope, type Scopes } from '../store/scope.js';
import type { Principal } from '../request/principal.js';
import { withUser } from './user-variables.js';
import { systemRule } from '../schema/system-rules.js';
import { ownedRowsScope } from '../store/owned-rows.js';
import { ownsRows, OWNER_COLUMN, resourceScope, strategyAction } from './role-strategy.js';
import { scopedFilter, scopeRef, type ScopeRow } from './resource-scopes.js';
import { WEBHOOKS } from '../webhooks/webhook-definitions.js';
import { API_KEYS, GRANT_ACTIONS, ROOT_ROLE, USERS } from './system-collections.js';

/** Bound scope sets kept per node (by schema version, user, roles, collection and action). */
const MAX_CACHED_SCOPES = 5000;

export type GrantAction = (typeof GRANT_ACTIONS)[number] & StoreGrantAction;

/** Collections the strategy does not cover: only root or an explicit resource grant reaches them. */
export const PROTECTED: ReadonlySet<string> = new Set([...GRANT_COLLECTIONS, 'collections']);

/**
 * One action of one collection as a role grants it: `own`, only rows whose `createdById` is
 * the caller (`view:own`, a resource action with the `own` scope), ANDed with `filter`.
 */
interface Grant {
  readonly fields?: readonly string[];
  readonly filter?: unknown;
  readonly own?: true;
}

/** The row part of one role's grant, as the union keeps it (bound per collection in `scope`). */
export interface RowGrant {
  readonly filter?: unknown;
  readonly own?: true;
}

/** A role as stored: `strategy.actions` for every collection, `resources` per collection. */
export interface RoleDef {
  readonly name: string;
  /** By action: `{}` for every row, `{own: true}` for `<action>:own`. */
  readonly actions: ReadonlyMap<string, Grant>;
  readonly resources: ReadonlyMap<string, ReadonlyMap<string, Grant>>;
}

const OWN: Grant = Object.freeze({ own: true as const });
const ALL: Grant = Object.freeze({});

/**
 * Parses a roles row; anything malformed grants nothing. An action naming a scope row
 * (`scopeId`, `scope: {id}`) gets that row's filter ANDed with its own; when the row is
 * missing or is for another collection, the action grants nothing.
 */
export function roleDef(row: Record<string, unknown>, scopes: ReadonlyMap<number, ScopeRow> = new Map()): RoleDef {
  const strategy = isRecord(row.strategy) ? row.strategy : {};
  const actions = new Map<string, Grant>();
  for (const text of Array.isArray(strategy.actions) ? strategy.actions : []) {
    const read = typeof text === 'string' ? strategyAction(text) : undefined;
    // `view` and `view:own` together: every row.
    if (read !== undefined && actions.get(read.action) !== ALL) actions.set(read.action, read.own ? OWN : ALL);
  }
  const resources = new Map<string, Map<string, Grant>>();
  for (const resource of Array.isArray(row.resources) ? row.resources : []) {
    if (!isRecord(resource) || typeof resource.name !== 'string' || !Array.isArray(resource.actions)) continue;
    const grants = new Map<string, Grant>();
    for (const action of resource.actions) {
      if (!isRecord(action) || typeof action.name !== 'string') continue;
      const fields = Array.isArray(action.fields) ? action.fields.filter((f): f is string => typeof f === 'string') : undefined;
      let own: boolean;
      let ref: number | undefined;
      try {
        own = resourceScope(action.scope, action.name, 'action') === 'own';
        ref = scopeRef(action, 'action');
      } catch {
        continue;
      }
      let filter: unknown = action.filter;
      if (ref !== undefined) {
        const scope = scopes.get(ref);
        if (scope === undefined || (scope.resourceName !== null && scope.resourceName !== resource.name)) continue;
        filter = scopedFilter(scope, filter);
      }
      grants.set(action.name, { ...(fields === undefined ? {} : { fields }), ...(filter === undefined ? {} : { filter }), ...(own ? OWN : {}) });
    }
    resources.set(resource.name, grants);
  }
  return { name: String(row.name), actions, resources };
}

/** The grant of one role for (collection, action), or undefined when it grants nothing. */
function grantOf(role: RoleDef, collection: string, action: GrantAction): Grant | undefined {
  if (role.name === ROOT_ROLE) return {};
  // Webhooks (their targets) are root's alone: no grant reaches them, nor their change events.
  if (collection === WEBHOOKS) return undefined;
  const resource = role.resources.get(collection);
  if (resource !== undefined) return resource.get(action);
  if (PROTECTED.has(collection)) return undefined;
  return role.actions.get(action);
}

const grantsByView = new WeakMap<Scopes, Grants>();

/** What a request's roles allow: the union over its roles. */
export class Access {
  readonly root: boolean;

  constructor(
    readonly principal: Principal,
    private readonly roles: readonly RoleDef[],
    /** Every role name that exists (for "users holding a role you lack"). */
    readonly allRoles: readonly string[] = [],
    /** Scopes already bound, shared across requests (cleared when users or roles change). */
    private readonly cache: Map<string, Scopes> = new Map(),
  ) {
    this.root = roles.some((role) => role.name === ROOT_ROLE);
  }

  /**
   * The union of the roles' grants: undefined when none allows the action; `filters` the row
   * grants OR-ed (undefined when one role grants every row), `fields` the union of field sets.
   */
  grant(collection: string, action: GrantAction): { fields?: ReadonlySet<string>; filters: RowGrant[] | undefined } | undefined {
    let allowed = false;
    let fields: Set<string> | undefined = new Set();
    let filters: RowGrant[] | undefined = [];
    for (const role of this.roles) {
      const grant = grantOf(role, collection, action);
      if (grant === undefined) continue;
      allowed = true;
      if (grant.fields === undefined) fields = undefined;
      else if (fields !== undefined) for (const field of grant.fields) fields.add(field);
      if (grant.filter === undefined && grant.own === undefined) filters = undefined;
      else if (filters !== undefined) filters.push({ ...(grant.filter === undefined ? {} : { filter: grant.filter }), ...(grant.own === undefined ? {} : { own: true }) });
    }
    if (!allowed) return undefined;
    return { ...(fields === undefined ? {} : { fields }), filters };
  }

  allows(collection: string, action: GrantAction): boolean {
    // Rows seen through their owners (attachments) need no grant of their own to be viewed: the scope decides.
    if (action === 'view' && systemRule(collection)?.viewThroughOwners === true) return true;
    return this.root || this.grant(collection, action) !== undefined;
  }

  /** 403 FORBIDDEN unless the roles allow the action on the collection. */
  require(collection: string, action: GrantAction): void {
    if (!this.allows(collection, action)) throw new ApiError('FORBIDDEN', `your roles do not allow ${action} on ${collection}`);
  }

  /**
   * The scope of one collection for one action: the OR of the roles' filters, DENIED when not
   * allowed. Two rules no grant escapes: `apiKeys` rows belong to their creator, and users
   * holding a role the caller lacks (root above all) are outside its update and destroy scope
   * (else a new password would make them the caller's).
   */
  scope(collection: Collection, action: GrantAction): Scope | undefined {
    if (this.root) return undefined;
    if (action === 'view' && systemRule(collection.name)?.viewThroughOwners === true) {
      return ownedRowsScope(collection, (owner) => this.scope(owner, 'view'), this.principal.user.id, this.grant(collection.name, 'view')?.fields);
    }
    const grant = this.grant(collection.name, action);
    if (grant === undefined) return DENIED;
    const wheres: FilterNode[] = [grant.filters === undefined ? TRUE_NODE : or(grant.filters.map((row) => this.#rows(row, collection)))];
    if (collection.name === API_KEYS) wheres.push(bindFilter({ userId: this.principal.user.id ?? null }, collection));
    if (collection.name === USERS && (action === 'update' || action === 'destroy')) {
      const lacking = this.allRoles.filter((role) => !this.principal.roles.includes(role));
      if (lacking.length > 0) wheres.push(bindFilter({ roles: { $noneOf: lacking } }, collection));
    }
    const where = and(wheres);
    if (where === TRUE_NODE && grant.fields === undefined) return undefined;
    return { where, ...(grant.fields === undefined ? {} : { fields: grant.fields }) };
  }

  /**
   * What the caller may do on every collection of `snapshot`, for the store: `view` scopes of
   * all collections at once, any other action's scope of one collection on demand (both cached).
   */
  grants(snapshot: SchemaSnapshot): Grants {
    if (this.root) return OPEN_GRANTS;
    const view = this.scopes(snapshot, undefined, 'view');
    // The view map is cached per (schema, user, roles): so are the grants built on it.
    let grants = grantsByView.get(view);
    if (grants === undefined) {
      grants = {
        open: false,
        view,
        scope: (collection, action) => (action === 'view' ? view.get(collection.name) : this.scopes(snapshot, collection.name, action).get(collection.name)),
      };
      grantsByView.set(view, grants);
    }
    return grants;
  }

  /**
   * The scopes of a request: `main` under `action`, every other collection under `view`
   * (appends, association paths in filters and sorts, key lookups of nested writes and links).
   */
  scopes(snapshot: SchemaSnapshot, main: string | undefined, action: GrantAction): Scopes {
    if (this.root) return new Map();
    const key = this.#key(snapshot, main, action);
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const scopes = new Map<string, Scope>();
    for (const collection of snapshot.collections.values()) {
      const scope = this.scope(collection, collection.name === main ? action : 'view');
      if (scope !== undefined) scopes.set(collection.name, scope);
    }
    if (this.cache.size >= MAX_CACHED_SCOPES) this.cache.clear();
    this.cache.set(key, scopes);
    return scopes;
  }

  /**
   * One role's row grant bound to `collection`: its filter AND, for `own`, `createdById` = the
   * caller. A collection without a server-stamped `createdById` (ownsRows) has no row the
   * caller owns: an own grant there matches nothing.
   */
  #rows(row: RowGrant, collection: Collection): FilterNode {
    const parts: FilterNode[] = [];
    if (row.filter !== undefined) parts.push(bindFilter(withUser(row.filter, this.principal.user), collection));
    if (row.own === true) parts.push(ownsRows(collection) ? bindFilter({ [OWNER_COLUMN]: { $eq: this.principal.user.id } }, collection) : FALSE_NODE);
    return and(parts);
  }

  /**
   * Whether a role's strategy may give `action` (with `own`: only the own rows) on every
   * collection: some role of the caller has it on every collection, for every row unless `own`.
   */
  strategyAllows(action: string, own: boolean): boolean {
    if (this.root) return true;
    return this.roles.some((role) => {
      const grant = role.actions.get(action);
      return grant !== undefined && (own || grant.own === undefined);
    });
  }

  /** Filters may read the user's fields: the user is part of the key. */
  #key(snapshot: SchemaSnapshot, main: string | undefined, action: GrantAction): string {
    return `${snapshot.version}\u0000${String(this.principal.user.id)}\u0000${this.roles.map((role) => role.name).join(',')}\u0000${main ?? ''}\u0000${action}`;
  }
}

/** Which grant action a request action needs. */
export function grantActionOf(action: string): GrantAction | undefined {
  switch (action) {
    case 'list':
    case 'listMeta':
    case 'get':
    case 'count':
    case 'query':
    case 'subscribe':
    case 'export':
      return 'view';
    case 'create':
    case 'firstOrCreate':
    // An import creates rows; with filterKeys it also updates, which the store checks per write.
    case 'import':
      return 'create';
    case 'update':
    // updateOrCreate also needs `create` (authorize checks it and the create grant's fields).
    case 'updateOrCreate':
    case 'add':
    case 'set':
    case 'remove':
    case 'toggle':
    case 'move':
    // collections:setIndexes: a change of a collection, like collections:update.
    case 'setIndexes':
      return 'update';
    case 'destroy':
      return 'destroy';
    default:
      return undefined;
  }
}
