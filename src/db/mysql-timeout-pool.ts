import type { MysqlPool, MysqlPoolConnection } from 'kysely';
import type { Pool, PoolConnection } from 'mysql2';

/** mysql2's code for a query that outlived its `timeout`. */
export const MYSQL_QUERY_TIMEOUT_CODE = 'PROTOCOL_SEQUENCE_TIMEOUT';

/**
 * The pool Kysely sees: every statement is sent with mysql2's per-query `timeout`, so a
 * server that stops answering fails the request instead of holding it forever. A connection
 * whose query timed out may still receive that query's answer later, so it is destroyed
 * instead of going back to the pool.
 */
export function withStatementTimeout(pool: Pool, timeoutMs: number): MysqlPool {
  return {
    getConnection: (callback) => {
      pool.getConnection((error, connection) => {
        callback(error, error ? (connection as unknown as MysqlPoolConnection) : timedConnection(connection, timeoutMs));
      });
    },
    end: (callback) => pool.end(callback),
  };
}

function timedConnection(connection: PoolConnection, timeout: number): MysqlPoolConnection {
  let timedOut = false;
  const query = (sql: string, values: unknown[], callback?: (error: unknown, result: never) => void): never => {
    if (callback === undefined) return connection.query({ sql, values, timeout }) as never;
    connection.query({ sql, values, timeout }, (error: unknown, result: unknown) => {
      if ((error as { code?: unknown } | null)?.code === MYSQL_QUERY_TIMEOUT_CODE) timedOut = true;
      callback(error, result as never);
    });
    return undefined as never;
  };
  return {
    query: query as MysqlPoolConnection['query'],
    release: () => (timedOut ? connection.destroy() : connection.release()),
  };
}
