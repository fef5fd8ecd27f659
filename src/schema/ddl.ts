import { sql, type ColumnDefinitionBuilder, type Transaction } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import { FIELD_TYPES } from './field-types/index.js';
import { indexName } from './index-name.js';
import type { CollectionDef, Dialect, FieldDef } from './types.js';

type Trx = Transaction<DynamicDb>;

/** Table options on MySQL/MariaDB; the collation compares strings by code point without padding. */
export const mysqlTableOptions = (collation = 'utf8mb4_bin') => sql`engine = InnoDB default charset = utf8mb4 collate = ${sql.raw(collation)}`;

/** Types whose columns cannot carry a literal DEFAULT on MySQL. */
const NO_MYSQL_DEFAULT = new Set(['text', 'json', 'array']);

function columnType(field: FieldDef, dialect: Dialect): string {
  // SQLite only aliases the rowid (and so autoincrements) for exactly `integer primary key`.
  if (dialect === 'sqlite' && field.autoIncrement === true) return 'integer';
  if (field.autoIncrement === true) return field.type === 'bigInt' ? 'bigint' : 'integer';
  return FIELD_TYPES[field.type].columnType(field, dialect);
}

/** The DEFAULT literal for a column, where the dialect allows one. */
function defaultLiteral(field: FieldDef, dialect: Dialect): unknown {
  if (field.defaultValue === undefined || field.defaultValue === null) return undefined;
  if (dialect === 'mysql' && NO_MYSQL_DEFAULT.has(field.type)) return undefined;
  const type = FIELD_TYPES[field.type];
  const parsed = type.parse(field.defaultValue, field);
  if (!parsed.ok) return undefined;
  const value = type.toDb(parsed.value, dialect);
  return typeof value === 'bigint' ? value.toString() : value;
}

const ON_DELETE_SQL = { 'SET NULL': 'set null', CASCADE: 'cascade', RESTRICT: 'restrict' } as const;

function defineColumn(field: FieldDef, dialect: Dialect) {
  return (column: ColumnDefinitionBuilder): ColumnDefinitionBuilder => {
    let c = column;
    // SQLite cannot add a constraint later, so its foreign keys are declared with the column.
    if (dialect === 'sqlite' && field.references !== undefined) {
      c = c.references(`${field.references.collection}.${field.references.key}`).onDelete(ON_DELETE_SQL[field.references.onDelete]);
    }
    if (field.primaryKey === true) c = c.primaryKey();
    if (field.autoIncrement === true) {
      c = dialect === 'postgres' ? c.generatedByDefaultAsIdentity() : c.autoIncrement();
    }
    if (!field.allowNull && field.primaryKey !== true) c = c.notNull();
    const fallback = defaultLiteral(field, dialect);
    if (fallback !== undefined) c = c.defaultTo(fallback);
    return c;
  };
}

/**
 * Creates the table and its indexes. On PostgreSQL and MySQL the caller adds foreign keys
 * afterwards with `addForeignKey`, once every table they point at exists.
 */
export async function createTable(trx: Trx, def: CollectionDef, dialect: Dialect, mysqlCollation?: string): Promise<void> {
  await createBareTable(trx, def, def.name, dialect, mysqlCollation);
  await createAllIndexes(trx, def);
}

async function createBareTable(trx: Trx, def: CollectionDef, table: string, dialect: Dialect, mysqlCollation?: string): Promise<void> {
  let builder = trx.schema.createTable(table);
  for (const field of def.fields) {
    builder = builder.addColumn(field.name, sql.raw(columnType(field, dialect)), defineColumn(field, dialect));
  }
  if (dialect === 'mysql') builder = builder.modifyEnd(mysqlTableOptions(mysqlCollation));
  await builder.execute();
}

async function createAllIndexes(trx: Trx, def: CollectionDef): Promise<void> {
  for (const field of def.fields) await createIndexes(trx, def.name, field);
  for (const columns of def.uniques ?? []) {
    await trx.schema.createIndex(indexName('uq', def.name, columns.join('_'))).on(def.name).columns(columns).unique().execute();
  }
}

/** PostgreSQL and MySQL: the foreign key constraint of a relation's key column. */
export async function addForeignKey(trx: Trx, table: string, field: FieldDef, dialect: Dialect): Promise<void> {
  const ref = field.references;
  if (dialect === 'sqlite' || ref === undefined) return;
  await trx.schema
    .alterTable(table)
    .addForeignKeyConstraint(indexName('fk', table, field.name), [field.name], ref.collection, [ref.key], (c) => c.onDelete(ON_DELETE_SQL[ref.onDelete]))
    .execute();
}

/**
 * SQLite cannot drop a column that takes part in a foreign key: build the table anew from
 * its next definition, copy the rows, and swap it in. Runs with foreign keys off (see
 * SchemaManager), which is what keeps the old table's drop from cascading.
 */
export async function rebuildSqliteTable(trx: Trx, next: CollectionDef): Promise<void> {
  const temp = `${next.name}__rebuild`;
  await createBareTable(trx, next, temp, 'sqlite');
  const columns = sql.join(next.fields.map((field) => sql.ref(field.name)));
  await sql`insert into ${sql.table(temp)} (${columns}) select ${columns} from ${sql.table(next.name)}`.execute(trx);
  await trx.schema.dropTable(next.name).execute();
  await sql`alter table ${sql.table(temp)} rename to ${sql.table(next.name)}`.execute(trx);
  await createAllIndexes(trx, next);
}

export async function createIndexes(trx: Trx, table: string, field: FieldDef): Promise<void> {
  if (field.unique) await trx.schema.createIndex(indexName('uq', table, field.name)).on(table).column(field.name).unique().execute();
  if (field.index && !field.unique) await trx.schema.createIndex(indexName('ix', table, field.name)).on(table).column(field.name).execute();
}

export async function dropIndex(trx: Trx, table: string, kind: 'uq' | 'ix', column: string, dialect: Dialect): Promise<void> {
  let builder = trx.schema.dropIndex(indexName(kind, table, column));
  if (dialect === 'mysql') builder = builder.on(table);
  await builder.execute();
}

export async function dropTable(trx: Trx, table: string): Promise<void> {
  await trx.schema.dropTable(table).ifExists().execute();
}

/**
 * Adds a column to a table that may hold rows. Existing rows get the default value, so a
 * NOT NULL column needs one (checked by the caller).
 */
export async function addColumn(trx: Trx, table: string, field: FieldDef, dialect: Dialect): Promise<void> {
  await trx.schema.alterTable(table).addColumn(field.name, sql.raw(columnType(field, dialect)), defineColumn(field, dialect)).execute();
  if (field.defaultValue !== undefined && field.defaultValue !== null && defaultLiteral(field, dialect) === undefined) {
    const type = FIELD_TYPES[field.type];
    const parsed = type.parse(field.defaultValue, field);
    if (parsed.ok) await trx.updateTable(table).set({ [field.name]: type.toDb(parsed.value, dialect) }).execute();
  }
  await createIndexes(trx, table, field);
}

export async function dropColumn(trx: Trx, table: string, field: FieldDef, dialect: Dialect): Promise<void> {
  if (field.references !== undefined && dialect === 'mysql') {
    await sql`alter table ${sql.table(table)} drop foreign key ${sql.ref(indexName('fk', table, field.name))}`.execute(trx);
  }
  // SQLite refuses to drop an indexed column; every dialect drops the index first alike.
  if (field.unique) await dropIndex(trx, table, 'uq', field.name, dialect);
  if (field.index && !field.unique) await dropIndex(trx, table, 'ix', field.name, dialect);
  await trx.schema.alterTable(table).dropColumn(field.name).execute();
}

export async function renameColumn(trx: Trx, table: string, from: FieldDef, to: FieldDef, dialect: Dialect): Promise<void> {
  if (from.unique) await dropIndex(trx, table, 'uq', from.name, dialect);
  if (from.index && !from.unique) await dropIndex(trx, table, 'ix', from.name, dialect);
  await trx.schema.alterTable(table).renameColumn(from.name, to.name).execute();
  await createIndexes(trx, table, { ...to, unique: from.unique, index: from.index });
}

/**
 * Changes a column's type or nullability in place (the caller checked that no value is
 * lost). SQLite cannot alter a column: it rebuilds the table from the next definition.
 */
/**
 * Restates a column's DEFAULT after its field's defaultValue changed (or went): a stale
 * database default would still fill rows the client leaves the field out of. SQLite cannot
 * alter a default, so its table is rebuilt (rows and indexes kept).
 */
export async function setColumnDefault(trx: Trx, nextDef: CollectionDef, next: FieldDef, dialect: Dialect): Promise<void> {
  if (dialect === 'sqlite') return rebuildSqliteTable(trx, nextDef);
  if (dialect === 'mysql' && NO_MYSQL_DEFAULT.has(next.type)) return;
  const fallback = defaultLiteral(next, dialect);
  await trx.schema.alterTable(nextDef.name).alterColumn(next.name, (c) => (fallback === undefined ? c.dropDefault() : c.setDefault(fallback))).execute();
}

export async function alterColumn(trx: Trx, nextDef: CollectionDef, current: FieldDef, next: FieldDef, dialect: Dialect): Promise<void> {
  const table = nextDef.name;
  if (dialect === 'sqlite') return rebuildSqliteTable(trx, nextDef);
  if (dialect === 'mysql') {
    // MODIFY restates the column; the table's primary key stays, so it is not declared again.
    const restated: FieldDef = { ...next, primaryKey: false, allowNull: next.allowNull && next.primaryKey !== true };
    await trx.schema.alterTable(table).modifyColumn(next.name, sql.raw(columnType(next, dialect)), defineColumn(restated, dialect)).execute();
    return;
  }
  if (columnType(current, dialect) !== columnType(next, dialect)) {
    await trx.schema.alterTable(table).alterColumn(next.name, (c) => c.setDataType(sql.raw(columnType(next, dialect)))).execute();
  }
  if (current.allowNull !== next.allowNull) {
    await trx.schema.alterTable(table).alterColumn(next.name, (c) => (next.allowNull ? c.dropNotNull() : c.setNotNull())).execute();
  }
}
