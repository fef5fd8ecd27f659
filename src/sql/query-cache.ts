import { CompiledQuery } from 'kysely';
import { DatabaseExecutor } from '../db/database-executor.js';
import type { StatementNames } from '../db/statement-names.js';
import type { Dialect } from '../schema/types.js';
import type { Executor } from './select-rows.js';
import { SqlPass, type Statement } from './sql-pass.js';

/** Shapes remembered per collection; beyond this a shape is compiled each time (still correct). */
export const MAX_SHAPES_PER_COLLECTION = 500;

/**
 * Runs SQL text with its values: on the database's executor (`on` is the root: SQLite's direct
 * reader, PostgreSQL's pooled runner, see database-executor.ts), else on Kysely's executor of
 * `on` (a transaction's statements run on its connection). `query`: the text's CompiledQuery,
 * when the caller keeps one.
 */
export function runSql<R>(on: Executor | DatabaseExecutor, sql: string, params: readonly unknown[], one = false, query?: CompiledQuery): R[] | Promise<R[]> {
  if (on instanceof DatabaseExecutor) return on.run<R>(sql, params, one, query);
  return on.executeQuery<R>({ ...(query ?? CompiledQuery.raw(sql)), parameters: params }).then((result) => result.rows);
}

/**
 * SQL text of a shape, or null when Kysely's parameters did not match ours (never cached).
 * `query`: the raw CompiledQuery of that text, built once (Kysely freezes a node tree for each).
 */
type Entry = { sql: string; query: CompiledQuery } | null;

/**
 * Compiled SQL by query *shape* (the statement without its values), owned by the store.
 * Keyed first by the compiled Collection, so a schema change (a new snapshot) starts afresh.
 * Each text it keeps is registered with the database's statement names, so PostgreSQL runs
 * it as a named prepared statement.
 */
export class ShapeCache {
  readonly #byOwner = new WeakMap<object, Map<string, Entry>>();

  constructor(
    private readonly names: StatementNames,
    /** The database's root executor: a statement on its query builder takes the direct paths. */
    private readonly executor?: DatabaseExecutor,
  ) {}

  /**
   * Runs a statement (a read, or one autocommit write) written by one pass (`sql-pass.ts`).
   * Each time, the pass runs key-only: the shape key and the values, no Kysely object. A key
   * seen before runs its cached SQL text with only the values bound. A new key runs the pass
   * once more, emitting, and compiles it with Kysely; the text is kept only if that run wrote
   * the same key and the key-only values (what a cache hit binds) equal what Kysely bound, so neither a writer that keys
   * differently when emitting nor a wrong parameter order can reach the database from the cache.
   * `one`: the statement yields at most one row (see DirectReader). `heavy`: the table of a read whose
   * cost may grow with the table (sql/read-weight.ts): on the root query builder it runs where
   * the database runs such reads (SQLite's reader threads, `DatabaseExecutor.runHeavy`).
   */
  async run<R>(db: Executor, owner: object, dialect: Dialect, statement: Statement<R>, one = false, heavy?: string): Promise<R[]> {
    const text = this.text(owner, dialect, statement);
    const executor = this.executor;
    if (heavy !== undefined && executor?.readers !== undefined && db === executor.kysely) return (await executor.runHeavy<R>(heavy, text.sql, text.params, one)) as R[];
    if (text.cached) {
      const rows = executor !== undefined && db === executor.kysely ? executor.run<R>(text.sql, text.params, one, text.query) : runSql<R>(db, text.sql, text.params, one, text.query);
      return Array.isArray(rows) ? rows : await rows;
    }
    return (await db.executeQuery<R>({ ...CompiledQuery.raw(text.sql), parameters: text.params })).rows;
  }

  /** Runs a statement the cache does not keep (built anew each time); `heavy` as in `run`. */
  async runCompiled<R>(db: Executor, query: CompiledQuery, heavy?: string): Promise<R[]> {
    const executor = this.executor;
    if (heavy !== undefined && executor?.readers !== undefined && db === executor.kysely) return (await executor.runHeavy<R>(heavy, query.sql, query.parameters)) as R[];
    return (await db.executeQuery<R>(query)).rows;
  }

  /**
   * The SQL text and values of a statement without running it (`run` runs them): the cached
   * text of its shape, or a fresh compile (kept as `run` describes). `cached`: the text came
   * from the cache (a fresh one has Kysely's own values); `query`, with a cached text, its raw CompiledQuery.
   */
  text<R>(owner: object, dialect: Dialect, statement: Statement<R>): { sql: string; params: readonly unknown[]; cached: boolean; query?: CompiledQuery } {
    let shapes = this.#byOwner.get(owner);
    if (shapes === undefined) {
      shapes = new Map();
      this.#byOwner.set(owner, shapes);
    }
    const pass = new SqlPass(dialect, false);
    statement(pass);
    const { key, params } = pass;
    const entry = shapes.get(key);
    if (entry) return { sql: entry.sql, params, cached: true, query: entry.query };
    const emitting = new SqlPass(dialect, true);
    const query = statement(emitting);
    if (query === undefined) throw new Error(`shape ${key}: an emitting pass built no statement`);
    const compiled = query.compile();
    if (entry === undefined && shapes.size < MAX_SHAPES_PER_COLLECTION) {
      const same =
        emitting.key === key &&
        compiled.parameters.length === params.length &&
        compiled.parameters.every((value, i) => Object.is(value, params[i]));
      shapes.set(key, same ? { sql: compiled.sql, query: CompiledQuery.raw(compiled.sql) } : null);
      if (same) this.names.register(compiled.sql);
    }
    return { sql: compiled.sql, params: compiled.parameters, cached: false };
  }

  /** How many shapes of a collection are cached, and how many were refused (tests expect none). */
  stats(owner: object): { cached: number; refused: number } {
    const entries = [...(this.#byOwner.get(owner)?.values() ?? [])];
    return { cached: entries.filter((entry) => entry !== null).length, refused: entries.filter((entry) => entry === null).length };
  }
}
