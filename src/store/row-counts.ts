import { ApiError } from '../errors/api-error.js';
import type { FilterNode } from '../plan/filter-node.js';
import { TRUE_NODE } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { cappedCount, estimateCount } from '../sql/count-sql.js';
import { estimateSearchCount } from './search-count.js';
import { countRows } from '../sql/select-rows.js';
import type { UnitOfWork } from './unit-of-work.js';

/** CORRAL_EXACT_COUNT_LIMIT and CORRAL_MAX_OFFSET. */
export interface CountLimits {
  /** Counted exactly up to this many rows when the request does not say how; estimated above. */
  readonly exactLimit: number;
  /** The deepest offset page, in rows skipped. */
  readonly maxOffset: number;
}

export const DEFAULT_COUNT_LIMITS: CountLimits = { exactLimit: 100_000, maxOffset: 100_000 };

/** An estimate above this many times the exact limit is trusted to be above it: no capped count checks it. */
export const SURELY_ABOVE = 1.25;

/** A list's total: `estimated` when it is the database's estimate rather than a count. */
export interface RowTotal {
  readonly count: number;
  readonly estimated?: true;
}

/** How the request asked to count: as said (`exact`, `estimated`), or undefined for the configured default. */
export type CountRequest = 'exact' | 'estimated' | undefined;

/**
 * Counts list totals so that they scale (docs/querying.md#counts). A collection is counted
 * with `count(*)`, exactly as ever, until one of its counts passes the exact limit; from then
 * on (for the life of its compiled schema) a default count asks the dialect's estimator
 * first and, unless that says well above the limit (SURELY_ABOVE), counts at most
 * `exactLimit + 1` rows to answer exactly when it can. So a table known to be small costs no
 * extra statement, and a big one never a full count. Every count and estimate
 * runs on the caller's scoped statement.
 */
export class RowCounts {
  /** Collections (their compiled schema) seen holding more rows than the exact limit. */
  readonly #big = new WeakSet<Collection>();

  constructor(readonly limits: CountLimits = DEFAULT_COUNT_LIMITS) {}

  /** 400 PAGE_TOO_DEEP past CORRAL_MAX_OFFSET: the message points to cursor paging. */
  checkOffset(offset: number): void {
    const max = this.limits.maxOffset;
    if (offset <= max) return;
    throw new ApiError('PAGE_TOO_DEEP', `this page starts after row ${offset}, deeper than offset paging reaches (${max} rows, CORRAL_MAX_OFFSET): page with cursor= instead (start with cursor= empty, then pass meta.nextCursor)`, {
      field: 'page',
      details: { offset, max },
    });
  }

  /** How many rows of `collection` match `where` inside the caller's scope, counted or estimated as asked. */
  async total(unit: UnitOfWork, collection: Collection, where: FilterNode, mode: CountRequest): Promise<RowTotal> {
    unit.require(collection, 'view');
    if (mode !== 'exact') {
      // A common `$search` is estimated from a sample of its matches, cheaper than any plan.
      const search = await estimateSearchCount(unit, collection, where);
      if (search !== undefined) return search.estimated ? { count: search.count, estimated: true } : { count: search.count };
    }
    const scoped = unit.where(collection, where);
    if (mode === 'estimated') return estimated(unit, collection, scoped);
    const limit = this.limits.exactLimit;
    if (mode === undefined && this.#big.has(collection)) {
      // The estimate first: when it is well above the limit, no row is counted at all.
      const estimate = await estimated(unit, collection, scoped);
      if (estimate.estimated === undefined) return estimate;
      if (estimate.count <= limit * SURELY_ABOVE) {
        const n = await cappedCount(unit, collection, scoped, limit + 1);
        if (n <= limit) {
          // The whole table fits under the limit again: back to plain counts.
          if (scoped === TRUE_NODE) this.#big.delete(collection);
          return { count: n };
        }
      }
      // More than the limit match: an estimate below that is known to be wrong.
      return { count: Math.max(estimate.count, limit + 1), estimated: true };
    }
    const n = await countRows(unit, collection, scoped);
    if (n > limit) this.#big.add(collection);
    return { count: n };
  }
}

async function estimated(unit: UnitOfWork, collection: Collection, scoped: FilterNode): Promise<RowTotal> {
  const estimate = await estimateCount(unit, collection, scoped);
  return estimate.exact ? { count: estimate.n } : { count: estimate.n, estimated: true };
}
