import type { Collection, Field } from '../schema/collection.js';
import type { SortTerm } from './bind-sort.js';
import type { FilterNode } from './filter-node.js';

/** Everything a read needs, bound to the schema; `sql/select-rows.ts` turns it into SQL. */
export interface ReadPlan {
  collection: Collection;
  where: FilterNode;
  select: readonly Field[];
  order: readonly SortTerm[];
  limit?: number;
  offset?: number;
}
