import { CompiledQuery, type Compilable } from 'kysely';
import { directReaderOf } from '../db/direct-reader.js';
import type { StatementNames } from '../db/statement-names.js';
import type { Executor } from './select-rows.js';

/** Shapes remembered per collection; beyond this a shape is compiled each time (still correct). */
export const MAX_SHAPES_PER_COLLECTION = 500;

/** SQL text of a shape, or null when Kysely's parameters did not match ours (never cached). */
type Entry = { sql: string } | null;

/**
 * Compiled SQL by query *shape* (the statement without its values), owned by the store.
 * Keyed first by the compiled Collection, so a schema change (a new snapshot) starts afresh.
 * Each text it keeps is registered with the database's statement names, so PostgreSQL runs
 * it as a named prepared statement.
 */
export class ShapeCache {
  readonly #byOwner = new WeakMap<object, Map<string, Entry>>();

  constructor(private readonly names: StatementNames) {}

  /**
   * Runs a statement of a known shape (a read, or one autocommit write): the first time
   * through Kysely (build, compile), after that from the cached SQL text with only the values
   * bound. The cache checks itself: a shape is kept only if the parameters `params` (computed
   * by the caller from the plan) equal what Kysely bound, so a wrong parameter order can never
   * reach the database. `one`: the statement yields at most one row (see DirectReader).
   */
  async run<R>(db: Executor, owner: object, shape: string, params: readonly unknown[], build: () => Compilable<R>, one = false): Promise<R[]> {
    let shapes = this.#byOwner.get(owner);
    if (shapes === undefined) {
      shapes = new Map();
      this.#byOwner.set(owner, shapes);
    }
    const entry = shapes.get(shape);
    if (entry) {
      const rows = directReaderOf(db)?.(entry.sql, params, one);
      if (rows !== undefined) return rows as R[];
      return (await db.executeQuery<R>(CompiledQuery.raw(entry.sql, [...params]))).rows;
    }
    const compiled = build().compile();
    if (entry === undefined && shapes.size < MAX_SHAPES_PER_COLLECTION) {
      const same = compiled.parameters.length === params.length && compiled.parameters.every((value, i) => Object.is(value, params[i]));
      shapes.set(shape, same ? { sql: compiled.sql } : null);
      if (same) this.names.register(compiled.sql);
    }
    return (await db.executeQuery<R>(compiled)).rows;
  }

  /** How many shapes of a collection are cached, and how many were refused (tests expect none). */
  stats(owner: object): { cached: number; refused: number } {
    const entries = [...(this.#byOwner.get(owner)?.values() ?? [])];
    return { cached: entries.filter((entry) => entry !== null).length, refused: entries.filter((entry) => entry === null).length };
  }
}
