import { sql } from 'kysely';
import type { Dialect } from '../schema/types.js';
import type { Executor } from '../sql/select-rows.js';
import { CHANGES_COUNTER_TABLE, CHANGES_TABLE, COUNTER_NAME } from './changes-table.js';

/** The channel PostgreSQL nodes LISTEN on; a commit that wrote events notifies it. */
export const CHANGES_CHANNEL = 'corral_changes';

/** One outbox row before it has an id. */
export interface OutboxRow {
  collection: string;
  action: string;
  /** JSON text of the key. */
  key: string;
  /** JSON text of the row. */
  data: string;
}

/**
 * Reserves ids for `rows` on the counter row (which stays locked until the transaction
 * ends, so transactions hand out ids in commit order) and inserts the rows, in as few
 * statements as the dialect allows: PostgreSQL one (the counter update is a CTE and the
 * NOTIFY, sent only if the transaction commits, a joined one-row subquery), MySQL two
 * (`LAST_INSERT_ID(expr)` carries the new counter into the insert), SQLite two (RETURNING).
 * Values are parameters and the row count the only literal, so the texts repeat and prepared
 * statements are reused.
 */
export async function insertOutboxRows(db: Executor, dialect: Dialect, rows: readonly OutboxRow[], at: number): Promise<void> {
  const n = rows.length;
  if (n === 0) return;
  switch (dialect) {
    case 'postgres': {
      const values = sql.join(rows.map((row, index) => sql`(${sql.lit(index + 1)}, ${row.collection}, ${row.action}, ${row.key}, ${row.data})`));
      await sql`with c as (update ${sql.table(CHANGES_COUNTER_TABLE)} set last = last + ${sql.lit(n)} where name = ${COUNTER_NAME} returning last)
insert into ${sql.table(CHANGES_TABLE)} (id, collection, action, key, data, at)
select c.last - ${sql.lit(n)} + v.ord, v.collection, v.action, v.key, v.data, cast(${at} as bigint)
from c cross join (select pg_notify(${CHANGES_CHANNEL}, '')) as notified
cross join (values ${values}) as v(ord, collection, action, key, data)`.execute(db);
      return;
    }
    case 'mysql': {
      await sql`update ${sql.table(CHANGES_COUNTER_TABLE)} set last = last_insert_id(last + ${sql.lit(n)}) where name = ${COUNTER_NAME}`.execute(db);
      const values = sql.join(rows.map((row, index) => sql`(last_insert_id() - ${sql.lit(n - 1 - index)}, ${row.collection}, ${row.action}, ${row.key}, ${row.data}, ${at})`));
      await sql`insert into ${sql.table(CHANGES_TABLE)} (id, collection, action, ${sql.ref('key')}, data, at) values ${values}`.execute(db);
      return;
    }
    case 'sqlite': {
      const result = await sql<{ last: unknown }>`update ${sql.table(CHANGES_COUNTER_TABLE)} set last = last + ${sql.lit(n)} where name = ${COUNTER_NAME} returning last`.execute(db);
      const row = result.rows[0];
      if (row === undefined) throw new Error(`${CHANGES_COUNTER_TABLE} has no counter row`);
      const first = Number(row.last) - n + 1;
      await db
        .insertInto(CHANGES_TABLE)
        .values(rows.map((entry, index) => ({ id: first + index, ...entry, at })))
        .execute();
      return;
    }
  }
}
