import type { Compilable } from 'kysely';
import type { Collection } from '../schema/collection.js';
import type { Executor } from './select-rows.js';
import type { SqlPass } from './sql-pass.js';

/** What the event of a fused write says it did. */
export type FusedAction = 'create' | 'update' | 'destroy';

/**
 * Turns a one-row `INSERT/UPDATE/DELETE … RETURNING` of the visible columns into one statement that
 * also writes the row's change event (PostgreSQL: a data-modifying CTE into the pending
 * table), compiled on `db`. Like any writer it appends to the pass's key and values; `write` is undefined on
 * a key-only pass, and so is the result.
 */
export type FuseWrite = <R>(
  pass: SqlPass,
  db: Executor,
  collection: Collection,
  action: FusedAction,
  write: Compilable<R> | undefined,
  /** The event's time (ms since the epoch), one value for both passes of a statement. */
  at: number,
) => Compilable<R> | undefined;

/**
 * The outbox of one unit whose flat write carries its own event: the statement writers call
 * `fuse` and count what they fused, so the store can check that no change went without its
 * event (there is no transaction to write it in afterwards).
 */
export class FusedWrites {
  /** Rows written with their event fused in (each writer adds the rows its statement returned). */
  events = 0;
  /** When the unit wrote, as the outbox hook takes it once per unit. */
  readonly #at = Date.now();
  readonly #fuse: FuseWrite;

  constructor(fuse: FuseWrite) {
    this.#fuse = fuse;
  }

  /** `write` (undefined on a key-only pass) with its event fused in. */
  statement<R>(pass: SqlPass, db: Executor, collection: Collection, action: FusedAction, write: Compilable<R> | undefined): Compilable<R> | undefined {
    return this.#fuse(pass, db, collection, action, write, this.#at);
  }
}
