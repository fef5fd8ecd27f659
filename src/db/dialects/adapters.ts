import type { Dialect } from '../dialect.js';
import type { DialectAdapter, ValueEncodings } from './dialect-adapter.js';
import { mysqlAdapter } from './mysql.js';
import { postgresAdapter } from './postgres.js';
import { sqliteAdapter } from './sqlite.js';

export type { DialectAdapter } from './dialect-adapter.js';
export { DIALECT_TRAITS, type DialectTraits } from './dialect-traits.js';

/** Every dialect has an adapter, or this fails to compile. */
export const ADAPTERS: Record<Dialect, DialectAdapter> = {
  sqlite: sqliteAdapter,
  postgres: postgresAdapter,
  mysql: mysqlAdapter,
};

/** The adapter of a dialect: look it up once (at construction, per schema change), not per row. */
export const adapterOf = (dialect: Dialect): DialectAdapter => ADAPTERS[dialect];

/**
 * The value encodings per dialect, for field types, whose `toDb`/`fromDb` take the dialect
 * name (one property read per value, as the comparison it replaces).
 */
export const VALUE_ENCODINGS: Record<Dialect, ValueEncodings> = {
  sqlite: sqliteAdapter.values,
  postgres: postgresAdapter.values,
  mysql: mysqlAdapter.values,
};
