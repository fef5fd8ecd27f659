import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import { checkScopeFilter, checkScopeOn } from '../auth/resource-scopes.js';
import { ROLES } from '../auth/system-collections.js';
import type { Collection } from '../schema/collection.js';
import { requireRoleChange } from '../store/role-changes.js';
import type { ActionContext, ActionResult } from './action-context.js';
import { countAction } from './count-action.js';
import { createAction } from './create-action.js';
import { destroyAction } from './destroy-action.js';
import { getAction } from './get-action.js';
import { listAction } from './list-action.js';
import { queryAction } from './query-action.js';
import { updateAction } from './update-action.js';

/** A scope row's `resourceName` and `scope` as written: the filter must bind against the collection named. */
function checkScopeBody(ctx: ActionContext, body: Record<string, unknown>): void {
  const { resourceName, scope } = body;
  if (scope !== undefined && scope !== null && !isRecord(scope)) throw new ApiError('VALIDATION_FAILED', 'scope must be a filter object', { field: 'scope' });
  if (resourceName === undefined || resourceName === null || resourceName === '') return;
  const collection = typeof resourceName === 'string' ? ctx.snapshot.get(resourceName) : undefined;
  if (collection === undefined) throw new ApiError('VALIDATION_FAILED', `resourceName: collection ${String(resourceName)} does not exist`, { field: 'resourceName' });
  checkScopeFilter(scope, collection, ctx.snapshot, 'scope');
}

/** The row ids an update or destroy names: these need a key (filterByTk), so the roles naming them can be checked. */
function keysOf(ctx: ActionContext): Array<string | number> {
  const keys = ctx.request.keys;
  if (keys === undefined) throw new ApiError('KEY_INVALID', 'name the scope: rolesResourcesScopes:<action>?filterByTk=<id>');
  return (Array.isArray(keys) ? keys : [keys]) as Array<string | number>;
}

/** One scope row as the caller may see it (404 outside its view scope). */
async function readScope(ctx: ActionContext, collection: Collection, key: string | number): Promise<Record<string, unknown>> {
  const { page, pageSize, paginate, simplePaginate, cascade } = ctx.request.params;
  const params = { page, pageSize, paginate, simplePaginate, cascade, fields: ['id', 'resourceName', 'scope'] };
  const result = await getAction({ ...ctx, request: { ...ctx.request, action: 'get', keys: key, params, body: undefined } }, collection);
  if (result.kind !== 'item') throw new Error(`rolesResourcesScopes:get answered ${result.kind}`);
  return result.item as Record<string, unknown>;
}

/**
 * `rolesResourcesScopes` (docs/auth.md "Named scopes"): NocoBase's named row scopes, a system
 * collection served by the data actions through the store (root or a role granted on it). A
 * write is checked first: the filter binds against `resourceName`; a changed scope must still
 * fit every role resource naming it; a scope still named cannot be destroyed (409, as
 * NocoBase's `onDelete: RESTRICT`).
 */
export function resourceScopesActions(collection: Collection): Record<string, (ctx: ActionContext) => Promise<ActionResult>> {
  return {
    list: (ctx) => listAction(ctx, collection),
    get: (ctx) => getAction(ctx, collection),
    count: (ctx) => countAction(ctx, collection),
    query: (ctx) => queryAction(ctx, collection),
    create: async (ctx) => {
      const body = ctx.request.body;
      for (const item of Array.isArray(body) ? body : [body]) if (isRecord(item)) checkScopeBody(ctx, item);
      return createAction(ctx, collection);
    },
    update: async (ctx) => {
      const body = ctx.request.body;
      if (isRecord(body) && (body.scope !== undefined || body.resourceName !== undefined)) {
        for (const key of keysOf(ctx)) {
          const row = await readScope(ctx, collection, key);
          const merged = { ...row, ...body };
          checkScopeBody(ctx, merged);
          const id = Number(row.id);
          const scope = { id, resourceName: typeof merged.resourceName === 'string' && merged.resourceName !== '' ? merged.resourceName : null, scope: merged.scope ?? null };
          const roles = ctx.snapshot.get(ROLES);
          for (const use of (await ctx.auth?.authenticator.scopeUses(id)) ?? []) {
            // Changing a scope's filter changes the grants of every role naming it: the store evaluates it as an update of that role.
            if (roles === undefined) throw new ApiError('FORBIDDEN', `this scope is used by role ${use.role}: changing it needs update on roles`);
            await requireRoleChange(ctx.store.read(ctx), roles, use.role, ctx.request.principal?.roles ?? [], 'this scope');
            const target = ctx.snapshot.get(use.collection);
            if (target !== undefined) checkScopeOn(scope, target, ctx.snapshot, `role ${use.role} uses it on ${use.collection}`);
          }
        }
      }
      return updateAction(ctx, collection);
    },
    destroy: async (ctx) => {
      for (const key of keysOf(ctx)) {
        const row = await readScope(ctx, collection, key);
        const [use] = (await ctx.auth?.authenticator.scopeUses(Number(row.id))) ?? [];
        if (use !== undefined) throw new ApiError('REFERENCE_VIOLATION', `scope ${String(row.id)} is used by role ${use.role} on ${use.collection}: change that first`, { field: 'id' });
      }
      return destroyAction(ctx, collection);
    },
  };
}
