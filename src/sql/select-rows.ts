import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { SortTerm } from '../plan/bind-sort.js';
import type { FilterNode } from '../plan/filter-node.js';
import type { ReadPlan } from '../plan/read-plan.js';
import type { Collection, Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { filterToSql } from './filter-sql.js';

export type Executor = Kysely<DynamicDb> | Transaction<DynamicDb>;

/**
 * The value a sort term orders by: a column, or for `author.name` a scalar subquery through
 * the to-one relations (one row at most, so the outer rows are never repeated).
 */
function sortValue(term: SortTerm, table: string) {
  const path = term.path ?? [];
  const build = (index: number, outer: string): RawBuilder<unknown> => {
    if (index === path.length) return sql`${sql.ref(`${outer}.${term.field.name}`)}`;
    const relation = path[index]!;
    const alias = `s${index + 1}`;
    const inner = build(index + 1, alias);
    const target = sql.table(relation.target.name);
    if (relation.type === 'belongsTo') {
      return sql`(select ${inner} from ${target} as ${sql.id(alias)} where ${sql.ref(`${alias}.${relation.targetKey!.name}`)} = ${sql.ref(`${outer}.${relation.foreignKey.name}`)})`;
    }
    return sql`(select ${inner} from ${target} as ${sql.id(alias)} where ${sql.ref(`${alias}.${relation.foreignKey.name}`)} = ${sql.ref(`${outer}.${relation.sourceKey!.name}`)} order by ${sql.ref(`${alias}.${relation.target.primaryKey.name}`)} limit 1)`;
  };
  return build(0, table);
}

/** ORDER BY terms with NULLs last in both directions on every dialect. */
function orderTerms(order: readonly SortTerm[], dialect: Dialect, table: string) {
  return order.flatMap((term) => {
    const value = sortValue(term, table);
    const direction = term.desc ? sql`desc` : sql`asc`;
    const nullable = term.field.nullable || (term.path?.length ?? 0) > 0;
    if (!nullable) return [sql`${value} ${direction}`];
    // MySQL has no NULLS LAST; sorting on `value is null` first gives the same order.
    if (dialect === 'mysql') return [sql`${value} is null`, sql`${value} ${direction}`];
    return [sql`${value} ${direction} nulls last`];
  });
}

export function selectQuery(db: Executor, dialect: Dialect, plan: ReadPlan) {
  let query = db
    .selectFrom(plan.collection.name)
    .select(plan.select.map((field) => field.name))
    .where((eb) => filterToSql(plan.where, eb, dialect, plan.collection.name));
  for (const term of orderTerms(plan.order, dialect, plan.collection.name)) query = query.orderBy(term);
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
