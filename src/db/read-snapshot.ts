import { Kysely, SqliteDialect } from 'kysely';
import type { DatabaseConfig } from '../config/config.js';
import type { Db, DynamicDb } from './database.js';

/**
 * A read that sees one state of the database, data and schema, until released: a long read
 * (a `paginate=false` stream) finishes from the schema it started with while another node
 * renames or drops a column.
 */
export interface ReadSnapshot {
  readonly db: Db;
  release(): Promise<void>;
}

/**
 * PostgreSQL and MySQL: a REPEATABLE READ, READ ONLY transaction on one pooled connection; the
 * tables it read stay locked for DDL (PostgreSQL's ACCESS SHARE lock, MySQL's metadata lock)
 * until it ends, so a schema change waits for the read instead of breaking it.
 * SQLite: a deferred transaction on a read-only connection of its own (the shared connection
 * cannot be held by one reader); in WAL mode it reads the snapshot of its first statement,
 * schema included, while writers go on. An in-memory database has no second connection: its
 * reads run on the shared one, unprotected (one process, where nothing else changes the schema
 * of a streamed collection but this node's own schema API).
 */
export async function openReadSnapshot(db: Db, config: DatabaseConfig): Promise<ReadSnapshot> {
  if (config.dialect !== 'sqlite') {
    const trx = await db.startTransaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute();
    return { db: trx, release: () => trx.commit().execute() };
  }
  if (config.file === ':memory:') return { db, release: async () => undefined };
  const { default: SqliteDatabase } = await import('better-sqlite3');
  const connection = new SqliteDatabase(config.file, { readonly: true, fileMustExist: true });
  connection.pragma('busy_timeout = 5000');
  // As the shared connection: integers as bigint (field types decode them).
  connection.defaultSafeIntegers(true);
  const reader = new Kysely<DynamicDb>({ dialect: new SqliteDialect({ database: connection }) });
  try {
    const trx = await reader.startTransaction().execute();
    return {
      db: trx,
      release: async () => {
        try {
          await trx.commit().execute();
        } finally {
          await reader.destroy();
        }
      },
    };
  } catch (error) {
    await reader.destroy();
    throw error;
  }
}
