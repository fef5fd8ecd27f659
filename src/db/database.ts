import { CompiledQuery, Kysely, MysqlDialect, PostgresDialect, SqliteDialect, sql, type Dialect as KyselyDialect, type Driver } from 'kysely';
import type { DatabaseConfig } from '../config/config.js';
import type { Dialect } from '../schema/types.js';
import { registerDirectReader, type DirectReader } from './direct-reader.js';
import { STATEMENT_NAME } from './statement-name.js';

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
  /** Statements run so far (tests bound the statements of a read with it). */
  readonly statements: () => number;
  /** Checks that the database answers (for /readyz). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * SQLite settings for a server: see docs/configuration.md#sqlite. The busy timeout comes first:
 * switching to WAL takes a lock for a moment, and several workers may open the file at once.
 */
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

export async function openDatabase(config: DatabaseConfig): Promise<Database> {
  const { dialect, kyselyDialect, mysqlCollation, direct } = await makeDialect(config);
  let statements = 0;
  const db = new Kysely<DynamicDb>({
    dialect: kyselyDialect,
    log: (event) => {
      if (event.level === 'query' || event.level === 'error') statements++;
    },
  });
  if (direct !== undefined) registerDirectReader(db, direct);
  return {
    db,
    dialect,
    ...(mysqlCollation === undefined ? {} : { mysqlCollation }),
    statements: () => statements,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

async function makeDialect(config: DatabaseConfig): Promise<{ dialect: Dialect; kyselyDialect: KyselyDialect; mysqlCollation?: string; direct?: DirectReader }> {
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
      const direct: DirectReader = (text, params) => {
        if (database.inTransaction) return undefined;
        const statement = cached.prepare(text) as unknown as { all(...values: unknown[]): Record<string, unknown>[] };
        return statement.all(...params);
      };
      return { dialect: 'sqlite', kyselyDialect: new ImmediateSqliteDialect({ database: cached }), direct };
    }
    case 'postgres': {
      const { default: pg } = await import('pg');
      const { default: Cursor } = await import('pg-cursor');
      const DATE_OID = 1082;
      const pool = new pg.Pool({
        connectionString: config.url,
        max: config.poolSize,
        // dateOnly stays 'YYYY-MM-DD' instead of a local-time Date.
        types: {
          getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
            oid === DATE_OID ? (value: string) => value : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
        },
      });
      // An idle client losing its connection must not crash the process.
      pool.on('error', () => undefined);
      // Cached query shapes carry a name (see sql/query-cache.ts): send them as named
      // statements, so each connection parses and plans a shape once.
      pool.on('connect', (client) => {
        // Keep the parse-once saving but plan each run with its real values: a generic plan
        // for `fk = $1 … order by id limit $2` may walk the primary key and filter (measured
        // 10x slower on the bench's association list).
        void client.query('set plan_cache_mode = force_custom_plan').catch(() => undefined);
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        (client as { query: unknown }).query = (text: unknown, values?: unknown, callback?: unknown) => {
          const name = typeof text === 'string' ? STATEMENT_NAME.exec(text)?.[1] : undefined;
          if (name === undefined) return query(text, values, callback);
          return query({ name, text, values }, callback);
        };
      });
      return { dialect: 'postgres', kyselyDialect: new PostgresDialect({ pool, cursor: Cursor }) };
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
      });
      // Every connection speaks UTC and refuses silent truncation; the pool runs this before any other query.
      pool.on('connection', (connection) => {
        connection.query(
          "set session time_zone = '+00:00', sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
        );
      });
      const [rows] = await pool.promise().query('select version() as version');
      const version = String((rows as { version?: unknown }[])[0]?.version ?? '');
      const mysqlCollation = /mariadb/i.test(version) ? 'utf8mb4_nopad_bin' : 'utf8mb4_0900_bin';
      return { dialect: 'mysql', kyselyDialect: new MysqlDialect({ pool }), mysqlCollation };
    }
  }
}

/**
 * SQLite transactions start with `BEGIN IMMEDIATE`: they take the write lock at once, waiting
 * up to the busy timeout while another process (a worker, a second node) holds it. A plain
 * `BEGIN` reads first and fails with SQLITE_BUSY, without waiting, when it later needs to
 * write after another process committed; with the lock taken up front, writers queue instead.
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}
