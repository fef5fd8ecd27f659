import { existsSync } from 'node:fs';
import { Kysely, SqliteDialect } from 'kysely';
import type { DatabaseConfig } from '../config/config.js';
import { openDatabase, type DatabaseTimeouts, type DynamicDb } from './database.js';

/** A connection that only reads an existing database; `label` names it in messages. */
export interface ReadOnlyDatabase {
  readonly kysely: Kysely<DynamicDb>;
  readonly label: string;
  close(): Promise<void>;
}

/**
 * Opens an existing database without changing it: a SQLite file must exist and is opened
 * read-only, without the server's pragmas (no journal-mode switch, no new file); a network
 * database is connected to as usual (connecting creates nothing). Throws a one-line error for
 * a SQLite path with no file and for `sqlite::memory:` (always empty).
 */
export async function openReadOnly(config: DatabaseConfig, timeouts: DatabaseTimeouts): Promise<ReadOnlyDatabase> {
  if (config.dialect !== 'sqlite') {
    const database = await openDatabase(config, timeouts, { error: () => undefined });
    return { kysely: database.db, label: 'the database', close: () => database.close() };
  }
  if (config.file === ':memory:') throw new Error('an in-memory SQLite database (sqlite::memory:) is empty: there is nothing to read');
  if (!existsSync(config.file)) throw new Error(`no database at ${config.file}`);
  const { default: SqliteDatabase } = await import('better-sqlite3');
  const kysely = new Kysely<DynamicDb>({ dialect: new SqliteDialect({ database: new SqliteDatabase(config.file, { readonly: true, fileMustExist: true }) }) });
  return { kysely, label: config.file, close: () => kysely.destroy() };
}
