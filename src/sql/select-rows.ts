import { expressionBuilder, sql, type Kysely, type RawBuilder } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { SortTerm } from '../plan/bind-sort.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import { sortValueAlias, type ReadPlan } from '../plan/read-plan.js';
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
export function sortValue(term: SortTerm, table: string, dialect: Dialect, related: RelatedScope) {
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

/**
 * Rows strictly after the row whose sort values are `after`, in the order `orderTerms`
 * produces (NULLs last in both directions): some term is past the cursor's value while every
 * earlier term ties with it. A NULL value ties only with NULL and nothing non-NULL comes
 * after it; a non-NULL value is followed by larger (or smaller, descending) values and then
 * NULLs. Built with its parameters in binding order, for the shape cache.
 */
function keysetCondition(
  order: readonly SortTerm[],
  after: readonly unknown[],
  dialect: Dialect,
  table: string,
  related: RelatedScope,
): { condition: RawBuilder<unknown>; shape: string; params: unknown[] } {
  const params: unknown[] = [];
  const shapes: string[] = [];
  const value = (index: number) => {
    const term = order[index]!;
    params.push(...pathScope(term, dialect, related).params);
    return sortValue(term, table, dialect, related);
  };
  const bind = (term: SortTerm, canonical: unknown) => {
    const v = term.field.type.toDb(canonical, dialect);
    params.push(v);
    return sql`${v}`;
  };
  const nullable = (term: SortTerm) => term.field.nullable || (term.path?.length ?? 0) > 0;
  const disjuncts: RawBuilder<unknown>[] = [];
  for (let i = 0; i < order.length; i++) {
    const term = order[i]!;
    const v = after[i];
    if (v === null || v === undefined) continue;
    const parts: RawBuilder<unknown>[] = [];
    for (let j = 0; j < i; j++) {
      const w = after[j];
      parts.push(w === null || w === undefined ? sql`${value(j)} is null` : sql`${value(j)} = ${bind(order[j]!, w)}`);
    }
    const operator = term.desc ? sql`<` : sql`>`;
    if (nullable(term)) {
      const past = sql`${value(i)} ${operator} ${bind(term, v)}`;
      parts.push(sql`(${past} or ${value(i)} is null)`);
    } else {
      parts.push(sql`${value(i)} ${operator} ${bind(term, v)}`);
    }
    disjuncts.push(sql`(${sql.join(parts, sql` and `)})`);
  }
  for (let i = 0; i < order.length; i++) shapes.push(after[i] === null || after[i] === undefined ? 'n' : 'v');
  if (disjuncts.length === 0) return { condition: sql`1 = 0`, shape: `k${shapes.join('')}`, params: [] };
  // A range on the first term lets the database seek its index instead of testing every row.
  const first = order[0]!;
  const firstValue = after[0];
  let lead = sql``;
  const leadParams: unknown[] = [];
  if (!nullable(first) && firstValue !== null && firstValue !== undefined) {
    const saved = params.length;
    lead = sql`${value(0)} ${first.desc ? sql`<=` : sql`>=`} ${bind(first, firstValue)} and `;
    leadParams.push(...params.splice(saved));
  }
  return { condition: sql`(${lead}(${sql.join(disjuncts, sql` or `)}))`, shape: `k${shapes.join('')}`, params: [...leadParams, ...params] };
}

export function selectQuery(db: Executor, dialect: Dialect, plan: ReadPlan, related: RelatedScope = UNSCOPED) {
  const table = plan.collection.name;
  let query = db.selectFrom(table).select(plan.select.map((field) => field.name));
  if (plan.selectSortValues) {
    plan.order.forEach((term, index) => {
      if ((term.path?.length ?? 0) > 0) query = query.select(sql`${sortValue(term, table, dialect, related)}`.as(sortValueAlias(index)));
    });
  }
  // No WHERE at all when nothing filters: SQLite counts a whole table from its b-tree only then.
  if (plan.where !== TRUE_NODE) query = query.where((eb) => filterToSql(plan.where, eb, dialect, table));
  if (plan.after !== undefined) {
    const { condition } = keysetCondition(plan.order, plan.after, dialect, table, related);
    query = query.where(sql<boolean>`${condition}`);
  }
  for (const term of orderTerms(plan.order, dialect, plan.collection.name, related)) query = query.orderBy(term);
  // A literal LIMIT (a validated integer): SQLite runs `limit ?` about 3x slower on a key lookup.
  if (plan.limit !== undefined) query = query.limit(sql.lit(plan.limit));
  if (plan.offset !== undefined && plan.offset > 0) query = query.offset(plan.offset);
  return query;
}

/** The shape of a read plan and its parameters in binding order (where, limit, offset). */
function planShape(plan: ReadPlan, dialect: Dialect, related: RelatedScope): { shape: string; params: unknown[] } {
  const params: unknown[] = [];
  let sortValues = '';
  if (plan.selectSortValues) {
    sortValues = '+sv';
    for (const term of plan.order) if ((term.path?.length ?? 0) > 0) params.push(...pathScope(term, dialect, related).params);
  }
  const where = filterShape(plan.where, dialect, params);
  let keyset = '';
  if (plan.after !== undefined) {
    const built = keysetCondition(plan.order, plan.after, dialect, plan.collection.name, related);
    keyset = built.shape;
    params.push(...built.params);
  }
  const order = plan.order.map((term) => `${(term.path ?? []).map((r) => `${r.name}.`).join('')}${term.field.name}${term.desc ? '-' : '+'}${pathScopeShape(term, dialect, related, params)}`).join(',');
  const hasOffset = plan.offset !== undefined && plan.offset > 0;
  if (hasOffset) params.push(plan.offset);
  const select = plan.select.map((field) => field.name).join(',');
  return { shape: `s|${select}${sortValues}|${where}|${keyset}|${order}|${plan.limit ?? ''}|${hasOffset}`, params };
}

/**
 * The shapes and parameters of the scopes inside a sort term's subqueries, in binding order:
 * the innermost subquery sits in its parent's select list, so it binds first; MySQL repeats
 * a nullable term (`value is null`, `value`), so its values bind twice.
 */
function pathScopeShape(term: SortTerm, dialect: Dialect, related: RelatedScope, params: unknown[]): string {
  const { shape, params: termParams } = pathScope(term, dialect, related);
  params.push(...termParams);
  if (!DIALECT_TRAITS[dialect].nullsLast && (term.path?.length ?? 0) > 0) params.push(...termParams);
  return shape;
}

/** The shape and parameters (binding order) of the scopes inside one occurrence of a sort term's value. */
function pathScope(term: SortTerm, dialect: Dialect, related: RelatedScope): { shape: string; params: unknown[] } {
  const path = term.path ?? [];
  if (path.length === 0) return { shape: '', params: [] };
  const params: unknown[] = [];
  const shapes = [...path].reverse().map((relation) => {
    const scope = related(relation.target);
    return scope === TRUE_NODE ? '' : filterShape(scope, dialect, params);
  });
  return { shape: shapes.some((shape) => shape !== '') ? `[${shapes.join(';')}]` : '', params };
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
