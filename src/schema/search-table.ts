import { sql, type Kysely } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import { rowTokens } from '../plan/search-tokens.js';
import type { CollectionDef, Dialect } from './types.js';

/**
 * The token table of `$search`: one row per (collection, row key, distinct token of the row's
 * searchable fields). Integer keys go to `int_key`, other keys to `text_key`, so the lookup
 * compares like with like and the collection's key index serves the join. Tokens compare
 * in binary order on every dialect, so a prefix is a range on the (collection, token) index.
 */
export const SEARCH_TABLE = 'corral_search_tokens';
/** Longest text key indexed (string keys are at most this long). */
export const MAX_TEXT_KEY = 255;
/** Rows read per batch when a collection is reindexed. */
export const REINDEX_BATCH = 1000;

type Executor = Kysely<DynamicDb>;

const TOKEN_TYPE: Record<Dialect, string> = {
  sqlite: 'text',
  postgres: 'varchar(64) collate "C"',
  mysql: 'varchar(64) character set utf8mb4 collate utf8mb4_bin',
};

/**
 * `mysqlCollation` is the collections' collation: a text key compares with the collection's
 * key column only when both have it (MySQL refuses `=` across two implicit collations).
 */
export async function ensureSearchTable(db: Executor, dialect: Dialect, mysqlCollation = 'utf8mb4_bin'): Promise<void> {
  const textKey = dialect === 'mysql' ? sql.raw(`varchar(${MAX_TEXT_KEY}) character set utf8mb4 collate ${mysqlCollation}`) : sql.raw(`varchar(${MAX_TEXT_KEY})`);
  await db.schema
    .createTable(SEARCH_TABLE)
    .ifNotExists()
    .addColumn('collection', 'varchar(63)', (c) => c.notNull())
    .addColumn('token', sql.raw(TOKEN_TYPE[dialect]), (c) => c.notNull())
    .addColumn('int_key', 'bigint')
    .addColumn('text_key', textKey)
    .execute();
  if (dialect === 'mysql') {
    // A table made by an earlier version took the database's default collation for text_key.
    const column = await sql<{ collation: string | null }>`select collation_name as ${sql.id('collation')} from information_schema.columns where table_schema = database() and table_name = ${SEARCH_TABLE} and column_name = 'text_key'`.execute(db);
    if (column.rows[0]?.collation !== mysqlCollation) await sql`alter table ${sql.table(SEARCH_TABLE)} modify ${sql.ref('text_key')} ${textKey}`.execute(db);
  }
  // (collection, token, key): the rows of a word, one range. (collection, key, token): a
  // row's tokens, for deleting them and for testing one row for a word (a probe).
  for (const [name, columns] of [
    ['corral_search_int', ['collection', 'token', 'int_key']],
    ['corral_search_text', ['collection', 'token', 'text_key']],
    ['corral_search_int_token', ['collection', 'int_key', 'token']],
    ['corral_search_text_token', ['collection', 'text_key', 'token']],
  ] as const) {
    // MySQL has no CREATE INDEX IF NOT EXISTS; a duplicate index error means it is there.
    await db.schema.createIndex(name).ifNotExists().on(SEARCH_TABLE).columns([...columns]).execute().catch((error: unknown) => {
      if (dialect !== 'mysql') throw error;
    });
  }
  // The (collection, key) indexes of earlier versions: the ones above cover them.
  for (const name of ['corral_search_int_row', 'corral_search_text_row']) {
    const drop = db.schema.dropIndex(name).ifExists();
    // MySQL wants the table named; MariaDB knows IF EXISTS, MySQL does not (the error then means it is gone).
    await (dialect === 'mysql' ? drop.on(SEARCH_TABLE) : drop).execute().catch((error: unknown) => {
      if (dialect !== 'mysql') throw error;
    });
  }
}

/**
 * Statistics for the planner after a rebuild, so a word's rows are estimated from the real
 * table. SQLite samples (analysis_limit) rather than reading every index. MySQL is left to
 * InnoDB's automatic recalculation: its ANALYZE TABLE would commit the schema change's
 * transaction halfway.
 */
const ANALYZE: Record<Dialect, readonly string[]> = {
  sqlite: ['pragma analysis_limit = 1000', `analyze ${SEARCH_TABLE}`],
  postgres: [`analyze ${SEARCH_TABLE}`],
  mysql: [],
};

export async function analyzeSearchTable(db: Executor, dialect: Dialect): Promise<void> {
  for (const statement of ANALYZE[dialect]) await sql.raw(statement).execute(db);
}

/** Which key column a collection's rows are indexed under. */
export function keyColumn(keyType: string): 'int_key' | 'text_key' {
  return keyType === 'integer' || keyType === 'bigInt' || keyType === 'sort' ? 'int_key' : 'text_key';
}

/** Removes the tokens of these rows (driver key values). */
export async function deleteTokens(db: Executor, collection: string, column: 'int_key' | 'text_key', keys: readonly unknown[]): Promise<void> {
  if (keys.length === 0) return;
  await db.deleteFrom(SEARCH_TABLE).where('collection', '=', collection).where(column, 'in', [...keys]).execute();
}

/** Adds the tokens of rows given as [driver key, texts of the searchable fields]. */
export async function insertTokens(db: Executor, collection: string, column: 'int_key' | 'text_key', rows: readonly [unknown, readonly unknown[]][]): Promise<void> {
  const values = rows.flatMap(([key, texts]) => rowTokens(texts).map((token) => ({ collection, token, [column]: key })));
  for (let start = 0; start < values.length; start += REINDEX_BATCH) await db.insertInto(SEARCH_TABLE).values(values.slice(start, start + REINDEX_BATCH)).execute();
}

/** The searchable field names of a definition. */
export function searchableFields(def: CollectionDef): string[] {
  return def.fields.filter((field) => field.searchable === true).map((field) => field.name);
}

/** Drops a collection's tokens and, when it has searchable fields, rebuilds them from its rows. */
export async function reindexSearch(db: Executor, def: CollectionDef | undefined, name: string, dialect: Dialect): Promise<void> {
  await db.deleteFrom(SEARCH_TABLE).where('collection', '=', name).execute();
  if (def === undefined) return;
  const fields = searchableFields(def);
  if (fields.length === 0) return;
  const key = def.filterTargetKey;
  const keyType = def.fields.find((field) => field.name === key)?.type ?? 'integer';
  const column = keyColumn(keyType);
  let last: unknown;
  let indexed = 0;
  for (;;) {
    let query = db.selectFrom(def.name).select([key, ...fields]).orderBy(key).limit(REINDEX_BATCH);
    if (last !== undefined) query = query.where(key, '>', last);
    const rows = (await query.execute()) as Record<string, unknown>[];
    await insertTokens(db, def.name, column, rows.map((row) => [row[key], fields.map((field) => row[field])]));
    indexed += rows.length;
    if (rows.length < REINDEX_BATCH) break;
    last = rows[rows.length - 1]![key];
  }
  // Only a rebuild that found rows: statistics of an empty table would mislead the planner as it fills.
  if (indexed > 0) await analyzeSearchTable(db, dialect);
}
