import { sql } from 'kysely';
import { adapterOf } from '../db/dialects/adapters.js';
import type { RowEstimate } from '../db/dialects/row-estimates.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { whereSql } from './filter-sql.js';
import type { SqlTarget } from './select-rows.js';
import { SqlPass } from './sql-pass.js';

/**
 * How many rows of `collection` match `where`, counted no further than `cap`: reads at most
 * `cap` rows (`select count(*) from (select 1 … limit cap)`), so a big table costs no more
 * than a small one. `where` is already scoped.
 */
export async function cappedCount({ db, dialect, shapes }: SqlTarget, collection: Collection, where: FilterNode, cap: number): Promise<number> {
  const table = collection.table;
  const [row] = await shapes.run<{ count: unknown }>(db, collection, dialect, (pass) => {
    pass.key += `cc${cap}|`;
    let inner = pass.emit ? db.selectFrom(table).select(sql<number>`1`.as('one')) : undefined;
    if (where !== TRUE_NODE) {
      const condition = whereSql(where, pass, table);
      if (inner !== undefined) inner = inner.where(condition);
    }
    return inner === undefined ? undefined : db.selectFrom(inner.limit(sql.lit(cap)).as('corral_capped')).select(sql<unknown>`count(*)`.as('count'));
    // Filtered, it may read the whole table (few rows match): where reads may be heavy (read-weight.ts).
  }, false, where === TRUE_NODE ? undefined : table);
  return Number(row?.count ?? 0);
}

/**
 * The dialect's estimate of how many rows of `collection` match `where` (already scoped): see
 * `RowEstimates` in db/dialects/row-estimates.ts. Compiled each time (it runs only for tables
 * too big to count, where a compile is nothing beside the estimate).
 */
export async function estimateCount({ db, dialect }: SqlTarget, collection: Collection, where: FilterNode): Promise<RowEstimate> {
  const table = collection.table;
  const condition = where === TRUE_NODE ? undefined : whereSql(where, new SqlPass(dialect, true), table);
  const estimates = adapterOf(dialect).estimates;
  const result = await estimates.statement(table, condition).execute(db);
  return estimates.read(result.rows);
}
