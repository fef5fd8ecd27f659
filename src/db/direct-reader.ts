/**
 * SQLite only: runs one statement synchronously on the connection, skipping the driver's
 * async queue, when that is safe: a read, or a single autocommit write (atomic by itself).
 * Returns undefined when it is not (a transaction is open on the connection: a read would see
 * its uncommitted rows, a write would join it), and the caller goes the usual way.
 * `one`: the statement yields at most one row; a read is then stepped once and reset. A write
 * is always stepped to its end: an autocommit write reset before its end commits without
 * SQLite's WAL hook, so the automatic checkpoint never runs and the log grows without bound
 * (the "52 → 20 µs" once measured for an update stepped once was that checkpoint, skipped).
 */
export type DirectReader = (sql: string, params: readonly unknown[], one?: boolean) => Record<string, unknown>[] | undefined;

/** The better-sqlite3 statement calls the direct paths use. */
export interface DirectStatement {
  /** The statement changes nothing (better-sqlite3: `sqlite3_stmt_readonly`). */
  readonly readonly: boolean;
  all(...values: unknown[]): Record<string, unknown>[];
  get(...values: unknown[]): Record<string, unknown> | undefined;
  run(...values: unknown[]): { changes: number | bigint };
}

/**
 * SQLite's one connection, for a write unit that runs synchronously on it (BEGIN, its
 * statements, COMMIT in one go, see changes/sqlite-direct-write.ts).
 */
export interface DirectConnection {
  /** A transaction is open (one of Kysely's, or a direct unit's: then nothing may run directly). */
  readonly inTransaction: boolean;
  /** The prepared statement of a SQL text, kept across calls. */
  prepare(text: string): DirectStatement;
}

const readers = new WeakMap<object, DirectReader>();
const connections = new WeakMap<object, DirectConnection>();
const paused = new WeakSet<object>();

/** Registered by openDatabase for the root query builder (never for a transaction). */
export function registerDirectReader(db: object, reader: DirectReader): void {
  readers.set(db, reader);
}

export function directReaderOf(db: object): DirectReader | undefined {
  return paused.has(db) ? undefined : readers.get(db);
}

/** Registered by openDatabase for the root query builder of a SQLite database. */
export function registerDirectConnection(db: object, connection: DirectConnection): void {
  connections.set(db, connection);
}

/** The connection, when direct statements may run now (not paused, no transaction open). */
export function directConnectionOf(db: object): DirectConnection | undefined {
  if (paused.has(db)) return undefined;
  const connection = connections.get(db);
  return connection === undefined || connection.inTransaction ? undefined : connection;
}

/** Whether the database has a direct connection at all (SQLite). */
export function hasDirectConnection(db: object): boolean {
  return connections.has(db);
}

/**
 * A schema change on SQLite turns foreign keys off around its transaction; between those
 * steps nothing may run directly (a write would skip its foreign key checks), so statements
 * queue on the connection until the change is done.
 */
export async function withDirectPaused<T>(db: object, work: () => Promise<T>): Promise<T> {
  paused.add(db);
  try {
    return await work();
  } finally {
    paused.delete(db);
  }
}
