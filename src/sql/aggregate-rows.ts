import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { DateBucket, HavingNode, QueryColumn, QueryPlan } from '../plan/bind-query.js';
import { TRUE_NODE } from '../plan/filter-node.js';
import type { Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { DIALECT_TRAITS } from '../db/dialects/dialect-traits.js';
import { filterToSql, whereSql } from './filter-sql.js';
import { sortValue, type Executor, type RelatedScope, type SqlTarget } from './select-rows.js';

/** The alias of output column `index` in the SQL (client aliases are mapped back by the caller). */
export const queryColumnAlias = (index: number): string => `__q${index}`;

const PATTERNS: Record<DateBucket, { length: number; postgres: string; mysql: string }> = {
  day: { length: 10, postgres: 'YYYY-MM-DD', mysql: '%Y-%m-%d' },
  month: { length: 7, postgres: 'YYYY-MM', mysql: '%Y-%m' },
  year: { length: 4, postgres: 'YYYY', mysql: '%Y' },
};

/**
 * A date or dateOnly value cut to its UTC day, month or year as text (`2026-01-15`,
 * `2026-01`, `2026`). SQLite keeps both as ISO text; MySQL keeps instants in UTC.
 */
const BUCKET_SQL: Record<Dialect, (value: RawBuilder<unknown>, bucket: DateBucket, dateOnly: boolean) => RawBuilder<unknown>> = {
  sqlite: (value, bucket) => sql`substr(${value}, 1, ${sql.lit(PATTERNS[bucket].length)})`,
  postgres: (value, bucket, dateOnly) => (dateOnly ? sql`to_char(${value}, ${sql.lit(PATTERNS[bucket].postgres)})` : sql`to_char(${value} at time zone 'UTC', ${sql.lit(PATTERNS[bucket].postgres)})`),
  mysql: (value, bucket) => sql`date_format(${value}, ${sql.lit(PATTERNS[bucket].mysql)})`,
};

/** The double type AVG reads its operand as, so every dialect answers a double (MySQL's decimal AVG keeps 4 digits). */
const DOUBLE: Record<Dialect, string> = { sqlite: 'real', postgres: 'double precision', mysql: 'double' };

const OPERATORS = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/**
 * Runs a `query` plan: one grouped SELECT (GROUP BY the dimensions' positions), HAVING on the
 * repeated aggregate expressions, ORDER BY the output aliases with NULLs last, LIMIT. `where`
 * must already hold the caller's scope; `related` scopes the to-one paths.
 */
/**
 * The key of a query whose SQL binds only its filter's values (no association path, no
 * having; the usual report), written by one pass with the filter's key and values (see
 * `sql-pass.ts`); or undefined, and the query is built each time. Every other part of the SQL
 * is in the key: the columns (kind, field, bucket, aggregation, distinct), order and limit.
 */
function queryColumnsKey(plan: QueryPlan): string | undefined {
  if (plan.having !== undefined) return undefined;
  const columns: string[] = [];
  for (const column of plan.columns) {
    if (column.value !== undefined && column.value.path.length > 0) return undefined;
    columns.push(
      column.kind === 'dimension'
        ? `d:${column.value.field.name}:${column.bucket ?? ''}`
        : `m:${column.aggregation}:${column.distinct ? 'd' : ''}:${column.value?.field.name ?? '*'}`,
    );
  }
  return columns.join(',');
}

export async function aggregateRows({ db, dialect, shapes }: SqlTarget, plan: QueryPlan, related: RelatedScope): Promise<Row[]> {
  const columns = queryColumnsKey(plan);
  // Every aggregate may be heavy: it reads all the rows its filter matches (read-weight.ts).
  if (columns === undefined) return shapes.runCompiled<Row>(db, aggregateQuery(db, dialect, plan, related).compile(), plan.collection.table);
  const table = plan.collection.table;
  return shapes.run<Row>(db, plan.collection, dialect, (pass) => {
    pass.key += `q|${columns}|`;
    const where = plan.where === TRUE_NODE ? undefined : whereSql(plan.where, pass, table);
    pass.key += `|${plan.order.map((term) => `${term.column}${term.desc ? 'd' : 'a'}`).join(',')}|${plan.limit}`;
    return pass.emit ? aggregateQuery(db, dialect, plan, related, where) : undefined;
  }, false, table);
}

/** The query's SELECT; `where`: the filter already written by the caller's pass (else written here). */
function aggregateQuery(db: Executor, dialect: Dialect, plan: QueryPlan, related: RelatedScope, where?: Expression<SqlBool>) {
  const table = plan.collection.table;
  const expression = (column: QueryColumn): RawBuilder<unknown> => {
    const value = column.value === undefined ? undefined : sortValue({ field: column.value.field, desc: false, path: column.value.path }, table, dialect, related);
    if (column.kind === 'dimension') return column.bucket === undefined ? value! : BUCKET_SQL[dialect](value!, column.bucket, column.value.field.type.name === 'dateOnly');
    if (value === undefined) return sql`count(*)`;
    const distinct = column.distinct ? sql`distinct ` : sql``;
    if (column.aggregation === 'avg') return sql`avg(${distinct}cast(${value} as ${sql.raw(DOUBLE[dialect])}))`;
    return sql`${sql.raw(column.aggregation)}(${distinct}${value})`;
  };
  let query = db.selectFrom(table).select(plan.columns.map((column, index) => expression(column).as(queryColumnAlias(index))));
  if (where !== undefined) query = query.where(where);
  else if (plan.where !== TRUE_NODE) query = query.where((eb) => filterToSql(plan.where, eb, dialect, table));
  const dimensions = plan.columns.flatMap((column, index) => (column.kind === 'dimension' ? [index] : []));
  if (dimensions.length > 0) query = query.groupBy(dimensions.map((index) => sql`${sql.lit(index + 1)}`));
  if (plan.having !== undefined) {
    const compile = (node: HavingNode): RawBuilder<unknown> => {
      if (node.kind === 'compare') {
        const target = expression(plan.columns[node.column]!);
        if (node.value === null) return node.op === 'ne' ? sql`${target} is not null` : sql`${target} is null`;
        return sql`${target} ${sql.raw(OPERATORS[node.op])} ${node.value}`;
      }
      if (node.items.length === 0) return sql`1 = 1`;
      return sql`(${sql.join(node.items.map(compile), node.kind === 'and' ? sql` and ` : sql` or `)})`;
    };
    const having = compile(plan.having);
    query = query.having(() => sql<boolean>`${having}`);
  }
  const ordered = [...plan.order];
  for (const index of dimensions) if (!ordered.some((term) => term.column === index)) ordered.push({ column: index, desc: false });
  for (const term of ordered) {
    const ref = sql.ref(queryColumnAlias(term.column));
    const direction = term.desc ? sql`desc` : sql`asc`;
    if (DIALECT_TRAITS[dialect].nullsLast) query = query.orderBy(sql`${ref} ${direction} nulls last`);
    else {
      // MySQL takes an aggregate's alias alone but not inside an expression: repeat the aggregate there.
      const column = plan.columns[term.column]!;
      const nullTest = column.kind === 'measure' ? expression(column) : ref;
      query = query.orderBy(sql`${nullTest} is null`).orderBy(sql`${ref} ${direction}`);
    }
  }
  return query.limit(sql.lit(plan.limit));
}
