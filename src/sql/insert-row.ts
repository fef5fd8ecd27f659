import { sql } from 'kysely';
import { selection, toColumns, type Collection, type Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { DIALECT_TRAITS } from '../db/dialects/dialect-traits.js';
import type { Executor, SqlTarget } from './select-rows.js';
import type { Statement } from './sql-pass.js';

/**
 * Inserts one row and reads it back. PostgreSQL and SQLite use RETURNING; MySQL has none,
 * so the row is read back by its primary key (the insert id for auto-increment keys).
 */
export async function insertRow(
  { db, dialect, shapes }: SqlTarget,
  collection: Collection,
  row: Record<string, unknown>,
  /** How the `INSERT … RETURNING` runs (the store's unit passes its own way, see run-write.ts). */
  run: (statement: Statement<Row>) => Promise<Row[]> = (statement) => shapes.run<Row>(db, collection, dialect, statement, true),
): Promise<Row> {
  if (DIALECT_TRAITS[dialect].returning) {
    const [inserted] = await run(insertReturning(db, collection, row));
    if (inserted === undefined) throw new Error(`insert into ${collection.name} returned no row`);
    const pk = collection.primaryKey;
    // An explicit id does not move a PostgreSQL identity; move it past the largest id, or the
    // next automatic id would collide. (SQLite and MySQL do this themselves.)
    if (DIALECT_TRAITS[dialect].bumpIdentity && pk.def.autoIncrement === true && row[pk.name] !== undefined) {
      // pg_get_serial_sequence reads its first argument as SQL text (folded to lower case unless quoted); the column as a name.
      const table = collection.table.split('.').map((part) => `"${part.replaceAll('"', '""')}"`).join('.');
      await sql`select setval(pg_get_serial_sequence(${table}, ${pk.column}), (select max(${sql.ref(pk.column)}) from ${sql.table(collection.table)}))`.execute(db);
    }
    return inserted;
  }
  const result = await db.insertInto(collection.table).values(toColumns(collection, row)).executeTakeFirstOrThrow();
  const pk = collection.primaryKey;
  const key = pk.def.autoIncrement === true && row[pk.name] === undefined ? String(result.insertId) : row[pk.name];
  let query = db.selectFrom(collection.table).select(visibleColumns(collection).names).where(pk.column, '=', key);
  // Without a key field of its own (a junction with a composite key), every value written finds the row.
  if (!collection.keyed || collection.compositeKey !== undefined) for (const [name, value] of Object.entries(row)) if (name !== pk.name) query = query.where(collection.fields.get(name)?.column ?? name, value === null ? 'is' : '=', value);
  return (await query.executeTakeFirstOrThrow()) as Row;
}

const VISIBLE = new WeakMap<Collection, { names: string[]; key: string }>();

/** The visible column names of a compiled collection and their shape-key text, listed once. */
function visibleColumns(collection: Collection): { names: string[]; key: string } {
  let entry = VISIBLE.get(collection);
  if (entry === undefined) {
    const names = collection.visible.map((field) => selection(field));
    entry = { names, key: names.join(',') };
    VISIBLE.set(collection, entry);
  }
  return entry;
}

/** `INSERT … RETURNING` the visible columns of one row, as a statement of the shape cache. */
function insertReturning(db: Executor, collection: Collection, row: Record<string, unknown>): Statement<Row> {
  const names = Object.keys(row);
  const columns = visibleColumns(collection);
  return (pass) => {
    pass.key += `i|${names.join(',')}|${columns.key}`;
    for (const name of names) pass.params.push(row[name]);
    return pass.emit ? db.insertInto(collection.table).values(toColumns(collection, row)).returning(columns.names) : undefined;
  };
}
