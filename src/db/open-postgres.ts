import { PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type { DatabaseConfig } from '../config/config.js';
import { CLIENT_TIMEOUT_GRACE_MS, type DatabaseLog, type DatabaseTimeouts, type OpenedDialect, type PoolUse } from './database.js';
import type { PoolRunner } from './pool-runner.js';
import { instantParser, TIMESTAMPTZ_OID } from './postgres-instant.js';
import { postgresSchema, searchPathOption } from './postgres-schema.js';
import type { StatementNames } from './statement-names.js';

/** Opens the PostgreSQL pool: named prepared statements, wire-form instants and a pooled runner past Kysely. */
export async function openPostgres(
  config: Extract<DatabaseConfig, { dialect: 'postgres' }>,
  timeouts: DatabaseTimeouts,
  log: DatabaseLog,
  statementNames: StatementNames,
): Promise<OpenedDialect> {
  const { default: pg } = await import('pg');
  const { default: Cursor } = await import('pg-cursor');
  const DATE_OID = 1082;
  // interval: its own text (`1 day 02:00:00`), which a filter can send back, not pg's object.
  const INTERVAL_OID = 1186;
  const keepText = (value: string): string => value;
  const instant = instantParser(pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text'));
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.poolSize,
    // Corral's schema first, then pg_catalog: see postgres-schema.ts.
    // plan_cache_mode: keep the parse-once saving but plan each run with its real values: a
    // generic plan for `fk = $1 … order by id limit $2` may walk the primary key and filter
    // (measured 10x slower on the bench's association list). A startup option, not a `set`
    // on 'connect': that query would still be running when the first statement is sent
    // (pg queues it, a pattern it deprecates).
    options: `${searchPathOption(postgresSchema(config.url))} -c plan_cache_mode=force_custom_plan`,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.statementMs + CLIENT_TIMEOUT_GRACE_MS,
    // dateOnly stays 'YYYY-MM-DD' instead of a local-time Date, an interval its text; a UTC timestamptz becomes
    // the wire string at once instead of a Date (postgres-instant.ts).
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        format === 'binary'
          ? pg.types.getTypeParser(oid, format)
          : oid === DATE_OID || oid === INTERVAL_OID
            ? keepText
            : oid === TIMESTAMPTZ_OID
              ? instant
              : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', (error) => log.error({ err: error }, 'an idle PostgreSQL connection failed'));
  const naming = namingPool(pool, statementNames, pg.DatabaseError, pg.Query, log);
  const poolUse = (): PoolUse => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount });
  return { dialect: 'postgres', kyselyDialect: new PostgresDialect({ pool: naming.pool, cursor: Cursor }), runner: naming.run, poolUse };
}

type PgPool = import('pg').Pool;
type PgClient = import('pg').PoolClient;

/**
 * The pool Kysely is given on PostgreSQL: its clients send a text registered in
 * `statementNames` (a cached query shape) as a named prepared statement, so each connection
 * parses and plans a shape once. Everything else (cursors, unnamed texts) passes through.
 *
 * A checked-out client is never left without an 'error' listener (node-postgres emits one for
 * a protocol message it did not expect, which would otherwise crash the process), and a
 * client whose statement failed other than by a server error (the client-side read timeout
 * of a frozen server, a broken socket, a protocol error) goes back to the pool as broken, so
 * the pool closes it instead of handing a connection that is mid-protocol to the next
 * statement.
 *
 * `run` runs one autocommitted statement on a client of its own, past Kysely (pool-runner.ts),
 * with the same naming and the same release rules.
 */
function namingPool(
  pool: PgPool,
  statementNames: StatementNames,
  ServerError: new (...args: never[]) => Error,
  Query: typeof import('pg').Query,
  log: DatabaseLog,
): { pool: PostgresPool; run: PoolRunner } {
  const wrappers = new WeakMap<PgClient, PostgresPoolClient>();
  const broken = new WeakMap<PgClient, Error>();
  /** A failure other than the server's own answer leaves the client mid-protocol: closed on release. */
  const noteFailure = (client: PgClient, error: unknown): void => {
    if (!(error instanceof ServerError)) broken.set(client, error instanceof Error ? error : new Error(String(error)));
  };
  const release = (client: PgClient): void => {
    const error = broken.get(client);
    broken.delete(client);
    client.release(error);
  };
  const wrap = (client: PgClient): PostgresPoolClient => {
    let wrapper = wrappers.get(client);
    if (wrapper === undefined) {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      const markBroken = (error: unknown): never => {
        noteFailure(client, error);
        throw error;
      };
      const named = (text: unknown, values?: unknown): unknown => {
        const name = typeof text === 'string' ? statementNames.nameOf(text) : undefined;
        const result = name === undefined ? query(text, values) : query({ name, text, values });
        // Cursors (submittables) return themselves, not a promise.
        return result instanceof Promise ? result.catch(markBroken) : result;
      };
      wrapper = {
        query: named as PostgresPoolClient['query'],
        release: () => release(client),
      };
      wrappers.set(client, wrapper);
    }
    return wrapper;
  };
  // Registered as the client connects: pg-pool emits 'connect' synchronously while handing
  // the client out, before its own idle listener is removed, so no error finds it listenerless
  // (a message in the same packet as the handshake's end would otherwise crash the process).
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      broken.set(client, error);
      log.error({ err: error }, 'a PostgreSQL connection failed; it is closed, not reused');
    });
  });
  const run: PoolRunner = (text, params) =>
    new Promise((resolve, reject) => {
      pool.connect((connectError, client) => {
        if (connectError !== undefined && connectError !== null) {
          reject(connectError);
          return;
        }
        if (client === undefined) {
          reject(new Error('the PostgreSQL pool handed out no client'));
          return;
        }
        // A Query built from the text (not a config object, which pg copies property by
        // property for every statement: measured 30 -> 26 µs of CPU per pooled statement)
        // with its prepared statement's name, the config field pg reads when it sends it.
        const query = new Query(text, params as unknown[], (error: Error | undefined, result: { rows: Record<string, unknown>[] }) => {
          const failed = error !== undefined && error !== null;
          if (failed) noteFailure(client, error);
          release(client);
          if (failed) reject(error);
          else resolve(result.rows);
        });
        const name = statementNames.nameOf(text);
        if (name !== undefined) (query as unknown as { name?: string }).name = name;
        client.query(query);
      });
    });
  return {
    pool: {
      connect: async () => wrap(await pool.connect()),
      end: () => pool.end(),
    },
    run,
  };
}
