import { ApiError } from '../errors/api-error.js';
import { bindReadShape } from '../plan/bind-read-shape.js';
import type { Relation } from '../schema/collection.js';
import { associationFilter } from '../store/association-source.js';
import { createLinked } from '../store/nested-writes.js';
import { splitThrough } from '../store/through-values.js';
import type { ActionContext, ActionResult } from './action-context.js';
import { anchorFromPath, loadScope } from './association-scope.js';
import { countAction } from './count-action.js';
import { bindCreateItems, bodyOrEmpty, createdResult, nestedOptions, writeFilter, refuseUpload } from './create-action.js';
import { destroyAction } from './destroy-action.js';
import { getAction } from './get-action.js';
import { listAction } from './list-action.js';
import { exportAction } from './export-action.js';
import { importAction } from './import-action.js';
import { updateAction } from './update-action.js';
import { updateWithThrough } from './through-update.js';

type AssociationAction = (ctx: ActionContext, relation: Relation) => Promise<ActionResult>;

/** Reads: the target collection's own actions, narrowed to the association. */
const read = (action: typeof listAction): AssociationAction => async (ctx, relation) => {
  const scope = await loadScope(ctx, relation);
  return action(ctx, relation.target, scope.where);
};

/** A to-many association's `sortBy` (NocoBase's hasMany `sortable`) orders its list when the request does not. */
function withSortBy(ctx: ActionContext, relation: Relation): ActionContext {
  const { sortBy } = relation.def;
  if (sortBy === undefined || ctx.request.params.sort !== undefined) return ctx;
  return { ...ctx, request: { ...ctx.request, params: { ...ctx.request.params, sort: typeof sortBy === 'string' ? [sortBy] : sortBy } } };
}

/**
 * A to-many list. When the path key is the relation's sourceKey the list runs at once, and
 * the source is read only if the page comes back empty: a missing source is still 404.
 */
const list: AssociationAction = async (given, relation) => {
  const ctx = withSortBy(given, relation);
  const anchor = anchorFromPath(ctx, relation);
  // A scoped source must be read: an out-of-scope source is 404 even when its list would not be empty.
  if (anchor === undefined || !ctx.request.params.paginate || ctx.scopes.has(relation.source.name)) return read(listAction)(ctx, relation);
  const result = await listAction(ctx, relation.target, associationFilter(relation, anchor));
  const empty = result.kind === 'page' && result.items.length === 0;
  if (empty) await loadScope(ctx, relation);
  return result;
};

/** get, update, destroy: a to-one association names its one row without a key. */
const item = (action: typeof getAction): AssociationAction => async (ctx, relation) => {
  const scope = await loadScope(ctx, relation);
  return action(ctx, relation.target, scope.where, !relation.toMany);
};

/**
 * create: a new target row linked to the source, in one transaction. hasOne replaces the
 * row linked before (it is unlinked, not deleted).
 */
const create: AssociationAction = async (ctx, relation) => {
  const { target } = relation;
  refuseUpload(ctx);
  const { params } = ctx.request;
  const now = new Date();
  const shape = bindReadShape(target, undefined, undefined, params.appends);
  // belongsToMany: each object may carry the values of its link under the through collection's name.
  const body = bodyOrEmpty(ctx.request.body);
  const split = (Array.isArray(body) ? body : [body]).map((value) => splitThrough(relation, value));
  const own = Array.isArray(body) ? split.map((part) => part.own) : split[0]!.own;
  const { bulk, items } = await bindCreateItems(target, own, now, writeFilter(params));
  if (bulk && !relation.toMany) throw new ApiError('BODY_INVALID', `${relation.name} holds one record; create takes an object`);
  const options = nestedOptions(params, now);
  // A new belongsTo target changes the source's key column, a belongsToMany one adds a junction row of the source: both update the
  // source's association. A new hasOne/hasMany row carries the link itself (its create grant).
  const sourceAction = relation.type === 'belongsTo' || relation.type === 'belongsToMany' ? 'update' : 'view';
  const rows = await ctx.store.write(ctx, target, async (unit) => createLinked(unit, await loadScope(ctx, relation, unit, sourceAction), items, options, split.map((part) => part.through)));
  return createdResult(ctx, target, shape, rows, bulk);
};

/** update: on a belongsToMany, a body holding the link's values (`{"posts_tags": {…}}`) also writes its through rows. */
const update: AssociationAction = async (ctx, relation) => {
  const { own, through } = relation.type === 'belongsToMany' ? splitThrough(relation, bodyOrEmpty(ctx.request.body)) : { own: undefined, through: undefined };
  if (relation.type !== 'belongsToMany' || through === undefined) return item(updateAction)(ctx, relation);
  if (ctx.request.params.ifMatch !== undefined) throw new ApiError('PRECONDITION_NOT_SINGLE', 'If-Match is not taken by an update that writes through values');
  return updateWithThrough(ctx, relation, own, through);
};

export const ASSOCIATION_ACTIONS = {
  list: async (ctx: ActionContext, relation: Relation) => (relation.toMany ? list(ctx, relation) : item(getAction)(ctx, relation)),
  count: read(countAction),
  get: item(getAction),
  update,
  destroy: item(destroyAction),
  create,
  export: read(exportAction),
  // Rows of a to-many association: the source is read inside the import's transaction.
  import: (ctx: ActionContext, relation: Relation) => importAction(ctx, relation.target, relation),
} satisfies Record<string, AssociationAction>;
