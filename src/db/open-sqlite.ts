import { CompiledQuery, SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';
import { DEFAULT_CONFIG, type DatabaseConfig } from '../config/config.js';
import type { DatabaseTimeouts, OpenedDialect } from './database.js';
import { READER_MIN_ROWS, TableSpans } from './table-spans.js';
import { SqliteReadPool } from './sqlite-read-pool.js';
import type { DirectConnection, DirectReader, DirectStatement } from './direct-reader.js';

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

/**
 * Opens the SQLite file with Corral's settings, its statement cache, its direct paths and its
 * reader threads (none for an in-memory database: a thread cannot reach another connection's memory).
 */
export async function openSqlite(config: Extract<DatabaseConfig, { dialect: 'sqlite' }>, timeouts: DatabaseTimeouts): Promise<OpenedDialect> {
  const { default: SqliteDatabase } = await import('better-sqlite3');
  if (config.file !== ':memory:' && config.readOnly !== true) {
    const { mkdirSync } = await import('node:fs');
    const { dirname } = await import('node:path');
    mkdirSync(dirname(config.file), { recursive: true });
  }
  // Read-only (`?mode=ro`): the file must exist, and its journal mode is left as the owner set it.
  const database = config.readOnly === true ? new SqliteDatabase(config.file, { readonly: true, fileMustExist: true }) : new SqliteDatabase(config.file);
  for (const pragma of SQLITE_PRAGMAS) if (config.readOnly !== true || !pragma.startsWith('journal_mode')) database.pragma(pragma);
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
  const size = config.readers ?? DEFAULT_CONFIG.sqliteReaders;
  const readers = config.file === ':memory:' || size === 0 ? undefined : new SqliteReadPool({ file: config.file, size, timeoutMs: timeouts.statementMs, statementCache: SQLITE_STATEMENT_CACHE, worth: spansOf(direct, config.readerMinRows) });
  return { dialect: 'sqlite', kyselyDialect: new ImmediateSqliteDialect({ database: cached }), direct, connection, ...(readers === undefined ? {} : { readers }) };
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

/** Heavy reads of small tables stay on the main connection (table-spans.ts). */
function spansOf(direct: DirectReader, minRows: number | undefined): (table: string) => boolean {
  const spans = new TableSpans(direct, minRows ?? READER_MIN_ROWS);
  return (table) => spans.large(table);
}
