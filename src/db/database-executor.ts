import { CompiledQuery } from 'kysely';
import type { Db } from './database.js';
import type { DirectConnection, DirectReader } from './direct-reader.js';
import type { PoolRunner } from './pool-runner.js';

/** SQLite: reads away from the event loop, on reader threads (sqlite-read-pool.ts). */
export interface OffloadedReader {
  run(sql: string, params: readonly unknown[], one?: boolean): Promise<Record<string, unknown>[]>;
  /** Whether reads of `table` are worth a thread (a small table's are not: table-spans.ts). */
  worth(table: string): boolean;
}

/**
 * Where a database's root statements run (never a transaction's: those go through the
 * transaction's own Kysely object): Kysely, and the cheaper ways the dialect has past it,
 * each given by openDatabase. SQLite's direct paths can be paused for a schema change.
 */
export class DatabaseExecutor {
  #paused = false;

  constructor(
    /** The root query builder. */
    readonly kysely: Db,
    /** SQLite: a read, or one autocommit write, synchronously on the connection (direct-reader.ts). */
    readonly direct?: DirectReader,
    /** SQLite: the connection itself, for a write unit that runs synchronously on it. */
    readonly connection?: DirectConnection,
    /** PostgreSQL: one autocommitted statement on a pooled client of its own (pool-runner.ts). */
    readonly runner?: PoolRunner,
    /** SQLite on a file: reader threads for reads that may be heavy (see `runHeavy`). */
    readonly readers?: OffloadedReader,
  ) {}

  /**
   * Runs a root read that may be heavy (sql/read-weight.ts): on a reader thread where the
   * database has them, so the event loop keeps serving while it runs (and the statement
   * timeout applies), else as `run`. Never a statement of a transaction: a reader thread has
   * its own connection and sees committed rows only.
   */
  runHeavy<R>(table: string, sql: string, params: readonly unknown[], one = false, query?: CompiledQuery): R[] | Promise<R[]> {
    if (this.readers !== undefined && this.readers.worth(table)) return this.readers.run(sql, params, one) as Promise<R[]>;
    return this.run<R>(sql, params, one, query);
  }

  /**
   * Runs SQL text with its values the cheapest way: SQLite's direct reader (unless paused or
   * a transaction is open), PostgreSQL's pooled runner, else Kysely (`query`: the text's
   * CompiledQuery, when the caller keeps one). SQLite's rows come back at once, without a promise.
   */
  run<R>(sql: string, params: readonly unknown[], one = false, query?: CompiledQuery): R[] | Promise<R[]> {
    if (!this.#paused && this.direct !== undefined) {
      const rows = this.direct(sql, params, one);
      if (rows !== undefined) return rows as R[];
    }
    if (this.runner !== undefined) return this.runner(sql, params) as Promise<R[]>;
    return this.kysely.executeQuery<R>({ ...(query ?? CompiledQuery.raw(sql)), parameters: params }).then((result) => result.rows);
  }

  /** The SQLite connection, when direct statements may run now (not paused, no transaction open). */
  directConnection(): DirectConnection | undefined {
    const connection = this.connection;
    return this.#paused || connection === undefined || connection.inTransaction ? undefined : connection;
  }

  /**
   * A schema change on SQLite turns foreign keys off around its transaction; between those
   * steps nothing may run directly (a write would skip its foreign key checks), so statements
   * queue on the connection until the change is done.
   */
  async paused<T>(work: () => Promise<T>): Promise<T> {
    this.#paused = true;
    try {
      return await work();
    } finally {
      this.#paused = false;
    }
  }
}
