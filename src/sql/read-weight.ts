import type { SortTerm } from '../plan/bind-sort.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { ReadPlan } from '../plan/read-plan.js';
import type { Collection, Field } from '../schema/collection.js';

/**
 * Rows an offset page may step over and still count as a light read: past this the database
 * visits every skipped row (`page=450` of 20 rows visits 9,000).
 */
export const DEEP_OFFSET = 1000;

/**
 * Which reads may be heavy: a statement whose cost grows with the table rather than with the
 * page. Where the dialect runs such reads away from the event loop (SQLite's reader threads,
 * database-executor.ts), they go there; light reads stay where they are, because the hop
 * costs more than they do (docs/performance.md). The rule, from the plan alone:
 * - light: a filter that pins the collection's key (`get`, `key in (…)`, also ANDed with a
 *   scope), or no filter at all with an indexed first sort term (the key, a unique or indexed
 *   field, no association path), a limit, and an offset of at most DEEP_OFFSET rows; an
 *   unfiltered count (SQLite counts from the b-tree);
 * - heavy: everything else: any other filter (`$search` and scopes included), deep offsets,
 *   sorts on unindexed fields or through associations, unlimited reads, filtered counts and
 *   every aggregate (`:query`).
 */
export function selectMayBeHeavy(plan: ReadPlan): boolean {
  if (pinsKey(plan.collection, plan.where)) return false;
  if (plan.where !== TRUE_NODE || plan.limit === undefined || (plan.offset ?? 0) > DEEP_OFFSET) return true;
  return !indexedOrder(plan.collection, plan.order);
}

/** A count may be heavy unless it counts the whole table or pins the key (see `selectMayBeHeavy`). */
export function countMayBeHeavy(collection: Collection, where: FilterNode): boolean {
  return where !== TRUE_NODE && !pinsKey(collection, where);
}

/** The filter matches at most the rows of a list of keys: the key compared for equality, or in a list. */
function pinsKey(collection: Collection, where: FilterNode): boolean {
  switch (where.kind) {
    case 'compare':
      return where.op === 'eq' && where.field === collection.key;
    case 'in':
      return !where.negate && where.field === collection.key;
    case 'and':
      return where.items.some((item) => pinsKey(collection, item));
    default:
      return false;
  }
}

function indexedOrder(collection: Collection, order: readonly SortTerm[]): boolean {
  if (order.some((term) => (term.path?.length ?? 0) > 0)) return false;
  const first = order[0];
  return first === undefined || indexed(collection, first.field);
}

function indexed(collection: Collection, field: Field): boolean {
  return field === collection.key || field === collection.primaryKey || field.def.unique || field.def.index;
}
