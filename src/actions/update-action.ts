import { ApiError } from '../errors/api-error.js';
import { keyFilter } from '../plan/bind-keys.js';
import { bindReadShape } from '../plan/bind-read-shape.js';
import { bindWriteValues, toDbRow } from '../plan/bind-write-values.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection, Row } from '../schema/collection.js';
import { filterShape } from '../sql/filter-shape.js';
import { filterToSql } from '../sql/filter-sql.js';
import { runShape } from '../sql/query-cache.js';
import { selectRows } from '../sql/select-rows.js';
import { json, type ActionContext, type ActionResult } from './action-context.js';
import { canonical } from './association-scope.js';
import { nestedOptions, writeFilter } from './create-action.js';
import { toItems } from './read-items.js';
import { resolveBelongsTo, writeDependents } from './nested-writes.js';
import { bindTarget, requireTarget } from './target-filter.js';
import { writeTransaction } from './write-transaction.js';

/**
 * update: one key → the updated object (404 when missing); a key array or a filter → an array.
 * The matching keys are read first, so exactly those rows are updated and returned. Nested
 * association values are written in the same transaction.
 */
export async function updateAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE, scopeIsTarget = false): Promise<ActionResult> {
  const { params } = ctx.request;
  const target = bindTarget(ctx.request, collection, scope, scopeIsTarget);
  requireTarget(target);
  const shape = bindReadShape(collection, undefined, undefined, params.appends);
  const now = new Date();
  const bound = await bindWriteValues(collection, ctx.request.body ?? {}, 'update', now, writeFilter(params));
  const options = nestedOptions(params, now);
  const { dialect } = ctx.database;
  const key = collection.key;
  const order = [{ field: key, desc: false }];
  if (target.single && target.keys !== undefined && scope === TRUE_NODE && bound.associations.size === 0 && bound.values.size > 0 && dialect !== 'mysql') {
    // One key, flat values: a single UPDATE … RETURNING, atomic by itself.
    const set = toDbRow(collection, bound.values, dialect);
    const names = Object.keys(set);
    const params: unknown[] = names.map((name) => set[name]);
    const statement = `u|${names.join(',')}|${filterShape(target.where, dialect, params)}`;
    const rows = await writeTransaction(
      ctx,
      collection,
      (db) =>
        runShape<Row>(db, collection, statement, params, () =>
          db
            .updateTable(collection.name)
            .set(set)
            .where((eb) => filterToSql(target.where, eb, dialect, collection.name))
            .returning(collection.visible.map((field) => field.name)),
        ),
      true,
    );
    if (rows[0] === undefined) throw new ApiError('RECORD_NOT_FOUND', `no ${collection.name} record matches`);
    const [item] = await toItems(ctx.database.db, dialect, collection, shape, rows);
    return json({ data: item });
  }
  const rows = await writeTransaction(ctx, collection, async (trx) => {
    const matched = await selectRows(trx, dialect, { collection, where: target.where, select: [key], order });
    if (matched.length === 0) return [];
    const byKeys = keyFilter(collection, matched.map((row) => canonical(key, row[key.name], dialect)));
    await resolveBelongsTo(trx, ctx, collection, bound, options);
    if (bound.values.size > 0) {
      await trx
        .updateTable(collection.name)
        .set(toDbRow(collection, bound.values, dialect))
        .where((eb) => filterToSql(byKeys, eb, dialect, collection.name))
        .execute();
    }
    const updated = await selectRows(trx, dialect, { collection, where: byKeys, select: collection.visible, order });
    if (bound.associations.size > 0) for (const row of updated) await writeDependents(trx, ctx, collection, row, bound.associations, options);
    return updated;
  });
  const data = await toItems(ctx.database.db, dialect, collection, shape, rows);
  if (target.single) {
    if (data[0] === undefined) throw new ApiError('RECORD_NOT_FOUND', `no ${collection.name} record matches`);
    return json({ data: data[0] });
  }
  return json({ data });
}
