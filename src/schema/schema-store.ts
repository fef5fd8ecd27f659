import { sql, type Kysely, type Transaction } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { DialectAdapter } from '../db/dialects/dialect-adapter.js';
import { systemTable, type SystemTable } from '../db/system-table.js';
import { ensureSearchTable } from './search-table.js';
import type { CollectionDef } from './types.js';

export const COLLECTIONS_TABLE = 'corral_collections';
export const META_TABLE = 'corral_meta';

type Executor = Kysely<DynamicDb> | Transaction<DynamicDb>;

const SCHEMA_TABLES: readonly SystemTable[] = [
  {
    name: COLLECTIONS_TABLE,
    columns: [
      { name: 'name', type: 'varchar(63)', primaryKey: true },
      { name: 'position', type: 'integer', notNull: true },
      { name: 'definition', type: 'longText', notNull: true },
    ],
    tableOptions: true,
  },
  {
    name: META_TABLE,
    columns: [
      { name: 'id', type: 'integer', primaryKey: true },
      { name: 'schema_version', type: 'integer', notNull: true },
    ],
    tableOptions: true,
  },
];

/** Creates the system tables when missing. Safe to run from several processes at once. */
export async function ensureSystemTables(db: Kysely<DynamicDb>, adapter: DialectAdapter, collation?: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      for (const table of SCHEMA_TABLES) await systemTable(db, adapter, table, collation);
      const existing = await db.selectFrom(META_TABLE).select('id').where('id', '=', 1).executeTakeFirst();
      if (existing === undefined) await db.insertInto(META_TABLE).values({ id: 1, schema_version: 0 }).execute();
      await ensureSearchTable(db, adapter, collation);
      return;
    } catch (error) {
      // Two processes starting together may race on CREATE TABLE / the first insert; the second try sees the winner's work.
      if (attempt >= 2) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
    }
  }
}

export async function readSchemaVersion(db: Executor): Promise<number> {
  const row = await db.selectFrom(META_TABLE).select('schema_version').where('id', '=', 1).executeTakeFirstOrThrow();
  return Number(row.schema_version);
}

export async function bumpSchemaVersion(db: Executor): Promise<void> {
  await db.updateTable(META_TABLE).set({ schema_version: sql`schema_version + 1` }).where('id', '=', 1).execute();
}

export async function readDefinitions(db: Executor): Promise<CollectionDef[]> {
  const rows = await db.selectFrom(COLLECTIONS_TABLE).select(['definition']).orderBy('position').execute();
  return rows.map((row) => JSON.parse(String(row.definition)) as CollectionDef);
}

export async function insertDefinition(db: Executor, def: CollectionDef): Promise<void> {
  const last = await db.selectFrom(COLLECTIONS_TABLE).select(sql<number>`coalesce(max(position), 0)`.as('last')).executeTakeFirst();
  await db
    .insertInto(COLLECTIONS_TABLE)
    .values({ name: def.name, position: Number(last?.last ?? 0) + 1, definition: JSON.stringify(def) })
    .execute();
}

export async function updateDefinition(db: Executor, def: CollectionDef): Promise<void> {
  await db.updateTable(COLLECTIONS_TABLE).set({ definition: JSON.stringify(def) }).where('name', '=', def.name).execute();
}

export async function deleteDefinition(db: Executor, name: string): Promise<void> {
  await db.deleteFrom(COLLECTIONS_TABLE).where('name', '=', name).execute();
}
