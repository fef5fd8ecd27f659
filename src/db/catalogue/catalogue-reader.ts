import type { Kysely } from 'kysely';
import type { DynamicDb } from '../database.js';
import type { Catalogue } from './catalogue.js';

/** What a dialect's reader is told: the schema asked for (PostgreSQL) and which tables are wanted. */
export interface CatalogueReadOptions {
  schema?: string;
  wanted: (table: string) => boolean;
}

/** Reads one dialect's catalogue; only SELECTs (and PRAGMA reads on SQLite). */
export type CatalogueReader = (db: Kysely<DynamicDb>, options: CatalogueReadOptions) => Promise<Catalogue>;
