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

export async function ensureSearchTable(db: Executor, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable(SEARCH_TABLE)
    .ifNotExists()
    .addColumn('collection', 'varchar(63)', (c) => c.notNull())
    .addColumn('token', sql.raw(TOKEN_TYPE[dialect]), (c) => c.notNull())
    .addColumn('int_key', 'bigint')
    .addColumn('text_key', `varchar(${MAX_TEXT_KEY})`)
    .execute();
  for (const [name, columns] of [
    ['corral_search_int', ['collection', 'token', 'int_key']],
    ['corral_search_text', ['collection', 'token', 'text_key']],
    ['corral_search_int_row', ['collection', 'int_key']],
    ['corral_search_text_row', ['collection', 'text_key']],
  ] as const) {
    // MySQL has no CREATE INDEX IF NOT EXISTS; a duplicate index error means it is there.
    await db.schema.createIndex(name).ifNotExists().on(SEARCH_TABLE).columns([...columns]).execute().catch((error: unknown) => {
      if (dialect !== 'mysql') throw error;
    });
  }
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
export async function reindexSearch(db: Executor, def: CollectionDef | undefined, name: string): Promise<void> {
  await db.deleteFrom(SEARCH_TABLE).where('collection', '=', name).execute();
  if (def === undefined) return;
  const fields = searchableFields(def);
  if (fields.length === 0) return;
  const key = def.filterTargetKey;
  const keyType = def.fields.find((field) => field.name === key)?.type ?? 'integer';
  const column = keyColumn(keyType);
  let last: unknown;
  for (;;) {
    let query = db.selectFrom(def.name).select([key, ...fields]).orderBy(key).limit(REINDEX_BATCH);
    if (last !== undefined) query = query.where(key, '>', last);
    const rows = (await query.execute()) as Record<string, unknown>[];
    await insertTokens(db, def.name, column, rows.map((row) => [row[key], fields.map((field) => row[field])]));
    if (rows.length < REINDEX_BATCH) return;
    last = rows[rows.length - 1]![key];
  }
}
