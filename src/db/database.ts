import { CompiledQuery, Kysely, MysqlDialect, PostgresDialect, SqliteDialect, SqliteDriver, sql, type DatabaseConnection, type Dialect as KyselyDialect, type Driver, type PostgresPool, type PostgresPoolClient, type SqliteDialectConfig } from 'kysely';
import { DEFAULT_CONFIG, type DatabaseConfig } from '../config/config.js';
import type { Dialect } from '../schema/types.js';
import { instantParser, TIMESTAMPTZ_OID } from './postgres-instant.js';
import { openReadSnapshot, type ReadSnapshot } from './read-snapshot.js';
import { registerDirectConnection, registerDirectReader, type DirectConnection, type DirectReader, type DirectStatement } from './direct-reader.js';
import { registerPoolRunner, type PoolRunner } from './pool-runner.js';
import { withStatementTimeout } from './mysql-timeout-pool.js';
import { postgresSchema, searchPathOption } from './postgres-schema.js';
import { StatementNames } from './statement-names.js';

/**
 * Tables are defined at run time, so the query builder is typed loosely here and only here:
 * every name that reaches it has passed the schema allowlist first.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DynamicDb = Record<string, any>;
export type Db = Kysely<DynamicDb>;

export interface Database {
  readonly db: Db;
  readonly dialect: Dialect;
  /**
   * MySQL family only: the binary NO PAD collation of string columns, so 'a' and 'a ' differ
   * as on SQLite and PostgreSQL (utf8mb4_nopad_bin on MariaDB, utf8mb4_0900_bin on MySQL 8).
   */
  readonly mysqlCollation?: string;
  /** SQL texts run as named prepared statements where the dialect has them (PostgreSQL). */
  readonly statementNames: StatementNames;
  /** Statements run so far (tests bound the statements of a read with it). */
  readonly statements: () => number;
  /** A read that sees one state of data and schema until released (read-snapshot.ts). */
  readSnapshot(): Promise<ReadSnapshot>;
  /** Checks that the database answers (for /readyz). */
  ping(): Promise<void>;
  /** Connections of the pool (PostgreSQL, MySQL) as the driver counts them, for the metrics. */
  readonly poolUse?: () => PoolUse;
  close(): Promise<void>;
}

/**
 * SQLite settings for a server: see docs/configuration.md#sqlite. The busy timeout comes first:
 * switching to WAL takes a lock for a moment, and several workers may open the file at once.
 */
/** A connection pool's connections: open, idle among them, and requests waiting for one. */
export interface PoolUse {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
}

export const SQLITE_PRAGMAS = [
  'busy_timeout = 5000',
  'journal_mode = WAL',
  'synchronous = NORMAL',
  'foreign_keys = ON',
  'cache_size = -16000',
  'temp_store = MEMORY',
] as const;

/** Prepared SQLite statements kept by SQL text (the oldest goes first). */
export const SQLITE_STATEMENT_CACHE = 1000;

/** Where connection-level failures that no request sees are reported. */
export interface DatabaseLog {
  error(object: object, message: string): void;
}

const CONSOLE_LOG: DatabaseLog = { error: (object, message) => console.error(message, object) };

/** Connect and statement limits of the network databases (CORRAL_DB_*_TIMEOUT_MS). */
export interface DatabaseTimeouts {
  connectMs: number;
  statementMs: number;
}

/**
 * Extra time the client waits past the server's statement_timeout before giving up itself:
 * the server's own cancel answers first, the client's timer catches a server that went silent.
 */
export const CLIENT_TIMEOUT_GRACE_MS = 1000;

export async function openDatabase(
  config: DatabaseConfig,
  timeouts: DatabaseTimeouts = { connectMs: DEFAULT_CONFIG.dbConnectTimeoutMs, statementMs: DEFAULT_CONFIG.dbStatementTimeoutMs },
  log: DatabaseLog = CONSOLE_LOG,
): Promise<Database> {
  const statementNames = new StatementNames();
  const { dialect, kyselyDialect, mysqlCollation, direct, connection, runner, poolUse } = await makeDialect(config, timeouts, log, statementNames);
  let statements = 0;
  const db = new Kysely<DynamicDb>({
    dialect: kyselyDialect,
    log: (event) => {
      if (event.level === 'query' || event.level === 'error') statements++;
    },
  });
  if (direct !== undefined) registerDirectReader(db, direct);
  if (connection !== undefined) registerDirectConnection(db, connection);
  if (runner !== undefined) {
    registerPoolRunner(db, (text, params) => {
      statements++;
      return runner(text, params);
    });
  }
  return {
    db,
    dialect,
    statementNames,
    ...(mysqlCollation === undefined ? {} : { mysqlCollation }),
    ...(poolUse === undefined ? {} : { poolUse }),
    statements: () => statements,
    readSnapshot: () => openReadSnapshot(db, config),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

async function makeDialect(
  config: DatabaseConfig,
  timeouts: DatabaseTimeouts,
  log: DatabaseLog,
  statementNames: StatementNames,
): Promise<{ dialect: Dialect; kyselyDialect: KyselyDialect; mysqlCollation?: string; direct?: DirectReader; connection?: DirectConnection; runner?: PoolRunner; poolUse?: () => PoolUse }> {
  switch (config.dialect) {
    case 'sqlite': {
      const { default: SqliteDatabase } = await import('better-sqlite3');
      if (config.file !== ':memory:') {
        const { mkdirSync } = await import('node:fs');
        const { dirname } = await import('node:path');
        mkdirSync(dirname(config.file), { recursive: true });
      }
      const database = new SqliteDatabase(config.file);
      for (const pragma of SQLITE_PRAGMAS) database.pragma(pragma);
      // Integers come back as bigint so 64-bit values are exact; field types decode them.
      database.defaultSafeIntegers(true);
      // Kysely prepares every query anew; keep prepared statements by SQL text instead.
      const statements = new Map<string, ReturnType<typeof database.prepare>>();
      const cached = {
        close: () => database.close(),
        prepare: (text: string) => {
          let statement = statements.get(text);
          if (statement === undefined) {
            statement = database.prepare(text);
            if (statements.size >= SQLITE_STATEMENT_CACHE) statements.delete(statements.keys().next().value!);
            statements.set(text, statement);
          }
          return statement;
        },
      };
      // A synchronous read cannot interleave with anything, so with no transaction open it
      // may run at once instead of queueing behind the driver's connection lock.
      const direct: DirectReader = (text, params, one) => {
        if (database.inTransaction) return undefined;
        const statement = cached.prepare(text) as unknown as DirectStatement;
        // A write is always stepped to its end: see DirectReader.
        if (one !== true || !statement.readonly) return statement.all(...params);
        const row = statement.get(...params);
        return row === undefined ? [] : [row];
      };
      const connection: DirectConnection = {
        get inTransaction() {
          return database.inTransaction;
        },
        prepare: (text) => cached.prepare(text) as unknown as DirectStatement,
      };
      return { dialect: 'sqlite', kyselyDialect: new ImmediateSqliteDialect({ database: cached }), direct, connection };
    }
    case 'postgres': {
      const { default: pg } = await import('pg');
      const { default: Cursor } = await import('pg-cursor');
      const DATE_OID = 1082;
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
        // dateOnly stays 'YYYY-MM-DD' instead of a local-time Date; a UTC timestamptz becomes
        // the wire string at once instead of a Date (postgres-instant.ts).
        types: {
          getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
            format === 'binary'
              ? pg.types.getTypeParser(oid, format)
              : oid === DATE_OID
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
    case 'mysql': {
      const mysql = await import('mysql2');
      const pool = mysql.createPool({
        uri: config.url,
        connectionLimit: config.poolSize,
        charset: 'utf8mb4',
        timezone: 'Z',
        dateStrings: true,
        supportBigNumbers: true,
        bigNumberStrings: true,
        connectTimeout: timeouts.connectMs,
        // mysql2 compiles a row parser per result shape with new Function(); for a wide table
        // (190 integer columns) V8 then spent over a minute of CPU optimizing it in the
        // background after one list, and process.exit() waited for it. The interpreted parser
        // has no such cost (measured in docs/performance.md).
        disableEval: true,
      });
      // Every connection speaks UTC and refuses silent truncation; the pool runs this before any other query.
      pool.on('connection', (connection) => {
        connection.query(
          "set session time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
          (error: unknown) => {
            // Without strict mode MySQL would truncate values silently: this connection must not serve.
            if (error === null || error === undefined) return;
            log.error({ err: error }, 'setting the MySQL session failed: dropping the connection');
            connection.destroy();
          },
        );
      });
      const [rows] = await pool.promise().query({ sql: 'select version() as version', timeout: timeouts.connectMs });
      const version = String((rows as { version?: unknown }[])[0]?.version ?? '');
      const mysqlCollation = /mariadb/i.test(version) ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
      // mysql2 keeps its counts in fields it does not type (stable since its first pool).
      const counts = pool as unknown as { _allConnections?: { length: number }; _freeConnections?: { length: number }; _connectionQueue?: { length: number } };
      const poolUse = (): PoolUse => ({ total: counts._allConnections?.length ?? 0, idle: counts._freeConnections?.length ?? 0, waiting: counts._connectionQueue?.length ?? 0 });
      return { dialect: 'mysql', kyselyDialect: new MysqlDialect({ pool: withStatementTimeout(pool, timeouts.statementMs) }), mysqlCollation, poolUse };
    }
  }
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

/**
 * SQLite transactions start with `BEGIN IMMEDIATE`: they take the write lock at once, waiting
 * up to the busy timeout while another process (a worker, a second node) holds it. A plain
 * `BEGIN` reads first and fails with SQLITE_BUSY, without waiting, when it later needs to
 * write after another process committed; with the lock taken up front, writers queue instead.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}
