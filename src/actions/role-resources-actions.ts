import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import { bindFilter } from '../plan/bind-filter.js';
import { sampleUser, withUser } from '../auth/user-variables.js';
import { SCOPES, USERS } from '../auth/system-collections.js';
import { checkScopeOn, scopeRef, scopeRows } from '../auth/resource-scopes.js';
import type { UnitOfWork } from '../store/unit-of-work.js';
import { OWNER_COLUMN, ownsRows, resourceScope } from '../auth/role-strategy.js';
import type { QueryParams } from '../request/query-params.js';
import type { Collection } from '../schema/collection.js';
import type { ActionContext, ActionResult } from './action-context.js';
import { getAction } from './get-action.js';
import { keyFilter, parseKeys } from '../plan/bind-keys.js';
import { bindWriteValues } from '../plan/bind-write-values.js';
import { updateMatched } from '../store/update-rows.js';
import { selectWhere } from '../store/write-rows.js';
import { nestedOptions } from './create-action.js';

/** The grant actions a resource item may name (API.md §9). */
const GRANT_ACTIONS: ReadonlySet<string> = new Set(['view', 'create', 'update', 'destroy']);
const ROLES = 'roles';

/** The query of the inner get/update on the role row: its key only, nothing else of the outer request. */
function rowParams(ctx: ActionContext, fields: string[]): QueryParams {
  const { page, pageSize, paginate, simplePaginate, cascade } = ctx.request.params;
  return { page, pageSize, paginate, simplePaginate, cascade, fields };
}

type ResourceItem = { name: string; actions: Array<{ name: string; fields?: string[]; filter?: Record<string, unknown>; scope?: 'own'; scopeId?: number }> };

function rolesOf(ctx: ActionContext): Collection {
  const roles = ctx.snapshot.get(ROLES);
  if (roles === undefined) throw new ApiError('COLLECTION_NOT_FOUND', 'collection roles does not exist');
  return roles;
}

/** The role row's `resources`, read through the store (inside the caller's scope on roles: 404 outside it). */
async function readResources(ctx: ActionContext, roles: Collection): Promise<ResourceItem[]> {
  const roleName = ctx.request.path.sourceKey!;
  const request = { ...ctx.request, action: 'get', keys: roleName, params: rowParams(ctx, ['resources']), body: undefined };
  const result = await getAction({ ...ctx, request }, roles);
  if (result.kind !== 'item') throw new Error(`roles:get answered ${result.kind}`);
  return itemsOf((result.item as { resources?: unknown }).resources);
}

function itemsOf(resources: unknown): ResourceItem[] {
  return Array.isArray(resources) ? (resources.filter((item) => isRecord(item) && typeof item.name === 'string') as ResourceItem[]) : [];
}

/**
 * Changes the role row's `resources` in one write unit: the row is read locked (FOR UPDATE;
 * SQLite's writer is alone), `change` computes the new list (undefined: no change), `check`
 * reads what it must (the scope rows it names) in the same unit, and it is
 * written like `roles:update/<name>` with `{resources}`. Two concurrent changes of one role's
 * resources run one after the other, so neither is lost.
 */
async function changeResources<T>(
  ctx: ActionContext,
  roles: Collection,
  change: (resources: ResourceItem[]) => { resources?: ResourceItem[]; result: T },
  check?: (unit: UnitOfWork) => Promise<void>,
): Promise<T> {
  const field = roles.fields.get('resources');
  if (field === undefined) throw new Error('roles has no resources field');
  const where = keyFilter(roles, parseKeys(roles, ctx.request.path.sourceKey!));
  const now = new Date();
  return ctx.store.write(ctx, roles, async (unit) => {
    const [row] = await selectWhere(unit, roles, [roles.key, field], where, true);
    if (row === undefined) throw new ApiError('RECORD_NOT_FOUND', `no ${ROLES} record matches`);
    const { resources, result } = change(itemsOf(roles.decode(row, [field]).resources));
    await check?.(unit);
    if (resources !== undefined) await updateMatched(unit, roles, await bindWriteValues(roles, { resources }, 'update', now), where, nestedOptions(ctx.request.params, now));
    return result;
  });
}

/** The collection name an item action addresses (path key or filterByTk). */
function itemName(ctx: ActionContext): string {
  const keys = ctx.request.keys;
  const name = Array.isArray(keys) ? (keys.length === 1 ? keys[0] : undefined) : keys;
  if (name === undefined) throw new ApiError('KEY_INVALID', 'name the collection: roles/<role>/resources:<action>/<collection>');
  return String(name);
}

/** Checks `{name?, actions}`; the filters must bind against the collection they scope. */
function resourceItem(ctx: ActionContext, body: unknown, name: string | undefined): ResourceItem {
  if (!isRecord(body)) throw new ApiError('BODY_INVALID', 'a resource is {"name": <collection>, "actions": [{"name", "fields"?, "filter"?}]}');
  const collectionName = name ?? body.name;
  if (typeof collectionName !== 'string' || collectionName === '') throw new ApiError('VALIDATION_FAILED', 'name must be a collection name', { field: 'name' });
  if (name !== undefined && body.name !== undefined && body.name !== name) throw new ApiError('VALIDATION_FAILED', 'the name of a resource cannot change', { field: 'name' });
  const collection = ctx.snapshot.get(collectionName);
  if (collection === undefined && collectionName !== 'collections') throw new ApiError('VALIDATION_FAILED', `collection ${collectionName} does not exist`, { field: 'name' });
  if (!Array.isArray(body.actions)) throw new ApiError('VALIDATION_FAILED', 'actions must be an array', { field: 'actions' });
  const actions = body.actions.map((action, index) => {
    const at = `actions[${index}]`;
    if (!isRecord(action) || typeof action.name !== 'string' || !GRANT_ACTIONS.has(action.name)) {
      throw new ApiError('VALIDATION_FAILED', `${at}.name must be one of view, create, update, destroy`, { field: 'actions' });
    }
    const out: ResourceItem['actions'][number] = { name: action.name };
    // NocoBase's built-in `own` scope (rows whose createdById is the caller); a named scope row is `scopeId` (checkScopes).
    const scopeId = scopeRef(action, at);
    if (scopeId !== undefined) {
      if (collection === undefined) throw new ApiError('VALIDATION_FAILED', `${at}: ${collectionName} takes no named scope`, { field: 'actions' });
      out.scopeId = scopeId;
    }
    if (resourceScope(action.scope, action.name, at) === 'own') {
      // A strategy's `:own` matches no row of such a collection; a resource names it, so it is refused at once.
      if (collection !== undefined && !ownsRows(collection)) throw new ApiError('VALIDATION_FAILED', `${at}.scope own needs ${collectionName}.${OWNER_COLUMN} (the collection option createdBy: true)`, { field: 'actions' });
      out.scope = 'own';
    }
    if (action.fields !== undefined) {
      if (!Array.isArray(action.fields) || !action.fields.every((field) => typeof field === 'string' && (collection === undefined || collection.fields.has(field) || collection.relations.has(field)))) {
        throw new ApiError('VALIDATION_FAILED', `${at}.fields must list fields of ${collectionName}`, { field: 'actions' });
      }
      out.fields = action.fields as string[];
    }
    if (action.filter !== undefined) {
      if (!isRecord(action.filter) || collection === undefined) throw new ApiError('VALIDATION_FAILED', `${at}.filter must be a filter object`, { field: 'actions' });
      // `{{$user.x}}` variables are bound per request: check the filter with a sample user's values of their types.
      bindFilter(withUser(action.filter, sampleUser(ctx.snapshot.get(USERS))), collection);
      out.filter = action.filter;
    }
    return out;
  });
  return { name: collectionName, actions };
}

/**
 * The scope rows `item` names must exist (as the caller may see them: read through the store)
 * and fit its collection (resourceName, filter): 400 otherwise.
 */
async function checkScopes(unit: UnitOfWork, ctx: ActionContext, item: ResourceItem): Promise<void> {
  const refs = item.actions.flatMap((action, index) => (action.scopeId === undefined ? [] : [{ id: action.scopeId, at: `actions[${index}]` }]));
  if (refs.length === 0) return;
  const scopes = ctx.snapshot.get(SCOPES);
  const collection = ctx.snapshot.get(item.name);
  if (scopes === undefined || collection === undefined) throw new ApiError('VALIDATION_FAILED', `${refs[0]!.at}: scope ${refs[0]!.id} does not exist`, { field: 'actions' });
  const fields = ['id', 'resourceName', 'scope'].map((name) => scopes.fields.get(name)!);
  const rows = await selectWhere(unit, scopes, fields, keyFilter(scopes, [...new Set(refs.map((ref) => ref.id))]));
  const byId = scopeRows(rows.map((row) => scopes.decode(row, fields)));
  for (const ref of refs) {
    const scope = byId.get(ref.id);
    if (scope === undefined) throw new ApiError('VALIDATION_FAILED', `${ref.at}: scope ${ref.id} does not exist`, { field: 'actions' });
    checkScopeOn(scope, collection, ctx.snapshot, ref.at);
  }
}

/**
 * `roles/<role>/resources` (API.md §9): the per-collection grants of a role, keyed by
 * collection name. They live in the role row's `resources` field; these actions read and
 * write that field through the store, so the caller's grants on `roles` apply (view to read,
 * update to change) and the permission layer refuses granting more than the caller has.
 */
export const roleResourcesActions = {
  list: async (ctx: ActionContext): Promise<ActionResult> => ({ kind: 'items', items: await readResources(ctx, rolesOf(ctx)) }),
  get: async (ctx: ActionContext): Promise<ActionResult> => {
    const name = itemName(ctx);
    const item = (await readResources(ctx, rolesOf(ctx))).find((resource) => resource.name === name);
    if (item === undefined) throw new ApiError('RECORD_NOT_FOUND', `role ${ctx.request.path.sourceKey!} has no resource ${name}`);
    return { kind: 'item', item };
  },
  create: async (ctx: ActionContext): Promise<ActionResult> => {
    const roles = rolesOf(ctx);
    const item = resourceItem(ctx, ctx.request.body, undefined);
    return changeResources(
      ctx,
      roles,
      (resources) => {
        if (resources.some((resource) => resource.name === item.name)) throw new ApiError('UNIQUE_VIOLATION', `role ${ctx.request.path.sourceKey!} has a resource ${item.name} already`, { field: 'name' });
        return { resources: [...resources, item], result: { kind: 'created', item, location: [ROLES, ctx.request.path.sourceKey!, 'resources', item.name] } };
      },
      (unit) => checkScopes(unit, ctx, item),
    );
  },
  update: async (ctx: ActionContext): Promise<ActionResult> => {
    const roles = rolesOf(ctx);
    const name = itemName(ctx);
    let item: ResourceItem | undefined;
    return changeResources(
      ctx,
      roles,
      (resources) => {
        if (!resources.some((resource) => resource.name === name)) throw new ApiError('RECORD_NOT_FOUND', `role ${ctx.request.path.sourceKey!} has no resource ${name}`);
        const changed = resourceItem(ctx, ctx.request.body, name);
        item = changed;
        return { resources: resources.map((resource) => (resource.name === name ? changed : resource)), result: { kind: 'item', item: changed } };
      },
      (unit) => checkScopes(unit, ctx, item!),
    );
  },
  destroy: async (ctx: ActionContext): Promise<ActionResult> => {
    const roles = rolesOf(ctx);
    const name = itemName(ctx);
    return changeResources(ctx, roles, (resources) => {
      const kept = resources.filter((resource) => resource.name !== name);
      return { ...(kept.length === resources.length ? {} : { resources: kept }), result: { kind: 'count', n: resources.length - kept.length } };
    });
  },
} satisfies Record<string, (ctx: ActionContext) => Promise<ActionResult>>;
