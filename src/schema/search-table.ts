import { sql, type Kysely } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { DialectAdapter } from '../db/dialects/dialect-adapter.js';
import { systemTable } from '../db/system-table.js';
import { rowTokens } from '../text/search-tokens.js';
import { tableOf } from './table-of.js';
import type { CollectionDef } from './types.js';

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

/**
 * `collation` is the collections' collation: a text key compares with the collection's key
 * column only when both have it (MySQL refuses `=` across two implicit collations).
 */
export async function ensureSearchTable(db: Executor, adapter: DialectAdapter, collation = adapter.ddl.defaultCollation): Promise<void> {
  const textKey = adapter.ddl.collatedVarchar(MAX_TEXT_KEY, collation);
  await systemTable(db, adapter, {
    name: SEARCH_TABLE,
    columns: [
      { name: 'collection', type: 'varchar(63)', notNull: true },
      // Tokens compare in binary order, so a prefix is a range on the (collection, token) index.
      { name: 'token', type: { sql: adapter.ddl.binaryVarchar(64) }, notNull: true },
      { name: 'int_key', type: 'bigint' },
      { name: 'text_key', type: { sql: textKey } },
    ],
    // (collection, token, key): the rows of a word, one range. (collection, key, token): a
    // row's tokens, for deleting them and for testing one row for a word (a probe).
    indexes: [
      { name: 'corral_search_int', columns: ['collection', 'token', 'int_key'] },
      { name: 'corral_search_text', columns: ['collection', 'token', 'text_key'] },
      { name: 'corral_search_int_token', columns: ['collection', 'int_key', 'token'] },
      { name: 'corral_search_text_token', columns: ['collection', 'text_key', 'token'] },
    ],
  });
  // A table made by an earlier version took the database's default collation for text_key.
  await adapter.ddl.restateCollation(db, SEARCH_TABLE, 'text_key', textKey, collation);
  // The (collection, key) indexes of earlier versions: the ones above cover them.
  for (const name of ['corral_search_int_row', 'corral_search_text_row']) {
    const drop = db.schema.dropIndex(name).ifExists();
    // MariaDB knows IF EXISTS, MySQL does not (the error then means it is gone).
    await (adapter.ddl.dropIndexOnTable ? drop.on(SEARCH_TABLE) : drop).execute().catch((error: unknown) => {
      if (!adapter.ddl.indexExistsErrors) throw error;
    });
  }
}

/**
 * Statistics for the planner after a rebuild, so a word's rows are estimated from the real
 * table (the adapter says how, or that it is left to the database).
 */
export async function analyzeSearchTable(db: Executor, adapter: DialectAdapter): Promise<void> {
  for (const statement of adapter.ddl.analyze(SEARCH_TABLE)) await sql.raw(statement).execute(db);
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
export async function reindexSearch(db: Executor, def: CollectionDef | undefined, name: string, adapter: DialectAdapter): Promise<void> {
  await db.deleteFrom(SEARCH_TABLE).where('collection', '=', name).execute();
  if (def === undefined) return;
  const fields = searchableFields(def);
  if (fields.length === 0) return;
  const key = def.filterTargetKey;
  // Searchable fields are for Corral's own tables, whose key is one field.
  if (typeof key !== 'string') return;
  const keyType = def.fields.find((field) => field.name === key)?.type ?? 'integer';
  const column = keyColumn(keyType);
  let last: unknown;
  let indexed = 0;
  for (;;) {
    let query = db.selectFrom(tableOf(def)).select([key, ...fields]).orderBy(key).limit(REINDEX_BATCH);
    if (last !== undefined) query = query.where(key, '>', last);
    const rows = (await query.execute()) as Record<string, unknown>[];
    await insertTokens(db, def.name, column, rows.map((row) => [row[key], fields.map((field) => row[field])]));
    indexed += rows.length;
    if (rows.length < REINDEX_BATCH) break;
    last = rows[rows.length - 1]![key];
  }
  // Only a rebuild that found rows: statistics of an empty table would mislead the planner as it fills.
  if (indexed > 0) await analyzeSearchTable(db, adapter);
}
