/**
 * PostgreSQL only: runs one statement on a pooled connection of its own, as an autocommitted
 * statement, past Kysely's executor, driver and connection provider (measured: a cached read
 * or flat write spends less CPU per request; docs/performance.md). Registered for the root
 * query builder only: a transaction's statements must run on its connection, so they go
 * through Kysely. The text runs as a named prepared statement when it is registered with the
 * database's statement names, like every other statement (database.ts).
 */
export type PoolRunner = (sql: string, params: readonly unknown[]) => Promise<Record<string, unknown>[]>;

const runners = new WeakMap<object, PoolRunner>();

/** Registered by openDatabase for the root query builder of a PostgreSQL database. */
export function registerPoolRunner(db: object, runner: PoolRunner): void {
  runners.set(db, runner);
}

/** The runner of `db`, when it is a root query builder that has one (never a transaction). */
export function poolRunnerOf(db: object): PoolRunner | undefined {
  return runners.get(db);
}
