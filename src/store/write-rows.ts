import type { FilterNode } from '../plan/filter-node.js';
import { selection, toColumns, type Collection, type Field, type Row } from '../schema/collection.js';
import { DIALECT_TRAITS } from '../db/dialects/dialect-traits.js';
import { filterToSql, whereSql } from '../sql/filter-sql.js';
import type { Statement } from '../sql/sql-pass.js';
import { runWrite } from './run-write.js';
import { keyFilter } from '../plan/bind-keys.js';
import { recordCascades } from './cascades.js';
import { canonical, keyFields, rowKey } from './canonical.js';
import { refuseWrite, type StatementAction, type UnitOfWork } from './unit-of-work.js';
import { DirectWriteUnavailable } from './write-fast-path.js';

/**
 * Updates the rows of `collection` matching `where` (inside the caller's scope of `action`:
 * `update`, or `view` for a link that moves a visible target's key column) with the
 * driver values `set`; returns and records the keys it changed. Where the dialect has no
 * RETURNING, the keys are selected (and locked) first in the same transaction.
 */
export async function updateWhere(unit: UnitOfWork, collection: Collection, set: Row, where: FilterNode, action: StatementAction): Promise<unknown[]> {
  // A link moving a key column reads its target under `view`: a view is refused here as well.
  if (collection.view) refuseWrite(collection);
  const scoped = unit.where(collection, where, action);
  const key = collection.key;
  const table = collection.table;
  const condition = (eb: Parameters<typeof filterToSql>[1]) => filterToSql(scoped, eb, unit.dialect, table);
  const columns = toColumns(collection, set);
  let rows: Row[];
  if (DIALECT_TRAITS[unit.dialect].returning) {
    rows = (await unit.db.updateTable(table).set(columns).where(condition).returning(selection(key)).execute()) as Row[];
  } else {
    rows = (await unit.db.selectFrom(table).select(selection(key)).where(condition).forUpdate().execute()) as Row[];
    if (rows.length > 0) await unit.db.updateTable(table).set(columns).where(condition).execute();
  }
  const keys = rows.map((row) => rowKey(collection, row, unit.dialect));
  for (const value of keys) unit.changes.record(collection.name, 'updated', value);
  return keys;
}

/**
 * Deletes the rows of `collection` matching `where` (inside the caller's scope); returns and
 * records their keys. When the unit follows references (the outbox is on), the rows are read
 * (and locked) first so each is recorded as it was, with the rows the database cascades to.
 */
export async function deleteWhere(unit: UnitOfWork, collection: Collection, where: FilterNode, action: 'destroy' | 'through' = 'destroy'): Promise<unknown[]> {
  const scoped = unit.where(collection, where, action);
  const key = collection.key;
  const table = collection.table;
  const mode = unit.mode.kind;
  if (mode === 'postgres-fused') return deleteFused(unit, collection, scoped);
  // SQLite's direct unit runs creates and updates only: a destroy takes the transaction (nothing ran yet).
  if (mode === 'sqlite-direct') throw new DirectWriteUnavailable();
  const condition = (eb: Parameters<typeof filterToSql>[1]) => filterToSql(scoped, eb, unit.dialect, table);
  if (unit.references !== undefined) {
    let query = unit.db.selectFrom(table).select([...new Set([...keyFields(collection), ...collection.visible])].map((field) => selection(field))).where(condition);
    if (DIALECT_TRAITS[unit.dialect].rowLocks) query = query.forUpdate();
    const before = (await query.execute()) as Row[];
    if (before.length === 0) return [];
    await recordCascades(unit, unit.references, collection, before);
    const keys = before.map((row) => rowKey(collection, row, unit.dialect));
    // Without a key of its own (a junction's composite key) the rows read are the rows the condition matches.
    const byKeys = collection.keyed ? keyFilter(collection, keys) : scoped;
    await unit.db.deleteFrom(table).where((eb) => filterToSql(byKeys, eb, unit.dialect, table)).execute();
    for (const row of before) unit.record(collection, 'deleted', row);
    return keys;
  }
  let rows: Row[];
  if (DIALECT_TRAITS[unit.dialect].returning) {
    rows = (await unit.db.deleteFrom(table).where(condition).returning(keyFields(collection).map((field) => selection(field))).execute()) as Row[];
  } else {
    rows = (await unit.db.selectFrom(table).select(keyFields(collection).map((field) => selection(field))).where(condition).forUpdate().execute()) as Row[];
    if (rows.length > 0) await unit.db.deleteFrom(table).where(condition).execute();
  }
  const keys = rows.map((row) => rowKey(collection, row, unit.dialect));
  for (const value of keys) unit.changes.record(collection.name, 'deleted', value);
  return keys;
}

/**
 * One statement, `DELETE … RETURNING` the visible columns with the rows' events fused in
 * (PostgreSQL, write-paths/postgres-fused.ts): the store fuses only a destroy by one key of a collection
 * no reference points at, so no row cascades.
 */
async function deleteFused(unit: UnitOfWork, collection: Collection, scoped: FilterNode): Promise<unknown[]> {
  const key = collection.key;
  const columns = [...new Set([key, ...collection.visible])].map((field) => selection(field));
  const statement: Statement<Row> = (pass) => {
    pass.key += 'd|';
    const where = whereSql(scoped, pass, collection.table);
    return pass.emit ? unit.db.deleteFrom(collection.table).where(where).returning(columns) : undefined;
  };
  const rows = await runWrite(unit, collection, 'destroy', statement, false);
  for (const row of rows) unit.record(collection, 'deleted', row);
  return rows.map((row) => canonical(key, row[key.name], unit.dialect));
}

/**
 * Rows of `collection` matching `where` inside the caller's scope of `action` (`view`: a
 * lookup, which finds nothing the caller cannot see), with `fields` selected.
 * `lock`: in a write unit, the rows stay locked (FOR UPDATE) until it ends, so a
 * read-modify-write of them is atomic (SQLite's write transaction is alone already).
 */
export async function selectWhere(unit: UnitOfWork, collection: Collection, fields: readonly Field[], where: FilterNode, lock = false, action: StatementAction = 'view'): Promise<Row[]> {
  const scoped = unit.where(collection, where, action);
  let query = unit.db
    .selectFrom(collection.table)
    .select([...new Set(fields)].map((field) => selection(field)))
    .where((eb) => filterToSql(scoped, eb, unit.dialect, collection.table));
  if (lock && DIALECT_TRAITS[unit.dialect].rowLocks) query = query.forUpdate();
  return (await query.execute()) as Row[];
}

