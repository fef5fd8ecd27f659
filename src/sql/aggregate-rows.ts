import { sql, type RawBuilder } from 'kysely';
import type { DateBucket, HavingNode, QueryColumn, QueryPlan } from '../plan/bind-query.js';
import { TRUE_NODE } from '../plan/filter-node.js';
import type { Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { DIALECT_TRAITS } from './dialect-traits.js';
import { filterToSql } from './filter-sql.js';
import { sortValue, type Executor, type RelatedScope } from './select-rows.js';

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
export async function aggregateRows(db: Executor, dialect: Dialect, plan: QueryPlan, related: RelatedScope): Promise<Row[]> {
  const table = plan.collection.name;
  const expression = (column: QueryColumn): RawBuilder<unknown> => {
    const value = column.value === undefined ? undefined : sortValue({ field: column.value.field, desc: false, path: column.value.path }, table, dialect, related);
    if (column.kind === 'dimension') return column.bucket === undefined ? value! : BUCKET_SQL[dialect](value!, column.bucket, column.value.field.type.name === 'dateOnly');
    if (value === undefined) return sql`count(*)`;
    const distinct = column.distinct ? sql`distinct ` : sql``;
    if (column.aggregation === 'avg') return sql`avg(${distinct}cast(${value} as ${sql.raw(DOUBLE[dialect])}))`;
    return sql`${sql.raw(column.aggregation)}(${distinct}${value})`;
  };
  let query = db.selectFrom(table).select(plan.columns.map((column, index) => expression(column).as(queryColumnAlias(index))));
  if (plan.where !== TRUE_NODE) query = query.where((eb) => filterToSql(plan.where, eb, dialect, table));
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
  query = query.limit(sql.lit(plan.limit));
  return (await query.execute()) as Row[];
}
