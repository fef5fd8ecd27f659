import type { Collection, Row } from '../schema/collection.js';
import type { FusedAction } from '../sql/fused-write.js';
import type { Statement } from '../sql/sql-pass.js';
import type { UnitOfWork } from './unit-of-work.js';

/**
 * Runs a flat write statement (one row at most when `one`) of `unit` the way the store chose
 * for its unit: on SQLite's one-statement unit (the statement, its event and the commit at
 * once; creates and updates only), with PostgreSQL's event fused into the statement (counted,
 * so the store can check that no change went without its event), or as it is.
 */
export async function runWrite(unit: UnitOfWork, collection: Collection, action: FusedAction, statement: Statement<Row>, one = true): Promise<Row[]> {
  const { oneWrite, fused } = unit;
  if (oneWrite !== undefined && action !== 'destroy') {
    const { sql, params } = unit.shapes.text(collection, unit.dialect, statement);
    return oneWrite(collection, action === 'create' ? 'created' : 'updated', sql, params);
  }
  if (fused === undefined) return unit.shapes.run<Row>(unit.db, collection, unit.dialect, statement, one);
  const rows = await unit.shapes.run<Row>(unit.db, collection, unit.dialect, (pass) => fused.statement(pass, unit.db, collection, action, statement(pass)), one);
  fused.events += rows.length;
  return rows;
}
