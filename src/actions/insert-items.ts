import { sql } from 'kysely';
import { toDbRow, type WriteValues } from '../plan/bind-write-values.js';
import type { Collection, Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { insertRow } from '../sql/insert-row.js';
import type { Executor } from '../sql/select-rows.js';

/** Inserts bound items in the caller's transaction, filling `sort` fields with max + 1. */
export async function insertItems(trx: Executor, dialect: Dialect, collection: Collection, items: WriteValues[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { values, sortFields } of items) {
    for (const name of sortFields) {
      const top = await trx.selectFrom(collection.name).select(sql<unknown>`max(${sql.ref(name)})`.as('top')).executeTakeFirst();
      values.set(name, Number(top?.top ?? 0) + 1);
    }
    rows.push(await insertRow(trx, dialect, collection, toDbRow(collection, values, dialect)));
  }
  return rows;
}
