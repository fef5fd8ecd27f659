import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely, type Transaction } from 'kysely';
import type { DynamicDb } from './database.js';
import type { DialectAdapter } from './dialects/dialect-adapter.js';

type Executor = Kysely<DynamicDb> | Transaction<DynamicDb>;

/**
 * A system table column's type: spelled alike everywhere, or a kind the adapter spells.
 * `longText`: text of any length. `integerKey`: a 64-bit key the caller numbers (SQLite: the
 * rowid itself). `serialKey` / `wideSerialKey`: a 32- / 64-bit primary key the database numbers.
 * `{ sql }`: a type the caller took from the adapter.
 */
export type SystemColumnType = 'integer' | 'bigint' | `varchar(${number})` | 'longText' | 'integerKey' | 'serialKey' | 'wideSerialKey' | { readonly sql: string };

export interface SystemColumn {
  readonly name: string;
  readonly type: SystemColumnType;
  readonly primaryKey?: boolean;
  readonly notNull?: boolean;
}

/** A named key over several columns. */
export interface SystemKey {
  readonly name: string;
  readonly columns: readonly string[];
}

/** One of Corral's own tables (not a collection: nobody reads it through the API). */
export interface SystemTable {
  readonly name: string;
  readonly columns: readonly SystemColumn[];
  readonly primaryKey?: SystemKey;
  readonly unique?: readonly SystemKey[];
  /** Made after the table, IF NOT EXISTS (where the dialect refuses that, an error means the index is there). */
  readonly indexes?: readonly SystemKey[];
  /**
   * The table takes the collections' table options (MySQL: InnoDB, utf8mb4, `collation` or
   * the binary default), so its text compares like theirs.
   */
  readonly tableOptions?: boolean;
}

function columnType(type: SystemColumnType, adapter: DialectAdapter): string {
  if (typeof type === 'object') return type.sql;
  switch (type) {
    case 'longText':
      return adapter.ddl.longText;
    case 'integerKey':
      return adapter.ddl.integerKeyType(true);
    case 'serialKey':
    case 'wideSerialKey':
      return adapter.ddl.serialKey(type === 'wideSerialKey').type;
    default:
      return type;
  }
}

function defineColumn(column: SystemColumn, adapter: DialectAdapter) {
  return (c: ColumnDefinitionBuilder): ColumnDefinitionBuilder => {
    if (column.type === 'serialKey' || column.type === 'wideSerialKey') return adapter.ddl.serialKey(column.type === 'wideSerialKey').define(c);
    let defined = c;
    if (column.primaryKey === true) defined = defined.primaryKey();
    if (column.notNull === true) defined = defined.notNull();
    return defined;
  };
}

/**
 * Creates a system table when missing (CREATE TABLE IF NOT EXISTS, then its indexes), with
 * its columns spelled by the adapter. Several nodes may start at once: callers that may race
 * wrap it in `createTableRacing` or retry.
 */
export async function systemTable(db: Executor, adapter: DialectAdapter, table: SystemTable, collation?: string): Promise<void> {
  let builder = db.schema.createTable(table.name).ifNotExists() as CreateTableBuilder<string, string>;
  for (const column of table.columns) builder = builder.addColumn(column.name, sql.raw(columnType(column.type, adapter)), defineColumn(column, adapter));
  if (table.primaryKey !== undefined) builder = builder.addPrimaryKeyConstraint(table.primaryKey.name, [...table.primaryKey.columns]);
  for (const unique of table.unique ?? []) builder = builder.addUniqueConstraint(unique.name, [...unique.columns]);
  const options = table.tableOptions === true ? adapter.ddl.tableOptions(collation) : undefined;
  if (options !== undefined) builder = builder.modifyEnd(options);
  const created = await builder.execute().then(
    () => true,
    (error: unknown) => refusedButThere(db, adapter, table.name, error),
  );
  // A role that may only read (docs/existing-databases.md#read-only-roles): the table an owner made before is used as it is.
  if (!created) return;
  for (const index of table.indexes ?? []) {
    await db.schema.createIndex(index.name).ifNotExists().on(table.name).columns([...index.columns]).execute().catch((error: unknown) => {
      if (!adapter.ddl.indexExistsErrors) throw error;
    });
  }
}

/**
 * Runs a CREATE TABLE IF NOT EXISTS that other nodes (or workers) starting at once on a fresh
 * database may run too: PostgreSQL reports the loser's as a unique violation in its
 * catalogue. The loser waits for the winner's table to appear instead of failing to start.
 */
export async function createTableRacing(db: Kysely<DynamicDb>, table: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    for (let attempt = 0; attempt < CREATE_RACE_ATTEMPTS; attempt++) {
      if (await tableExists(db, table)) return;
      await new Promise((resolve) => setTimeout(resolve, CREATE_RACE_WAIT_MS));
    }
    throw error;
  }
}

/**
 * After a CREATE the database refused: false when the refusal is the role's lack of the right
 * to create and the table is already there (made by an earlier start as its owner); a clear
 * one-line error when it is not; the error itself otherwise.
 */
async function refusedButThere(db: Executor, adapter: DialectAdapter, table: string, error: unknown): Promise<false> {
  if (adapter.classifyError(error).kind !== 'denied') throw error;
  if (await tableExists(db, table)) return false;
  throw new Error(
    `the database role may not create Corral's system table ${table}: start Corral once as a role that may create tables (the database owner), then start it with this role (docs/existing-databases.md#read-only-roles)`,
  );
}

/** How often, and how long apart, a node that lost a CREATE TABLE race looks for the winner's table. */
const CREATE_RACE_ATTEMPTS = 40;
const CREATE_RACE_WAIT_MS = 50;

/** Whether `table` can be read (false on the error a missing table gives). */
async function tableExists(db: Executor, table: string): Promise<boolean> {
  return db
    .selectFrom(table)
    .select(sql`1`.as('one'))
    .limit(1)
    .execute()
    .then(
      () => true,
      () => false,
    );
}
