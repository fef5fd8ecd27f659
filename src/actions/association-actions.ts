import { ApiError } from '../errors/api-error.js';
import { bindReadShape } from '../plan/bind-read-shape.js';
import type { Relation, Row } from '../schema/collection.js';
import { filterToSql } from '../sql/filter-sql.js';
import type { ActionContext, ActionResult } from './action-context.js';
import { anchorFromPath, canonical, loadScope, scopeFilter } from './association-scope.js';
import { countAction } from './count-action.js';
import { bindCreateItems, createdResult, nestedOptions, writeFilter } from './create-action.js';
import { insertLink } from './insert-link.js';
import { writeNew } from './nested-writes.js';
import { destroyAction } from './destroy-action.js';
import { getAction } from './get-action.js';
import { listAction } from './list-action.js';
import { updateAction } from './update-action.js';
import { writeTransaction } from './write-transaction.js';

type AssociationAction = (ctx: ActionContext, relation: Relation) => Promise<ActionResult>;

/** Reads: the target collection's own actions, narrowed to the association. */
const read = (action: typeof listAction): AssociationAction => async (ctx, relation) => {
  const scope = await loadScope(ctx, relation);
  return action(ctx, relation.target, scope.where);
};

/**
 * A to-many list. When the path key is the relation's sourceKey the list runs at once, and
 * the source is read only if the page comes back empty: a missing source is still 404.
 */
const list: AssociationAction = async (ctx, relation) => {
  const anchor = anchorFromPath(ctx, relation);
  if (anchor === undefined || !ctx.request.params.paginate) return read(listAction)(ctx, relation);
  const result = await listAction(ctx, relation.target, scopeFilter(relation, anchor));
  const empty = result.kind === 'json' && (result.body as { data: unknown[] }).data.length === 0;
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
  const { params } = ctx.request;
  const now = new Date();
  const shape = bindReadShape(target, undefined, undefined, params.appends);
  const { bulk, items } = await bindCreateItems(target, ctx.request.body, now, writeFilter(params));
  if (bulk && !relation.toMany) throw new ApiError('BODY_INVALID', `${relation.name} holds one record; create takes an object`);
  const { dialect } = ctx.database;
  const options = nestedOptions(params, now);
  const rows = await writeTransaction(ctx, target, async (trx) => {
    const scope = await loadScope(ctx, relation, trx);
    const created: Row[] = [];
    if (relation.type === 'hasOne') {
      await trx.updateTable(target.name).set({ [relation.foreignKey.name]: null }).where((eb) => filterToSql(scope.where, eb, dialect, target.name)).execute();
    }
    for (const item of items) {
      if (relation.type === 'hasMany' || relation.type === 'hasOne') item.values.set(relation.foreignKey.name, scope.anchor);
      const row = await writeNew(trx, ctx, target, item, options);
      created.push(row);
      if (relation.type === 'belongsTo') {
        await trx
          .updateTable(relation.source.name)
          .set({ [relation.foreignKey.name]: row[relation.targetKey!.name] })
          .where(relation.source.primaryKey.name, '=', relation.source.primaryKey.type.toDb(scope.sourcePk, dialect))
          .execute();
      } else if (relation.type === 'belongsToMany') {
        await insertLink(trx, ctx, relation, scope.anchor, canonical(relation.targetKey!, row[relation.targetKey!.name], dialect), undefined, now);
      }
    }
    return created;
  });
  return createdResult(ctx, target, shape, rows, bulk);
};

export const ASSOCIATION_ACTIONS = {
  list: async (ctx: ActionContext, relation: Relation) => (relation.toMany ? list(ctx, relation) : item(getAction)(ctx, relation)),
  count: read(countAction),
  get: item(getAction),
  update: item(updateAction),
  destroy: item(destroyAction),
  create,
} satisfies Record<string, AssociationAction>;
