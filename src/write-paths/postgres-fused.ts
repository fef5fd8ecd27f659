import { sql, type Compilable } from 'kysely';
import { CHANGES_PENDING_TABLE } from '../changes/changes-table.js';
import { eventEncoder } from '../changes/event-encoder.js';
import type { Collection } from '../schema/collection.js';
import type { Executor } from '../sql/select-rows.js';
import type { SqlPass } from '../sql/sql-pass.js';
import type { WriteFastPath } from '../store/write-fast-path.js';
import type { PostgresFusedMode, WriteAction } from '../store/write-mode.js';

/**
 * PostgreSQL's fast path: the outbox insert of a flat one-row write inside the write's own statement,
 *
 *   with w as (insert … returning <visible>),
 *        e as (insert into corral_changes_pending (…) select $coll, 'create', <key>, <data>, $at from w)
 *   select * from w
 *
 * one autocommitted round trip instead of BEGIN, the write, the outbox insert and COMMIT.
 * The event's `key` and `data` are the SQL back end of the collection's event encoder
 * (event-encoder.ts), the same texts the outbox hook writes. The pending rows are numbered by
 * publishPending like any other. A collection whose event SQL cannot render keeps the transaction.
 */
export const postgresFusedWrites: WriteFastPath = {
  unit: (collection) => (eventEncoder(collection).sql === undefined ? undefined : new FusedUnit()),
};

/**
 * One unit's fused writes: the statement writers wrap their write and count what they fused,
 * so the store can check that no change went without its event (there is no transaction to
 * write it in afterwards).
 */
class FusedUnit implements PostgresFusedMode {
  readonly kind = 'postgres-fused';
  events = 0;
  /** When the unit wrote, as the outbox hook takes it once per unit: one value for both passes of a statement. */
  readonly #at = Date.now();

  /** Like any writer it appends to the pass's key and values; `write` is undefined on a key-only pass, and so is the result. */
  statement<R>(pass: SqlPass, db: Executor, collection: Collection, action: WriteAction, write: Compilable<R> | undefined): Compilable<R> | undefined {
    pass.key += `|o${action}`;
    const name = pass.value(collection.name);
    const when = pass.value(this.#at);
    if (write === undefined) return undefined;
    const { key, data } = eventEncoder(collection).sql!;
    const statement = sql`with w as (${write}), e as (insert into ${sql.table(CHANGES_PENDING_TABLE)} (collection, action, key, data, at) select ${name}, ${sql.lit(action)}, ${key}, ${data}, cast(${when} as bigint) from w) select * from w`;
    return { compile: () => statement.compile(db) as ReturnType<Compilable<R>['compile']> };
  }
}
