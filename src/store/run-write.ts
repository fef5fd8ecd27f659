import type { Collection, Row } from '../schema/collection.js';
import type { Statement } from '../sql/sql-pass.js';
import type { UnitOfWork } from './unit-of-work.js';
import type { WriteAction } from './write-mode.js';

/**
 * Runs a flat write statement (one row at most when `one`) of `unit` in the unit's mode
 * (write-mode.ts): on SQLite's direct unit (the statement, its event and the commit at once;
 * creates and updates only), with PostgreSQL's event fused into the statement (counted, so the
 * store can check that no change went without its event), or as it is.
 */
export async function runWrite(unit: UnitOfWork, collection: Collection, action: WriteAction, statement: Statement<Row>, one = true): Promise<Row[]> {
  const { mode } = unit;
  if (mode.kind === 'sqlite-direct' && action !== 'destroy') {
    const { sql, params } = unit.shapes.text(collection, unit.dialect, statement);
    return mode.run(collection, action === 'create' ? 'created' : 'updated', sql, params);
  }
  if (mode.kind !== 'postgres-fused') return unit.shapes.run<Row>(unit.db, collection, unit.dialect, statement, one);
  const rows = await unit.shapes.run<Row>(unit.db, collection, unit.dialect, (pass) => mode.statement(pass, unit.db, collection, action, statement(pass)), one);
  mode.events += rows.length;
  return rows;
}
