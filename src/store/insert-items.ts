import { sql } from 'kysely';
import { toDbRow, type WriteValues } from '../plan/bind-write-values.js';
import { toColumns, type BelongsToMany, type Collection, type Row } from '../schema/collection.js';
import { insertRow } from '../sql/insert-row.js';
import { runWrite } from './run-write.js';
import { bindThroughValues, checkThroughValues } from './through-values.js';
import { refuseWrite, type UnitOfWork } from './unit-of-work.js';
import { checkWrite } from './write-grants.js';
import { checkAttachmentTypes } from './attachment-accept.js';

/**
 * Inserts bound items in the unit's transaction, filling `sort` fields with max + 1; each is
 * recorded as created. Each needs the caller's `create` grant (checkWrite), except a
 * belongsToMany junction row (`through`), which a link writes under the link's checks.
 */
export async function insertItems(unit: UnitOfWork, collection: Collection, items: WriteValues[], action: 'create' | 'through' = 'create'): Promise<Row[]> {
  if (collection.view) refuseWrite(collection, 'create');
  const rows: Row[] = [];
  for (const item of items) {
    if (action === 'create') await checkWrite(unit, collection, 'create', item);
    // A link's junction row skips the grants (checked by the link) but not the field's `accept` list.
    else await checkAttachmentTypes(unit, collection, item.values);
    const { values, sortFields } = item;
    for (const name of sortFields) {
      const top = await unit.db.selectFrom(collection.table).select(sql<unknown>`max(${sql.ref(collection.fields.get(name)?.column ?? name)})`.as('top')).executeTakeFirst();
      values.set(name, Number(top?.top ?? 0) + 1);
    }
    const dbRow = toDbRow(collection, values, unit.dialect);
    const row = await insertRow(unit, collection, dbRow, (statement) => runWrite(unit, collection, 'create', statement));
    unit.record(collection, 'created', row);
    rows.push(row);
  }
  return rows;
}

/**
 * One row of a belongsToMany through collection, with its own fields when given (through
 * values: the caller's `update` grant on the through collection must cover them).
 */
export async function insertLink(unit: UnitOfWork, relation: BelongsToMany, anchor: unknown, targetValue: unknown, extra: unknown, now: Date): Promise<Row> {
  const through = relation.through;
  const bound = await bindThroughValues(relation, extra, 'create', now);
  checkThroughValues(unit, relation, bound);
  const { values } = bound;
  values.set(relation.foreignKey.name, anchor);
  values.set(relation.otherKey.name, targetValue);
  const [row] = await insertItems(unit, through, [{ values, associations: new Map(), sortFields: [], given: [] }], 'through');
  return row!;
}

/**
 * Sets driver values on a row this unit has just created, before commit: a value that can only
 * be computed once the row has its key (an API key's token names its row; only its digest is
 * stored). It is part of the create the caller was granted: nothing else is checked or
 * recorded, and a key the unit did not create is refused.
 */
export async function completeCreated(unit: UnitOfWork, collection: Collection, key: unknown, set: Row): Promise<void> {
  const text = String(key);
  if (!(unit.changes.get(collection.name)?.created.some((change) => String(change.key) === text) ?? false)) {
    throw new Error(`completeCreated: ${collection.name} ${text} was not created by this unit`);
  }
  await unit.db.updateTable(collection.table).set(toColumns(collection, set)).where(collection.key.column, '=', key as never).execute();
}
