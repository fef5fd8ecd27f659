import type { FilterNode } from '../plan/filter-node.js';
import type { Collection, Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import type { FusedWrites } from '../sql/fused-write.js';
import type { ShapeCache } from '../sql/query-cache.js';
import type { Executor, SqlTarget } from '../sql/select-rows.js';
import { canonical } from './canonical.js';
import type { ReferenceSource } from './cascades.js';
import { ChangeSet, type ChangeKind } from './change-set.js';
import { scoped, scopeWhere, type Scopes } from './scope.js';
import type { SearchStats } from './search-stats.js';

/**
 * Runs with the change set of a unit of work: `beforeCommit` inside its transaction (an
 * outbox insert commits or rolls back with the data), `afterCommit` once it committed.
 */
export type CommitHook = (changes: ChangeSet, unit: UnitOfWork) => void | Promise<void>;

/**
 * Runs a unit's one write statement (`sql` with `params`, at most one row) together with
 * everything its commit needs, synchronously, and returns its rows; the caller records them.
 * Set on the SQLite fast path (changes/sqlite-direct-write.ts).
 */
export type OneWrite = (collection: Collection, kind: 'created' | 'updated', sql: string, params: readonly unknown[]) => Row[];

/**
 * One read or one write: where its statements run (the pool, or the write's transaction),
 * the caller's scopes, and what it changed. Every statement the store runs takes a unit.
 */
export class UnitOfWork implements SqlTarget {
  readonly changes = new ChangeSet();
  /** Given by the store for a flat write whose statement writes its own event (store.ts). */
  fused: FusedWrites | undefined;
  readonly #beforeCommit: CommitHook[] = [];
  readonly #afterCommit: CommitHook[] = [];

  constructor(
    readonly db: Executor,
    readonly dialect: Dialect,
    readonly scopes: Scopes,
    /** The request this unit serves, for logs. */
    readonly requestId: string,
    /** Compiled statements by shape (the store's). */
    readonly shapes: ShapeCache,
    /** Orders `$search` words rarest first (the store's). */
    readonly searchStats?: SearchStats,
    /** Given, deletes record whole rows (before) and the rows the database cascades to. */
    readonly references?: ReferenceSource,
    /** Given, the unit's one write statement runs through it (with its commit work). */
    readonly oneWrite?: OneWrite,
  ) {}

  /**
   * `where` over `collection`, narrowed to the caller's scopes (its own and every association
   * path's), with the words of every `$search` ordered rarest first.
   */
  where(collection: Collection, where: FilterNode): FilterNode {
    const narrowed = scoped(this.scopes, collection, where);
    return this.searchStats === undefined ? narrowed : this.searchStats.arrange(narrowed);
  }

  /** The scope filter of one collection alone (TRUE when unrestricted). */
  readonly scopeOf = (collection: Collection): FilterNode => scopeWhere(this.scopes, collection);

  /** Records a changed row by its key (the collection's filterTargetKey, read from the driver row). */
  record(collection: Collection, kind: ChangeKind, row: Row): void {
    const key = collection.key;
    this.changes.record(collection.name, kind, canonical(key, row[key.name], this.dialect), row);
  }

  beforeCommit(hook: CommitHook): void {
    this.#beforeCommit.push(hook);
  }

  afterCommit(hook: CommitHook): void {
    this.#afterCommit.push(hook);
  }

  /** Hooks registered on this unit (the store adds its own). */
  hooks(): { before: readonly CommitHook[]; after: readonly CommitHook[] } {
    return { before: this.#beforeCommit, after: this.#afterCommit };
  }
}
