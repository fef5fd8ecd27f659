import { sql, type ColumnDefinitionBuilder, type Transaction } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { ColumnSpec, DialectAdapter } from '../db/dialects/dialect-adapter.js';
import { FIELD_TYPES } from './field-types/index.js';
import { indexName } from './index-name.js';
import { tableOf, type TableOfCollection } from './table-of.js';
import type { CollectionDef, FieldDef, IndexDef } from './types.js';

type Trx = Transaction<DynamicDb>;

/** A column's type on the adapter's dialect. */
export function columnType(field: FieldDef, adapter: DialectAdapter): string {
  if (field.autoIncrement === true) return adapter.ddl.integerKeyType(field.type === 'bigInt');
  return spell(FIELD_TYPES[field.type].column(field), adapter);
}

/** One storage kind spelled by the adapter (the cast only pairs a spec with its own kind's entry). */
export const spell = (spec: ColumnSpec, adapter: DialectAdapter): string =>
  (adapter.ddl.columnTypes[spec.kind] as (spec: ColumnSpec) => string)(spec);

/** The DEFAULT literal for a column, where the dialect allows one. */
function defaultLiteral(field: FieldDef, adapter: DialectAdapter): unknown {
  if (field.defaultValue === undefined || field.defaultValue === null) return undefined;
  if (!adapter.ddl.literalDefault(field.type)) return undefined;
  const type = FIELD_TYPES[field.type];
  const parsed = type.parse(field.defaultValue, field);
  if (!parsed.ok) return undefined;
  const value = type.toDb(parsed.value, adapter.name);
  return typeof value === 'bigint' ? value.toString() : value;
}

const ON_DELETE_SQL = { 'SET NULL': 'set null', CASCADE: 'cascade', RESTRICT: 'restrict' } as const;

function defineColumn(field: FieldDef, adapter: DialectAdapter, tables: TableOfCollection) {
  return (column: ColumnDefinitionBuilder): ColumnDefinitionBuilder => {
    let c = column;
    // Where a constraint cannot be added later (SQLite), foreign keys are declared with the column.
    if (adapter.ddl.foreignKeys === 'inline' && field.references !== undefined) {
      c = c.references(`${tables(field.references.collection)}.${field.references.key}`).onDelete(ON_DELETE_SQL[field.references.onDelete]);
    }
    if (field.primaryKey === true) c = c.primaryKey();
    if (field.autoIncrement === true) c = adapter.ddl.identity(c);
    if (!field.allowNull && field.primaryKey !== true) c = c.notNull();
    const fallback = defaultLiteral(field, adapter);
    if (fallback !== undefined) c = c.defaultTo(fallback);
    return c;
  };
}

/**
 * Creates the table and its per-field indexes. Where foreign keys are constraints, the caller
 * adds them afterwards with `addForeignKey`, once every table they point at exists, and then
 * the collection's `indexes` (`createCollectionIndex`): MySQL would otherwise take one of
 * those for a foreign key and refuse to drop it later.
 */
export async function createTable(trx: Trx, def: CollectionDef, adapter: DialectAdapter, tables: TableOfCollection, collation?: string, made?: () => void): Promise<void> {
  await createBareTable(trx, def, tableOf(def), adapter, tables, collation);
  // From here the table is this step's own: a failure after it may drop it (schema-work.ts).
  made?.();
  await createFieldIndexes(trx, def);
}

async function createBareTable(trx: Trx, def: CollectionDef, table: string, adapter: DialectAdapter, tables: TableOfCollection, collation?: string): Promise<void> {
  let builder = trx.schema.createTable(table);
  for (const field of def.fields) {
    builder = builder.addColumn(field.name, sql.raw(columnType(field, adapter)), defineColumn(field, adapter, tables));
  }
  const options = adapter.ddl.tableOptions(collation);
  if (options !== undefined) builder = builder.modifyEnd(options);
  await builder.execute();
}

async function createFieldIndexes(trx: Trx, def: CollectionDef): Promise<void> {
  const table = tableOf(def);
  for (const field of def.fields) await createIndexes(trx, table, field);
  for (const columns of def.uniques ?? []) {
    await trx.schema.createIndex(indexName('uq', table, columns.join('_'))).on(table).columns(columns).unique().execute();
  }
}

async function createAllIndexes(trx: Trx, def: CollectionDef): Promise<void> {
  await createFieldIndexes(trx, def);
  for (const index of def.indexes ?? []) await createCollectionIndex(trx, tableOf(def), index);
}

/** One entry of a collection's `indexes` (collection-indexes.ts). */
export async function createCollectionIndex(trx: Trx, table: string, index: IndexDef): Promise<void> {
  let builder = trx.schema.createIndex(index.name).on(table).columns(index.fields);
  if (index.unique) builder = builder.unique();
  await builder.execute();
}

export async function dropCollectionIndex(trx: Trx, table: string, index: IndexDef, adapter: DialectAdapter): Promise<void> {
  let builder = trx.schema.dropIndex(index.name);
  if (adapter.ddl.dropIndexOnTable) builder = builder.on(table);
  await builder.execute();
}

/** The foreign key constraint of a relation's key column, where keys are constraints. */
export async function addForeignKey(trx: Trx, table: string, field: FieldDef, adapter: DialectAdapter, tables: TableOfCollection): Promise<void> {
  const ref = field.references;
  if (adapter.ddl.foreignKeys === 'inline' || ref === undefined) return;
  await trx.schema
    .alterTable(table)
    .addForeignKeyConstraint(indexName('fk', table, field.name), [field.name], tables(ref.collection), [ref.key], (c) => c.onDelete(ON_DELETE_SQL[ref.onDelete]))
    .execute();
}

/**
 * Where a column cannot be altered, or one taking part in a foreign key dropped (SQLite):
 * build the table anew from its next definition, copy the rows, and swap it in. Runs with
 * foreign keys off (the adapter's `schemaTransaction`), which is what keeps the old table's
 * drop from cascading.
 */
export async function rebuildTable(trx: Trx, next: CollectionDef, adapter: DialectAdapter, tables: TableOfCollection): Promise<void> {
  const table = tableOf(next);
  const temp = `${table}__rebuild`;
  await createBareTable(trx, next, temp, adapter, tables);
  const columns = sql.join(next.fields.map((field) => sql.ref(field.name)));
  await sql`insert into ${sql.table(temp)} (${columns}) select ${columns} from ${sql.table(table)}`.execute(trx);
  await trx.schema.dropTable(table).execute();
  await sql`alter table ${sql.table(temp)} rename to ${sql.table(table)}`.execute(trx);
  await createAllIndexes(trx, next);
}

export async function createIndexes(trx: Trx, table: string, field: FieldDef): Promise<void> {
  if (field.unique) await trx.schema.createIndex(indexName('uq', table, field.name)).on(table).column(field.name).unique().execute();
  if (field.index && !field.unique) await trx.schema.createIndex(indexName('ix', table, field.name)).on(table).column(field.name).execute();
}

export async function dropIndex(trx: Trx, table: string, kind: 'uq' | 'ix', column: string, adapter: DialectAdapter): Promise<void> {
  let builder = trx.schema.dropIndex(indexName(kind, table, column));
  if (adapter.ddl.dropIndexOnTable) builder = builder.on(table);
  await builder.execute();
}

export async function dropTable(trx: Trx, table: string): Promise<void> {
  await trx.schema.dropTable(table).ifExists().execute();
}

/**
 * Adds a column to a table that may hold rows. Existing rows get the default value, so a
 * NOT NULL column needs one (checked by the caller).
 */
export async function addColumn(trx: Trx, table: string, field: FieldDef, adapter: DialectAdapter, tables: TableOfCollection): Promise<void> {
  await trx.schema.alterTable(table).addColumn(field.name, sql.raw(columnType(field, adapter)), defineColumn(field, adapter, tables)).execute();
  if (field.defaultValue !== undefined && field.defaultValue !== null && defaultLiteral(field, adapter) === undefined) {
    const type = FIELD_TYPES[field.type];
    const parsed = type.parse(field.defaultValue, field);
    if (parsed.ok) await trx.updateTable(table).set({ [field.name]: type.toDb(parsed.value, adapter.name) }).execute();
  }
  await createIndexes(trx, table, field);
}

export async function dropColumn(trx: Trx, table: string, field: FieldDef, adapter: DialectAdapter): Promise<void> {
  if (field.references !== undefined && adapter.ddl.dropForeignKeyFirst) {
    await sql`alter table ${sql.table(table)} drop foreign key ${sql.ref(indexName('fk', table, field.name))}`.execute(trx);
  }
  // SQLite refuses to drop an indexed column; every dialect drops the index first alike.
  if (field.unique) await dropIndex(trx, table, 'uq', field.name, adapter);
  if (field.index && !field.unique) await dropIndex(trx, table, 'ix', field.name, adapter);
  await trx.schema.alterTable(table).dropColumn(field.name).execute();
}

export async function renameColumn(trx: Trx, table: string, from: FieldDef, to: FieldDef, adapter: DialectAdapter): Promise<void> {
  if (from.unique) await dropIndex(trx, table, 'uq', from.name, adapter);
  if (from.index && !from.unique) await dropIndex(trx, table, 'ix', from.name, adapter);
  await trx.schema.alterTable(table).renameColumn(from.name, to.name).execute();
  await createIndexes(trx, table, { ...to, unique: from.unique, index: from.index });
}

/**
 * Restates a column's DEFAULT after its field's defaultValue changed (or went): a stale
 * database default would still fill rows the client leaves the field out of. Where no
 * column can be altered (SQLite), the table is rebuilt (rows and indexes kept).
 */
export async function setColumnDefault(trx: Trx, nextDef: CollectionDef, next: FieldDef, adapter: DialectAdapter, tables: TableOfCollection): Promise<void> {
  if (adapter.ddl.columnChange === 'rebuildTable') return rebuildTable(trx, nextDef, adapter, tables);
  if (!adapter.ddl.literalDefault(next.type)) return;
  const fallback = defaultLiteral(next, adapter);
  await trx.schema.alterTable(tableOf(nextDef)).alterColumn(next.name, (c) => (fallback === undefined ? c.dropDefault() : c.setDefault(fallback))).execute();
}

/**
 * Changes a column's type or nullability in place (the caller checked that no value is
 * lost), in the adapter's way (`columnChange`).
 */
export async function alterColumn(trx: Trx, nextDef: CollectionDef, current: FieldDef, next: FieldDef, adapter: DialectAdapter, tables: TableOfCollection): Promise<void> {
  const table = tableOf(nextDef);
  switch (adapter.ddl.columnChange) {
    case 'rebuildTable':
      return rebuildTable(trx, nextDef, adapter, tables);
    case 'modifyColumn': {
      // MODIFY restates the column; the table's primary key stays, so it is not declared again.
      const restated: FieldDef = { ...next, primaryKey: false, allowNull: next.allowNull && next.primaryKey !== true };
      await trx.schema.alterTable(table).modifyColumn(next.name, sql.raw(columnType(next, adapter)), defineColumn(restated, adapter, tables)).execute();
      return;
    }
    case 'alterColumn':
      break;
  }
  if (columnType(current, adapter) !== columnType(next, adapter)) {
    await trx.schema.alterTable(table).alterColumn(next.name, (c) => c.setDataType(sql.raw(columnType(next, adapter)))).execute();
  }
  if (current.allowNull !== next.allowNull) {
    await trx.schema.alterTable(table).alterColumn(next.name, (c) => (next.allowNull ? c.dropNotNull() : c.setNotNull())).execute();
  }
}
