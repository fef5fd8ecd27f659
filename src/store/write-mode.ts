import type { Compilable } from 'kysely';
import type { Collection, Row } from '../schema/collection.js';
import type { DialectTraits } from '../db/dialects/dialect-traits.js';
import type { Executor } from '../sql/select-rows.js';
import type { SqlPass } from '../sql/sql-pass.js';
import type { ReferenceSource } from './cascades.js';
import { isSearchable } from './search-index.js';
import type { WriteFastPath } from './write-fast-path.js';

/** What a statement's change event says it did. */
export type WriteAction = 'create' | 'update' | 'destroy';

/**
 * What an action's write does, as far as choosing how it runs needs: the action states the
 * facts, the store decides (writePlan, chooseWriteMode). No dialect trait reaches an action.
 */
export type WriteFacts =
  | { readonly action: 'create'; readonly items: number; readonly associations: boolean; readonly sortFields: boolean }
  | {
      readonly action: 'update';
      /** One key of the collection's unique key, with no scope from a route around it. */
      readonly oneKey: boolean;
      readonly associations: boolean;
      /** Some column value is set (else the general update reads and answers the row). */
      readonly values: boolean;
      readonly ifMatch: boolean;
    }
  | { readonly action: 'destroy'; readonly oneKey: boolean; readonly ifMatch: boolean };

/**
 * How the store runs one unit of work:
 * - `transaction`: BEGIN, the work, the beforeCommit hooks (the outbox), COMMIT.
 * - `single-statement`: the work is one statement, atomic by itself, and no beforeCommit
 *   hook needs a transaction: it autocommits.
 * - `sqlite-direct`: one flat statement, its outbox event and the commit, synchronously on
 *   SQLite's connection (the outbox is the only hook).
 * - `postgres-fused`: one flat statement that writes its own outbox event (a data-modifying
 *   CTE), autocommitted (the outbox is the only hook).
 * The last two come from the WriteFastPath the store was given (write-fast-path.ts).
 */
export type WriteMode = TransactionMode | SingleStatementMode | SqliteDirectMode | PostgresFusedMode;

export interface TransactionMode {
  readonly kind: 'transaction';
}

export interface SingleStatementMode {
  readonly kind: 'single-statement';
}

export const TRANSACTION: TransactionMode = { kind: 'transaction' };
export const SINGLE_STATEMENT: SingleStatementMode = { kind: 'single-statement' };

/** A unit of the SQLite fast path: its one statement runs once, with everything its commit needs. */
export interface SqliteDirectMode {
  readonly kind: 'sqlite-direct';
  /**
   * Runs the unit's write statement (`sql` with `params`, at most one row), its event and the
   * commit synchronously, and returns its rows (the caller records them). Throws
   * DirectWriteUnavailable, having run nothing, when the connection is busy.
   */
  run(collection: Collection, kind: 'created' | 'updated', sql: string, params: readonly unknown[]): Row[];
}

/** A unit of the PostgreSQL fast path: the statement writers wrap their write so it writes its event too. */
export interface PostgresFusedMode {
  readonly kind: 'postgres-fused';
  /** Rows written with their event fused in (each writer adds the rows its statement returned). */
  events: number;
  /** `write` (undefined on a key-only pass) with its event fused in. */
  statement<R>(pass: SqlPass, db: Executor, collection: Collection, action: WriteAction, write: Compilable<R> | undefined): Compilable<R> | undefined;
}

/** A write plan: whether the work is one statement, atomic by itself. Shared constants: no allocation per write. */
export interface WritePlan {
  readonly oneStatement: boolean;
  /** A bulk write (an import): refused on the collections whose rows carry grants (GRANT_COLLECTIONS). */
  readonly bulk?: true;
}

const ONE_STATEMENT: WritePlan = { oneStatement: true };
const MANY_STATEMENTS: WritePlan = { oneStatement: false };
/** A write that states no facts (links, moves, nested creates of other routes): always a transaction. */
export const GENERAL_WRITE: WritePlan = MANY_STATEMENTS;
/** An import: many statements in one transaction, refused on collections whose rows carry grants. */
export const IMPORT_WRITE: WritePlan = Object.freeze({ oneStatement: false, bulk: true as const });

/**
 * Whether a write is one `INSERT/UPDATE/DELETE … RETURNING`, atomic by itself: one flat row
 * (no association values, no sort field to fill), an update of one key with flat values, a
 * destroy of one key of a collection no reference points at (deleting may cascade). MySQL has
 * no RETURNING (it reads the row back), so its writes keep their transaction.
 */
export function writePlan(facts: WriteFacts, traits: DialectTraits, collection: Collection, references: ReferenceSource | undefined): WritePlan {
  if (!traits.returning) return MANY_STATEMENTS;
  switch (facts.action) {
    case 'create':
      return facts.items === 1 && !facts.associations && !facts.sortFields ? ONE_STATEMENT : MANY_STATEMENTS;
    case 'update':
      return !facts.ifMatch && facts.oneKey && !facts.associations && facts.values ? ONE_STATEMENT : MANY_STATEMENTS;
    case 'destroy':
      return !facts.ifMatch && facts.oneKey && (references?.(collection).length ?? 0) === 0 ? ONE_STATEMENT : MANY_STATEMENTS;
  }
}

/** The store's outbox hook and the fast path given with it (Store.outbox). */
export interface OutboxSlot {
  readonly hook: unknown;
  readonly fast: WriteFastPath | undefined;
}

/**
 * The one place a unit's mode is chosen, from the write's plan and the store's beforeCommit
 * `hooks` now: a one-statement plan on a collection without a `$search` index (which the
 * store writes inside a transaction) takes the fast path's mode when the outbox is the only
 * hook and the fast path takes the write, autocommits when there is no hook at all, and
 * otherwise, like every other plan, runs in a transaction. A table Corral did not create
 * (`managed: false`) never takes a fast path: they are written for Corral's own tables.
 */
export function chooseWriteMode(plan: WritePlan, collection: Collection, hooks: readonly unknown[], outbox: OutboxSlot | undefined): WriteMode {
  if (!plan.oneStatement || isSearchable(collection)) return TRANSACTION;
  if (outbox?.fast !== undefined && collection.managed && hooks.length === 1 && hooks[0] === outbox.hook) {
    const mode = outbox.fast.unit(collection);
    if (mode !== undefined) return mode;
  }
  return hooks.length === 0 ? SINGLE_STATEMENT : TRANSACTION;
}
