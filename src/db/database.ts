import { Kysely, MysqlDialect, sql, type Dialect as KyselyDialect } from 'kysely';
import { DEFAULT_CONFIG, type DatabaseConfig } from '../config/config.js';
import type { Dialect } from './dialect.js';
import { DatabaseExecutor } from './database-executor.js';
import { openReadSnapshot, type ReadSnapshot } from './read-snapshot.js';
import type { DirectConnection, DirectReader } from './direct-reader.js';
import type { PoolRunner } from './pool-runner.js';
import { withStatementTimeout } from './mysql-timeout-pool.js';
import { openPostgres } from './open-postgres.js';
import { openSqlite } from './open-sqlite.js';
import type { SqliteReadPool } from './sqlite-read-pool.js';
import { StatementNames } from './statement-names.js';

/** The SQLite settings, kept importable here (bench/baseline/server.mjs reads them from the build). */
export { SQLITE_PRAGMAS } from './open-sqlite.js';

/**
 * Tables are defined at run time, so the query builder is typed loosely here and only here:
 * every name that reaches it has passed the schema allowlist first.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DynamicDb = Record<string, any>;
export type Db = Kysely<DynamicDb>;

export interface Database {
  readonly db: Db;
  /** Where root statements run: Kysely on `db`, and the dialect's direct ways past it (database-executor.ts). */
  readonly executor: DatabaseExecutor;
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

/** A connection pool's connections: open, idle among them, and requests waiting for one. */
export interface PoolUse {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
}

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
  const { dialect, kyselyDialect, mysqlCollation, direct, connection, runner, poolUse, readers } = await makeDialect(config, timeouts, log, statementNames);
  let statements = 0;
  const db = new Kysely<DynamicDb>({
    dialect: kyselyDialect,
    log: (event) => {
      if (event.level === 'query' || event.level === 'error') statements++;
    },
  });
  const counted: PoolRunner | undefined =
    runner === undefined
      ? undefined
      : (text, params) => {
          statements++;
          return runner(text, params);
        };
  return {
    db,
    executor: new DatabaseExecutor(db, direct, connection, counted, readers),
    dialect,
    statementNames,
    ...(mysqlCollation === undefined ? {} : { mysqlCollation }),
    ...(poolUse === undefined ? {} : { poolUse }),
    statements: () => statements,
    readSnapshot: () => openReadSnapshot(db, config),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: async () => {
      try {
        await readers?.close();
      } finally {
        await db.destroy();
      }
    },
  };
}

/** A dialect opened for Kysely, with the ways past Kysely it has (open-sqlite.ts, open-postgres.ts). */
export interface OpenedDialect {
  dialect: Dialect;
  kyselyDialect: KyselyDialect;
  mysqlCollation?: string;
  direct?: DirectReader;
  connection?: DirectConnection;
  runner?: PoolRunner;
  poolUse?: () => PoolUse;
  /** SQLite on a file: reader threads for reads that may be heavy. */
  readers?: SqliteReadPool;
}

async function makeDialect(
  config: DatabaseConfig,
  timeouts: DatabaseTimeouts,
  log: DatabaseLog,
  statementNames: StatementNames,
): Promise<OpenedDialect> {
  switch (config.dialect) {
    case 'sqlite':
      return openSqlite(config, timeouts);
    case 'postgres':
      return openPostgres(config, timeouts, log, statementNames);
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
