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
 * statements, COMMIT in one go, see write-paths/sqlite-direct.ts).
 */
export interface DirectConnection {
  /** A transaction is open (one of Kysely's, or a direct unit's: then nothing may run directly). */
  readonly inTransaction: boolean;
  /** The prepared statement of a SQL text, kept across calls. */
  prepare(text: string): DirectStatement;
}
