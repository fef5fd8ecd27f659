import { bindWriteValues, toDbRow } from '../plan/bind-write-values.js';
import type { Relation, Row } from '../schema/collection.js';
import { insertRow } from '../sql/insert-row.js';
import type { Executor } from '../sql/select-rows.js';
import type { ActionContext } from './action-context.js';

/** One row of a belongsToMany through collection, with its own fields when given. */
export async function insertLink(
  trx: Executor,
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
