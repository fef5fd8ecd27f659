import { expressionBuilder, sql, type Kysely, type RawBuilder } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { SortTerm } from '../plan/bind-sort.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { ReadPlan } from '../plan/read-plan.js';
import type { Collection, Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { DIALECT_TRAITS } from './dialect-traits.js';
import { filterShape } from './filter-shape.js';
import { filterToSql } from './filter-sql.js';
import type { ShapeCache } from './query-cache.js';

/** Where a query runs: the pool, or a transaction (a Transaction is a Kysely too). */
export type Executor = Kysely<DynamicDb>;

/** Where a cached statement runs: the executor, its dialect and the shape cache (the store's unit of work is one). */
export interface SqlTarget {
  readonly db: Executor;
  readonly dialect: Dialect;
  readonly shapes: ShapeCache;
}

/** The scope filter of a collection reached through an association (TRUE when unrestricted). */
export type RelatedScope = (collection: Collection) => FilterNode;

export const UNSCOPED: RelatedScope = () => TRUE_NODE;

/** ` and <scope>` over `alias` inside a subquery, or nothing when the collection is unrestricted. */
function scopeCondition(scope: FilterNode, dialect: Dialect, alias: string): RawBuilder<unknown> {
  if (scope === TRUE_NODE) return sql``;
  return sql` and ${filterToSql(scope, expressionBuilder<DynamicDb, string>(), dialect, alias)}`;
}

/**
 * The value a sort term orders by: a column, or for `author.name` a scalar subquery through
 * the to-one relations (one row at most, so the outer rows are never repeated).
 */
function sortValue(term: SortTerm, table: string, dialect: Dialect, related: RelatedScope) {
  const path = term.path ?? [];
  const build = (index: number, outer: string): RawBuilder<unknown> => {
    if (index === path.length) return sql`${sql.ref(`${outer}.${term.field.name}`)}`;
    const relation = path[index]!;
    const alias = `s${index + 1}`;
    const inner = build(index + 1, alias);
    const target = sql.table(relation.target.name);
    const scope = scopeCondition(related(relation.target), dialect, alias);
    if (relation.type === 'belongsTo') {
      return sql`(select ${inner} from ${target} as ${sql.id(alias)} where ${sql.ref(`${alias}.${relation.targetColumn.name}`)} = ${sql.ref(`${outer}.${relation.sourceColumn.name}`)}${scope})`;
    }
    return sql`(select ${inner} from ${target} as ${sql.id(alias)} where ${sql.ref(`${alias}.${relation.targetColumn.name}`)} = ${sql.ref(`${outer}.${relation.sourceColumn.name}`)}${scope} order by ${sql.ref(`${alias}.${relation.target.primaryKey.name}`)} limit 1)`;
  };
  return build(0, table);
}

/** ORDER BY terms with NULLs last in both directions on every dialect. */
function orderTerms(order: readonly SortTerm[], dialect: Dialect, table: string, related: RelatedScope) {
  return order.flatMap((term) => {
    const value = sortValue(term, table, dialect, related);
    const direction = term.desc ? sql`desc` : sql`asc`;
    const nullable = term.field.nullable || (term.path?.length ?? 0) > 0;
    if (!nullable) return [sql`${value} ${direction}`];
    // MySQL has no NULLS LAST; sorting on `value is null` first gives the same order.
    if (!DIALECT_TRAITS[dialect].nullsLast) return [sql`${value} is null`, sql`${value} ${direction}`];
    return [sql`${value} ${direction} nulls last`];
  });
}

export function selectQuery(db: Executor, dialect: Dialect, plan: ReadPlan, related: RelatedScope = UNSCOPED) {
  let query = db.selectFrom(plan.collection.name).select(plan.select.map((field) => field.name));
  // No WHERE at all when nothing filters: SQLite counts a whole table from its b-tree only then.
  if (plan.where !== TRUE_NODE) query = query.where((eb) => filterToSql(plan.where, eb, dialect, plan.collection.name));
  for (const term of orderTerms(plan.order, dialect, plan.collection.name, related)) query = query.orderBy(term);
  // A literal LIMIT (a validated integer): SQLite runs `limit ?` about 3x slower on a key lookup.
  if (plan.limit !== undefined) query = query.limit(sql.lit(plan.limit));
  if (plan.offset !== undefined && plan.offset > 0) query = query.offset(plan.offset);
  return query;
}

/** The shape of a read plan and its parameters in binding order (where, limit, offset). */
function planShape(plan: ReadPlan, dialect: Dialect, related: RelatedScope): { shape: string; params: unknown[] } {
  const params: unknown[] = [];
  const where = filterShape(plan.where, dialect, params);
  const order = plan.order.map((term) => `${(term.path ?? []).map((r) => `${r.name}.`).join('')}${term.field.name}${term.desc ? '-' : '+'}${pathScopeShape(term, dialect, related, params)}`).join(',');
  const hasOffset = plan.offset !== undefined && plan.offset > 0;
  if (hasOffset) params.push(plan.offset);
  const select = plan.select.map((field) => field.name).join(',');
  return { shape: `s|${select}|${where}|${order}|${plan.limit ?? ''}|${hasOffset}`, params };
}

/**
 * The shapes and parameters of the scopes inside a sort term's subqueries, in binding order:
 * the innermost subquery sits in its parent's select list, so it binds first; MySQL repeats
 * a nullable term (`value is null`, `value`), so its values bind twice.
 */
function pathScopeShape(term: SortTerm, dialect: Dialect, related: RelatedScope, params: unknown[]): string {
  const path = term.path ?? [];
  if (path.length === 0) return '';
  const termParams: unknown[] = [];
  const shapes = [...path].reverse().map((relation) => {
    const scope = related(relation.target);
    return scope === TRUE_NODE ? '' : filterShape(scope, dialect, termParams);
  });
  params.push(...termParams);
  if (!DIALECT_TRAITS[dialect].nullsLast) params.push(...termParams);
  return shapes.some((shape) => shape !== '') ? `[${shapes.join(';')}]` : '';
}

export async function selectRows({ db, dialect, shapes }: SqlTarget, plan: ReadPlan, related: RelatedScope = UNSCOPED): Promise<Row[]> {
  const { shape, params } = planShape(plan, dialect, related);
  return shapes.run<Row>(db, plan.collection, shape, params, () => selectQuery(db, dialect, plan, related));
}

export async function countRows({ db, dialect, shapes }: SqlTarget, collection: Collection, where: FilterNode): Promise<number> {
  const params: unknown[] = [];
  const shape = `c|${filterShape(where, dialect, params)}`;
  const [row] = await shapes.run<{ count: unknown }>(db, collection, shape, params, () => {
    const query = db.selectFrom(collection.name).select(sql<unknown>`count(*)`.as('count'));
    return where === TRUE_NODE ? query : query.where((eb) => filterToSql(where, eb, dialect, collection.name));
  });
  return Number(row?.count ?? 0);
}
