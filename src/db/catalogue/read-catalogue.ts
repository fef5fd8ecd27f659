import type { Kysely } from 'kysely';
import type { DynamicDb } from '../database.js';
import type { Dialect } from '../dialect.js';
import type { Catalogue } from './catalogue.js';
import { catalogueFilter, type TablePatterns } from './catalogue-filter.js';
import type { CatalogueReader } from './catalogue-reader.js';
import { readMysqlCatalogue } from './mysql-catalogue.js';
import { readPostgresCatalogue } from './postgres-catalogue.js';
import { readSqliteCatalogue } from './sqlite-catalogue.js';

export interface ReadCatalogueOptions extends TablePatterns {
  /** PostgreSQL: the schema to read (default `public`). MySQL reads the connection's database, SQLite `main`. */
  schema?: string;
}

const READERS: Record<Dialect, CatalogueReader> = {
  sqlite: readSqliteCatalogue,
  postgres: readPostgresCatalogue,
  mysql: readMysqlCatalogue,
};

/**
 * What the database's catalogue says about its tables and views (catalogue.ts), in the order of
 * their names; Corral's own tables never (catalogue-filter.ts), then include/exclude. It only
 * reads: it runs in a read-only transaction, or under `PRAGMA query_only`, as well as anywhere.
 */
export async function readCatalogue(db: Kysely<DynamicDb>, dialect: Dialect, options: ReadCatalogueOptions = {}): Promise<Catalogue> {
  const catalogue = await READERS[dialect](db, { ...(options.schema === undefined ? {} : { schema: options.schema }), wanted: catalogueFilter(options) });
  catalogue.tables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return catalogue;
}
