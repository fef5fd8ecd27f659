import type { Collection } from '../schema/collection.js';
import type { PostgresFusedMode, SqliteDirectMode } from './write-mode.js';

/**
 * How a one-statement write carries its outbox event without a transaction, given to the
 * store with the outbox hook (Store.outbox) by whoever composes the app: SQLite's direct unit
 * (write-paths/sqlite-direct.ts) or PostgreSQL's fused statement (write-paths/postgres-fused.ts).
 * The store owns this interface and the modes; the implementations know the outbox tables.
 */
export interface WriteFastPath {
  /**
   * A fresh mode for one unit writing `collection` in one statement while the outbox is the
   * store's only beforeCommit hook; undefined when this fast path does not take the write
   * (the unit then runs in a transaction).
   */
  unit(collection: Collection): SqliteDirectMode | PostgresFusedMode | undefined;
}

/**
 * Thrown by a fast-path unit, before it ran anything, when it cannot run now (SQLite: the
 * connection has a transaction open, or is paused for a schema change): the store then runs
 * the same work in a transaction.
 */
export class DirectWriteUnavailable extends Error {
  constructor() {
    super('the SQLite connection has a transaction open');
  }
}
