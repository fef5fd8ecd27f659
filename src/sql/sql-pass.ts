import { expressionBuilder, sql, type Compilable, type ExpressionBuilder, type RawBuilder } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import { adapterOf } from '../db/dialects/adapters.js';
import type { DialectAdapter } from '../db/dialects/dialect-adapter.js';
import type { Dialect } from '../schema/types.js';

export type Eb = ExpressionBuilder<DynamicDb, string>;

const EB: Eb = expressionBuilder<DynamicDb, string>();

/**
 * What a key-only pass returns where an emitting pass returns SQL. Never compiled: a writer
 * returns it only when `pass.emit` is false, and then nothing builds a query from it.
 */
export const KEY_ONLY: RawBuilder<never> = sql<never>``;

/**
 * One walk over a statement, the only place its shape key is written. Every writer (filter
 * nodes in `filter-sql.ts` and `filter-operators.ts`, the read statement in `select-rows.ts`,
 * the writes in `store/`) handles one part of the statement in one place: it appends that
 * part's key fragment (everything but the values that decides the SQL text), pushes the
 * part's driver values in the order the SQL binds them, and, when `emit` is set, builds the
 * Kysely SQL from those same values (otherwise it returns `KEY_ONLY`). So two statements with
 * one key have one SQL text, and the key cannot drift from the SQL.
 *
 * The shape cache runs a statement's writer once without `emit` (key and values only: no
 * Kysely object, no closure per node) and, only when the key is new, once more with `emit`
 * to compile it; that run's key must come out the same.
 */
export class SqlPass {
  /** The shape key written so far. */
  key = '';
  /** Driver values in binding order. */
  readonly params: unknown[] = [];
  /** Subquery aliases handed out inside the filter being written (`r1`, `l2`, …). */
  aliases = 0;
  /** The dialect's operator SQL and capabilities, looked up once per pass. */
  readonly adapter: DialectAdapter;

  constructor(
    readonly dialect: Dialect,
    readonly emit: boolean,
    readonly eb: Eb = EB,
  ) {
    this.adapter = adapterOf(dialect);
  }

  /** A driver value bound as a parameter: pushed, and as SQL `?` when emitting. */
  value(value: unknown): RawBuilder<unknown> {
    this.params.push(value);
    return this.emit ? sql`${value}` : KEY_ONLY;
  }
}

/**
 * A statement written by one pass: its key and values always, its Kysely query when the pass
 * emits (`undefined` otherwise).
 */
export type Statement<R> = (pass: SqlPass) => Compilable<R> | undefined;
