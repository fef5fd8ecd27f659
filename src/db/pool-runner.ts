/**
 * PostgreSQL only: runs one statement on a pooled connection of its own, as an autocommitted
 * statement, past Kysely's executor, driver and connection provider (measured: a cached read
 * or flat write spends less CPU per request; docs/performance.md). Given to the root
 * query builder's executor only (database-executor.ts): a transaction's statements must run on its connection, so they go
 * through Kysely. The text runs as a named prepared statement when it is registered with the
 * database's statement names, like every other statement (database.ts).
 */
export type PoolRunner = (sql: string, params: readonly unknown[]) => Promise<Record<string, unknown>[]>;
