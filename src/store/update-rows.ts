import { keyFilter } from '../plan/bind-keys.js';
import { toDbRow, type WriteValues } from '../plan/bind-write-values.js';
import type { FilterNode } from '../plan/filter-node.js';
import { selection, toColumns, type Collection, type Row } from '../schema/collection.js';
import { filterToSql, whereSql } from '../sql/filter-sql.js';
import { selectRows } from '../sql/select-rows.js';
import type { Statement } from '../sql/sql-pass.js';
import { keyFields, rowKey } from './canonical.js';
import { resolveBelongsTo, writeDependents, type NestedOptions } from './nested-writes.js';
import { runWrite } from './run-write.js';
import type { UnitOfWork } from './unit-of-work.js';
import { checkWrite } from './write-grants.js';

/**
 * One statement, `UPDATE … WHERE … RETURNING` the visible columns, compiled once per shape:
 * the fast path of an update by one key with flat values (atomic by itself).
 */
export async function updateReturning(unit: UnitOfWork, collection: Collection, bound: WriteValues, where: FilterNode): Promise<Row[]> {
  const { dialect } = unit;
  await checkWrite(unit, collection, 'update', bound);
  const scoped = unit.where(collection, where, 'update');
  const set = toDbRow(collection, bound.values, dialect);
  const names = Object.keys(set);
  const statement: Statement<Row> = (pass) => {
    pass.key += `u|${names.join(',')}|`;
    for (const name of names) pass.params.push(set[name]);
    const where = whereSql(scoped, pass, collection.table);
    if (!pass.emit) return undefined;
    return unit.db
      .updateTable(collection.table)
      .set(toColumns(collection, set))
      .where(where)
      .returning(collection.visible.map((field) => selection(field)));
  };
  // One key of the collection's unique key: at most one row.
  const rows = await runWrite(unit, collection, 'update', statement);
  for (const row of rows) unit.record(collection, 'updated', row);
  return rows;
}

/**
 * The general update: the matching keys are read first (inside the caller's scope), so
 * exactly those rows are updated, recorded and returned; nested association values are
 * written in the same unit.
 */
export async function updateMatched(unit: UnitOfWork, collection: Collection, bound: WriteValues, where: FilterNode, options: NestedOptions): Promise<Row[]> {
  const { dialect } = unit;
  const key = collection.key;
  const order = [{ field: key, desc: false }];
  await checkWrite(unit, collection, 'update', bound);
  const matched = await selectRows(unit, { collection, where: unit.where(collection, where, 'update'), select: [...keyFields(collection)], order }, unit.scopeOf);
  if (matched.length === 0) return [];
  const byKeys = keyFilter(collection, matched.map((row) => rowKey(collection, row, dialect)));
  await resolveBelongsTo(unit, collection, bound, options);
  if (bound.values.size > 0) {
    await unit.db
      .updateTable(collection.table)
      .set(toColumns(collection, toDbRow(collection, bound.values, dialect)))
      .where((eb) => filterToSql(byKeys, eb, dialect, collection.table))
      .execute();
  }
  const updated = await selectRows(unit, { collection, where: byKeys, select: collection.visible, order });
  for (const row of updated) unit.record(collection, 'updated', row);
  if (bound.associations.size > 0) for (const row of updated) await writeDependents(unit, collection, row, bound.associations, options);
  return updated;
}
