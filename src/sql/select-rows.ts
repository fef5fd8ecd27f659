import { sql, type Kysely, type Transaction } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { SortTerm } from '../plan/bind-sort.js';
import type { FilterNode } from '../plan/filter-node.js';
import type { ReadPlan } from '../plan/read-plan.js';
import type { Collection, Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { filterToSql } from './filter-sql.js';

export type Executor = Kysely<DynamicDb> | Transaction<DynamicDb>;

/** ORDER BY terms with NULLs last in both directions on every dialect. */
function orderTerms(order: readonly SortTerm[], dialect: Dialect) {
  return order.flatMap(({ field, desc }) => {
    const ref = sql.ref(field.name);
    const direction = desc ? sql`desc` : sql`asc`;
    if (!field.nullable) return [sql`${ref} ${direction}`];
    // MySQL has no NULLS LAST; sorting on `col is null` first gives the same order.
    if (dialect === 'mysql') return [sql`${ref} is null`, sql`${ref} ${direction}`];
    return [sql`${ref} ${direction} nulls last`];
  });
}

export function selectQuery(db: Executor, dialect: Dialect, plan: ReadPlan) {
  let query = db
    .selectFrom(plan.collection.name)
    .select(plan.select.map((field) => field.name))
    .where((eb) => filterToSql(plan.where, eb, dialect, plan.collection.name));
  for (const term of orderTerms(plan.order, dialect)) query = query.orderBy(term);
  if (plan.limit !== undefined) query = query.limit(plan.limit);
  if (plan.offset !== undefined && plan.offset > 0) query = query.offset(plan.offset);
  return query;
}

export async function selectRows(db: Executor, dialect: Dialect, plan: ReadPlan): Promise<Row[]> {
  return (await selectQuery(db, dialect, plan).execute()) as Row[];
}

export async function countRows(db: Executor, dialect: Dialect, collection: Collection, where: FilterNode): Promise<number> {
  const row = await db
    .selectFrom(collection.name)
    .select(sql<unknown>`count(*)`.as('count'))
    .where((eb) => filterToSql(where, eb, dialect, collection.name))
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}
