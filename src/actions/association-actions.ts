import { ApiError } from '../errors/api-error.js';
import { bindWriteValues, toDbRow } from '../plan/bind-write-values.js';
import type { Relation, Row } from '../schema/collection.js';
import { filterToSql } from '../sql/filter-sql.js';
import { insertRow } from '../sql/insert-row.js';
import type { ActionContext, ActionResult } from './action-context.js';
import { canonical, loadScope } from './association-scope.js';
import { countAction } from './count-action.js';
import { bindCreateItems, createdResult, insertItems } from './create-action.js';
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
  const now = new Date();
  const { bulk, items } = await bindCreateItems(target, ctx.request.body, now);
  if (bulk && !relation.toMany) throw new ApiError('BODY_INVALID', `${relation.name} holds one record; create takes an object`);
  const { dialect } = ctx.database;
  const rows = await writeTransaction(ctx, target, async (trx) => {
    const scope = await loadScope(ctx, relation, trx);
    if (relation.type === 'hasMany' || relation.type === 'hasOne') {
      if (relation.type === 'hasOne') {
        await trx.updateTable(target.name).set({ [relation.foreignKey.name]: null }).where((eb) => filterToSql(scope.where, eb, dialect, target.name)).execute();
      }
      for (const { values } of items) values.set(relation.foreignKey.name, scope.anchor);
      return insertItems(trx, dialect, target, items);
    }
    const created = await insertItems(trx, dialect, target, items);
    if (relation.type === 'belongsTo') {
      const targetKey = relation.targetKey!;
      await trx
        .updateTable(relation.source.name)
        .set({ [relation.foreignKey.name]: created[0]![targetKey.name] })
        .where(relation.source.primaryKey.name, '=', relation.source.primaryKey.type.toDb(scope.sourcePk, dialect))
        .execute();
      return created;
    }
    for (const row of created) {
      await insertLink(trx, ctx, relation, scope.anchor, canonical(relation.targetKey!, row[relation.targetKey!.name], dialect), undefined, now);
    }
    return created;
  });
  return createdResult(ctx, target, rows, bulk);
};

/** One row of a belongsToMany through collection, with its own fields when given. */
export async function insertLink(
  trx: Parameters<typeof insertItems>[0],
  ctx: ActionContext,
  relation: Relation,
  anchor: unknown,
  targetValue: unknown,
  extra: unknown,
  now: Date,
): Promise<Row> {
  const through = relation.through!;
  const { values } = await bindWriteValues(through, extra ?? {}, 'create', now);
  values.set(relation.foreignKey.name, anchor);
  values.set(relation.otherKey!.name, targetValue);
  return insertRow(trx, ctx.database.dialect, through, toDbRow(through, values, ctx.database.dialect));
}

export const ASSOCIATION_ACTIONS = {
  list: async (ctx: ActionContext, relation: Relation) => (relation.toMany ? read(listAction)(ctx, relation) : item(getAction)(ctx, relation)),
  count: read(countAction),
  get: item(getAction),
  update: item(updateAction),
  destroy: item(destroyAction),
  create,
} satisfies Record<string, AssociationAction>;
