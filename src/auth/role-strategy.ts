import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import type { Collection } from '../schema/collection.js';
import { stampColumn } from '../schema/stamp-options.js';
import { scopeRef } from './resource-scopes.js';
import { GRANT_ACTIONS } from './system-collections.js';

/** The X-Role value that asks for the union of the user's roles (NocoBase's name). */
export const UNION_ROLE = '__union__';

/** The actions an `:own` scope applies to (a created row has no owner before it exists). */
export const OWN_ACTIONS: ReadonlySet<string> = new Set(['view', 'update', 'destroy']);

/** The column an `:own` grant compares with the caller's id (the `createdBy` collection option's). */
export const OWNER_COLUMN = 'createdById';

/**
 * Whether rows of `collection` record their creator in a column only the server writes
 * (`createdById`, stamp-options.ts): an own grant is meaningful there and nowhere else (a
 * plain column a client could set would let it forge ownership).
 */
export function ownsRows(collection: Collection): boolean {
  return stampColumn(collection.def, 'createdBy') === OWNER_COLUMN && collection.fields.has(OWNER_COLUMN);
}

/** One strategy action read: `view`, or `view:own` (only rows the caller created). */
export function strategyAction(text: string): { action: string; own: boolean } | undefined {
  const [action, scope, ...rest] = text.split(':');
  if (action === undefined || rest.length > 0 || !(GRANT_ACTIONS as readonly string[]).includes(action)) return undefined;
  if (scope === undefined) return { action, own: false };
  return scope === 'own' && OWN_ACTIONS.has(action) ? { action, own: true } : undefined;
}

/**
 * The row scope of a role resource action: `"own"` or `{"key": "own"}` (NocoBase's built-in
 * scope), `"all"`/`{"key": "all"}`/null for every row; a named scope row `{id, ...}` is left to
 * `scopeRef` (resource-scopes.ts). Anything else is 400.
 */
export function resourceScope(value: unknown, action: string, at: string): 'own' | undefined {
  const key = isRecord(value) ? value.key : value;
  if (key === undefined || key === null || key === 'all') return undefined;
  // Another scope row (`{id, key: "published"}`): a named scope, read by scopeRef (resource-scopes.ts).
  if (isRecord(value) && key !== 'own' && value.id !== undefined && value.id !== null) return undefined;
  if (key === 'own' && OWN_ACTIONS.has(action)) return 'own';
  throw new ApiError('VALIDATION_FAILED', `${at}.scope must be "all" or "own" (own: on view, update or destroy)`, { field: 'actions' });
}

/**
 * A roles row as written (create, update): `strategy.actions` must name known actions, with
 * `:own` only on view, update and destroy; `__union__` is not a role name. 400 otherwise, so a
 * role never stores a grant that would be refused later.
 */
export function checkRoleBody(body: unknown): void {
  for (const item of Array.isArray(body) ? body : [body]) {
    if (!isRecord(item)) continue;
    if (item.name === UNION_ROLE) throw new ApiError('VALIDATION_FAILED', `${UNION_ROLE} is reserved (X-Role: ${UNION_ROLE} acts with every role of the user)`, { field: 'name' });
    checkResources(item.resources);
    if (item.strategy === undefined || item.strategy === null) continue;
    if (!isRecord(item.strategy)) throw new ApiError('VALIDATION_FAILED', 'strategy must be {"actions": [...]}', { field: 'strategy' });
    const actions = item.strategy.actions;
    if (actions === undefined || actions === null) continue;
    if (!Array.isArray(actions)) throw new ApiError('VALIDATION_FAILED', 'strategy.actions must be an array', { field: 'strategy' });
    for (const action of actions) {
      if (typeof action !== 'string' || strategyAction(action) === undefined) {
        throw new ApiError('VALIDATION_FAILED', `strategy.actions: unknown action ${JSON.stringify(action)} (view, create, update, destroy; view:own, update:own, destroy:own)`, { field: 'strategy' });
      }
    }
  }
}

/** The `resources` of a roles row written whole: action names and scopes as roles/<role>/resources checks them. */
function checkResources(resources: unknown): void {
  if (!Array.isArray(resources)) return;
  for (const resource of resources) {
    if (!isRecord(resource) || !Array.isArray(resource.actions)) continue;
    resource.actions.forEach((action: unknown, index) => {
      const at = `resources.${String(resource.name)}.actions[${index}]`;
      if (!isRecord(action) || typeof action.name !== 'string' || !(GRANT_ACTIONS as readonly string[]).includes(action.name)) {
        throw new ApiError('VALIDATION_FAILED', `${at}.name must be one of ${GRANT_ACTIONS.join(', ')}`, { field: 'resources' });
      }
      resourceScope(action.scope, action.name, at);
      // A named scope's row is checked when the role is used (a missing one grants nothing).
      scopeRef(action, at);
    });
  }
}
