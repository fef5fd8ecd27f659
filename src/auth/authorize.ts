import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import type { ApiRequest } from '../request/api-request.js';
import type { Collection } from '../schema/collection.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import type { Scopes } from '../store/scope.js';
import { checkReadable, hasFieldLists } from './check-readable.js';
import { grantActionOf, type Access, type GrantAction } from './permissions.js';
import { OPEN_GRANTS, UNRESTRICTED_GRANTS, type Grants } from '../store/scope.js';
import { ROLES, USERS } from './system-collections.js';
import { checkRoleBody, strategyAction } from './role-strategy.js';

/** Actions on an association that change the source's links: they need `update` on the source. */
const LINK_ACTIONS = new Set(['add', 'set', 'remove', 'toggle', 'move']);
const NOTHING: ReadonlySet<string> = new Set();

/**
 * Checks a non-root request against its roles before anything runs (403 FORBIDDEN when its
 * action is not allowed, an append or probe names an unreadable field, or it would grant more
 * than the caller has) and gives the grants the store enforces on every statement
 * (src/store/unit-of-work.ts): narrowing rows and fields, written fields, nested writes and
 * links are the store's, never decided here.
 */
export function authorize(access: Access, request: ApiRequest, snapshot: SchemaSnapshot): Grants {
  const { path, action } = request;
  // A role never stores a grant it would refuse later (root's writes included).
  if (path.collection === ROLES && path.association === undefined && request.body !== undefined && grantActionOf(action) !== 'view') checkRoleBody(request.body);
  if (access.root) return OPEN_GRANTS;
  // Not root: root-only resources (store/root-only.ts) stay out of reach on every path.
  if (path.collection === 'app' || path.collection === 'auth') return UNRESTRICTED_GRANTS;
  const grants = access.grants(snapshot);
  const grantAction = grantActionOf(action);
  if (grantAction === undefined) throw new ApiError('FORBIDDEN', `your roles do not allow ${action}`);
  // The change feed's pull API spans collections: each one's events under its `view` scope (FALSE when not granted).
  if (path.collection === 'changes') return grants;
  if (path.collection === 'collections' || path.collection === 'fields') {
    access.require('collections', grantAction);
    return UNRESTRICTED_GRANTS;
  }
  if (path.collection === ROLES && path.association === 'resources') {
    authorizeRoleResources(access, request, snapshot, grantAction);
    return grants;
  }
  const source = snapshot.get(path.collection);
  const relation = path.association === undefined ? undefined : source?.relations.get(path.association);
  if (source === undefined || (path.association !== undefined && relation === undefined)) return grants; // 404 follows
  let main = source.name;
  if (relation !== undefined) {
    if (LINK_ACTIONS.has(action)) {
      access.require(source.name, 'update');
    } else {
      access.require(source.name, 'view');
      main = relation.target.name;
    }
  }
  const mainAction = relation !== undefined && LINK_ACTIONS.has(action) ? 'update' : grantAction;
  access.require(main, mainAction);
  if (action === 'updateOrCreate') access.require(main, 'create');
  if (mainAction !== 'view' && mainAction !== 'destroy') checkEscalation(access, main, request.body);
  const collection = snapshot.get(main)!;
  checkAppends(grants.view, collection, request.params.appends ?? []);
  if (!LINK_ACTIONS.has(action)) checkProbes(access, grants.view, collection, mainAction, request);
  return grants;
}

/**
 * `roles/<role>/resources`: reading needs `view` on roles, changing needs `update` on roles
 * (the role row's `resources` field, when the grant lists fields), and the change is checked
 * like a `roles:update` of that role with the new resource: nobody grants more than they have.
 */
function authorizeRoleResources(access: Access, request: ApiRequest, snapshot: SchemaSnapshot, grantAction: GrantAction): void {
  const action = grantAction === 'view' ? 'view' : 'update';
  access.require(ROLES, action);
  const fields = access.scope(snapshot.get(ROLES)!, action)?.fields;
  if (fields !== undefined && !fields.has('resources')) throw new ApiError('FORBIDDEN', `your roles do not allow ${action === 'view' ? 'reading' : 'writing'} resources of roles`, { field: 'resources' });
  if (action === 'update') {
    const resource = isRecord(request.body) ? { ...request.body, ...(request.keys === undefined || typeof request.keys === 'object' ? {} : { name: String(request.keys) }) } : request.body;
    checkEscalation(access, ROLES, { name: request.path.sourceKey, resources: grantAction === 'destroy' ? [] : [resource] });
  }
}

/**
 * A filter, sort, filterKeys or query may test only fields the caller may read: those of the
 * `view` grant (for a write, the main collection's `view` grant when there is one, else the
 * write's own field list), checked in the collection each path reaches.
 */
function checkProbes(access: Access, scopes: Scopes, main: Collection, mainAction: GrantAction, request: ApiRequest): void {
  const mainView = mainAction === 'view' ? undefined : access.grant(main.name, 'view');
  if (!hasFieldLists(scopes) && mainView?.fields === undefined) return;
  // A write's probes are read under the main collection's view grant, or the write's own field list without one.
  const mainFields = mainAction === 'view' || mainView !== undefined ? scopes.get(main.name)?.fields : access.grant(main.name, mainAction)?.fields;
  // A collection without a view grant has no readable field: a path through it is refused like a hidden field.
  checkReadable((collection) => (collection.name === main.name ? mainFields : scopes.get(collection.name)?.denied ? NOTHING : scopes.get(collection.name)?.fields), main, request);
}

/**
 * Every step of an append path (`author.posts`) must be a granted field of the collection it
 * leaves: 403 FORBIDDEN otherwise. (Unknown names are left to the read, which answers 400.)
 */
function checkAppends(scopes: Scopes, main: Collection, appends: readonly string[]): void {
  for (const path of appends) {
    let collection: Collection | undefined = main;
    for (const step of path.split('.')) {
      if (collection === undefined) break;
      const granted: ReadonlySet<string> | undefined = scopes.get(collection.name)?.fields;
      if (granted !== undefined && !granted.has(step)) {
        throw new ApiError('FORBIDDEN', `your roles do not allow reading ${step} of ${collection.name}`, { field: 'appends' });
      }
      collection = collection.relations.get(step)?.target;
    }
  }
}

/** Nobody grants more than they have: users get only the writer's roles, roles only the writer's actions. */
function checkEscalation(access: Access, collection: string, body: unknown): void {
  for (const item of Array.isArray(body) ? body : [body]) {
    if (!isRecord(item)) continue;
    if (collection === USERS && item.roles !== undefined) {
      const roles = Array.isArray(item.roles) ? item.roles : [item.roles];
      for (const role of roles) {
        if (typeof role !== 'string' || !access.principal.roles.includes(role)) {
          throw new ApiError('FORBIDDEN', `you cannot give a role you do not have (${String(role)})`, { field: 'roles' });
        }
      }
    }
    if (collection === ROLES) {
      if (typeof item.name === 'string' && access.principal.roles.includes(item.name)) {
        throw new ApiError('FORBIDDEN', 'you cannot change a role you hold', { field: 'name' });
      }
      const strategy = isRecord(item.strategy) ? item.strategy : {};
      for (const action of Array.isArray(strategy.actions) ? strategy.actions : []) {
        // `view:own` needs view or view:own in the caller's strategy; `view` needs view on every row.
        const read = strategyAction(String(action));
        if (read === undefined || !access.strategyAllows(read.action, read.own)) {
          throw new ApiError('FORBIDDEN', `you cannot grant ${String(action)} on every collection`, { field: 'strategy' });
        }
      }
      for (const resource of Array.isArray(item.resources) ? item.resources : []) {
        if (!isRecord(resource) || !Array.isArray(resource.actions)) continue;
        for (const action of resource.actions) {
          const name = isRecord(action) ? String(action.name) : '';
          if (!access.allows(String(resource.name), name as 'view')) {
            throw new ApiError('FORBIDDEN', `you cannot grant ${name} on ${String(resource.name)}`, { field: 'resources' });
          }
        }
      }
    }
  }
}
