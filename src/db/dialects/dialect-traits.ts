import type { Dialect } from '../dialect.js';

/**
 * What a dialect can do, asked by `sql/` and `store/` instead of comparing dialect names
 * (each dialect adapter in db/dialects/ carries its traits beside its DDL, operator SQL and
 * value encodings). A new dialect fails to compile until it is here.
 */
export interface DialectTraits {
  /** INSERT/UPDATE/DELETE … RETURNING (MySQL has none: read back or select first). */
  readonly returning: boolean;
  /** SELECT … FOR UPDATE (SQLite serialises writers itself and has none). */
  readonly rowLocks: boolean;
  /** ORDER BY … NULLS LAST (MySQL sorts on `value is null` first instead). */
  readonly nullsLast: boolean;
  /** The false literal inside COALESCE of a condition (PostgreSQL has a boolean type). */
  readonly falseLiteral: 'false' | '0';
  /** An explicit id does not move the identity sequence: bump it after such an insert. */
  readonly bumpIdentity: boolean;
  /** Streams through a server-side cursor on its own pooled connection (SQLite has one connection: it pages instead). */
  readonly cursorStreams: boolean;
  /** Reports deadlocks at once, so a conflicting write is retried (SQLite has already waited busy_timeout). */
  readonly retryConflicts: boolean;
  /**
   * `$search` words that are all common intersect inside the token table (each word's
   * subquery nested in the next, rarest innermost) before the rows are joined: PostgreSQL
   * then hashes token lists instead of semi-joining the whole table per word. SQLite probes
   * an IN list per word faster (measured: docs/performance.md).
   */
  readonly nestSearchWords: boolean;
}

export const DIALECT_TRAITS: Record<Dialect, DialectTraits> = {
  sqlite: { returning: true, rowLocks: false, nullsLast: true, falseLiteral: '0', bumpIdentity: false, cursorStreams: false, retryConflicts: false, nestSearchWords: false },
  postgres: { returning: true, rowLocks: true, nullsLast: true, falseLiteral: 'false', bumpIdentity: true, cursorStreams: true, retryConflicts: true, nestSearchWords: true },
  mysql: { returning: false, rowLocks: true, nullsLast: false, falseLiteral: '0', bumpIdentity: false, cursorStreams: true, retryConflicts: true, nestSearchWords: false },
};
