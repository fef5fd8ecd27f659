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
  /**
   * Keyset paging: the canonical values of `order`'s terms on the last row already seen (NULL
   * allowed); only rows after it in that order are read.
   */
  after?: readonly unknown[];
  /** Also select each to-one path term's value as `sortValueAlias(i)`, for a next cursor. */
  selectSortValues?: boolean;
}

/** The column alias a read gives the value of sort term `index` when `selectSortValues` is set. */
export const sortValueAlias = (index: number): string => `__sort${index}`;
