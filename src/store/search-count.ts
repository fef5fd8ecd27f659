import { and, type FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { ADAPTERS } from '../db/dialects/adapters.js';
import { canonical } from './canonical.js';
import { countRows, readRows } from './read-rows.js';
import type { UnitOfWork } from './unit-of-work.js';

/** A list's total: exact, or estimated (`meta.countEstimated`). */
export interface ListCount {
  count: number;
  estimated: boolean;
}

/**
 * The count of a list whose top-level `$search` is common (store/search-stats.ts: every word
 * in a large share of the rows), without reading every match; undefined for any other filter
 * (count it exactly). Every read is inside the caller's scope, so the answer says nothing of
 * rows the caller cannot see:
 * - the first SEARCH_SAMPLE_ROWS matches in primary-key order (a walk that stops there); fewer
 *   means that is all of them, an exact count;
 * - else the matches' share of the rows the rest of the filter keeps up to the last sampled
 *   key (a count over a short key range), times the rows the rest of the filter keeps: the
 *   table's row estimate (PostgreSQL, MySQL statistics) when neither a filter nor the caller's
 *   scope narrows the collection, else counted.
 */
export async function estimateSearchCount(unit: UnitOfWork, collection: Collection, where: FilterNode): Promise<ListCount | undefined> {
  const stats = unit.searchStats;
  if (stats === undefined) return undefined;
  const items = conjuncts(where);
  const common = items.some((item) => {
    if (item.kind !== 'search') return false;
    const arranged = stats.arrange(item, true);
    return arranged.kind === 'search' && arranged.common === true;
  });
  if (!common) return undefined;
  const key = collection.primaryKey;
  const { sampleRows } = stats.limits;
  const sample = await readRows(unit, { collection, where, select: [key], order: [{ field: key, desc: false }], limit: sampleRows });
  const last = sample[sampleRows - 1];
  if (last === undefined) return { count: sample.length, estimated: false };
  const rest = and(items.filter((item) => item.kind !== 'search'));
  const upTo: FilterNode = { kind: 'compare', field: key, op: 'lte', value: canonical(key, last[key.name], unit.dialect) };
  const walked = await countRows(unit, collection, and([rest, upTo]));
  const total = (await tableEstimate(unit, collection, rest)) ?? (await countRows(unit, collection, rest));
  return { count: Math.max(sampleRows, Math.round((total * sampleRows) / Math.max(walked, sampleRows))), estimated: true };
}

/** The conditions ANDed at the top of a filter (nested ANDs flattened). */
function conjuncts(node: FilterNode): FilterNode[] {
  return node.kind === 'and' ? node.items.flatMap(conjuncts) : [node];
}

/** The database's row estimate of the collection's table when nothing narrows the rows (`rest` and the caller's scope both TRUE). */
async function tableEstimate(unit: UnitOfWork, collection: Collection, rest: FilterNode): Promise<number | undefined> {
  if (!isTrue(rest) || !isTrue(unit.scopeOf(collection))) return undefined;
  const query = ADAPTERS[unit.dialect].ddl.estimatedRows(collection.name);
  if (query === undefined) return undefined;
  const n = Number((await query.execute(unit.db)).rows[0]?.n ?? Number.NaN);
  return Number.isFinite(n) && n > 0 ? Math.round(n) : undefined;
}

function isTrue(node: FilterNode): boolean {
  return node.kind === 'const' && node.value;
}
