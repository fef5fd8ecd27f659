import { ApiError } from '../errors/api-error.js';
import { keyFilter } from '../plan/bind-keys.js';
import { bindWriteValues, toDbRow } from '../plan/bind-write-values.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { filterToSql } from '../sql/filter-sql.js';
import { selectRows } from '../sql/select-rows.js';
import { json, type ActionContext, type ActionResult } from './action-context.js';
import { bindTarget, requireTarget } from './target-filter.js';
import { writeTransaction } from './write-transaction.js';

/**
 * update: one key → the updated object (404 when missing); a key array or a filter → an array.
 * The matching keys are read first, so exactly those rows are updated and returned.
 */
export async function updateAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE, scopeIsTarget = false): Promise<ActionResult> {
  const target = bindTarget(ctx.request, collection, scope, scopeIsTarget);
  requireTarget(target);
  const { values } = await bindWriteValues(collection, ctx.request.body ?? {}, 'update', new Date());
  const { dialect } = ctx.database;
  const key = collection.key;
  const rows = await writeTransaction(ctx, collection, async (trx) => {
    const matched = await selectRows(trx, dialect, { collection, where: target.where, select: [key], order: [{ field: key, desc: false }] });
    if (matched.length === 0) return [];
    const keys = matched.map((row) => key.type.fromDb(row[key.name], dialect, key.def)).map((wire) => {
      const parsed = key.type.parse(wire, key.def);
      return parsed.ok ? parsed.value : wire;
    });
    const byKeys = keyFilter(collection, keys);
    if (values.size > 0) {
      await trx
        .updateTable(collection.name)
        .set(toDbRow(collection, values, dialect))
        .where((eb) => filterToSql(byKeys, eb, dialect, collection.name))
        .execute();
    }
    return selectRows(trx, dialect, { collection, where: byKeys, select: collection.visible, order: [{ field: key, desc: false }] });
  });
  const data = rows.map((row) => collection.decode(row, collection.visible));
  if (target.single) {
    if (data[0] === undefined) throw new ApiError('RECORD_NOT_FOUND', `no ${collection.name} record matches`);
    return json({ data: data[0] });
  }
  return json({ data });
}
