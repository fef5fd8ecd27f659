import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { isRecord } from '../../is-record.js';

/** A row count from the database's statistics or a sample; `exact` when the method happened to see every row. */
export interface RowEstimate {
  readonly n: number;
  readonly exact: boolean;
}

/**
 * How a dialect estimates how many rows of a table match a condition (docs/querying.md#counts),
 * without reading them all: one statement, and how to read its answer. `condition` is the
 * caller's filter and scope, written over the table by its own name; absent, the whole table.
 */
export interface RowEstimates {
  statement(table: string, condition: Expression<SqlBool> | undefined): RawBuilder<unknown>;
  read(rows: readonly unknown[]): RowEstimate;
}

const whereOf = (condition: Expression<SqlBool> | undefined): RawBuilder<unknown> => (condition === undefined ? sql`` : sql` where ${condition}`);

const whole = (value: unknown): number => {
  const n = Math.round(Number(value));
  return Number.isFinite(n) && n > 0 ? n : 0;
};

/** PostgreSQL: the planner's row estimate of the statement (for a whole table, `reltuples` scaled to the table's current pages). */
export const POSTGRES_ESTIMATES: RowEstimates = {
  statement: (table, condition) => sql`explain (format json) select 1 from ${sql.table(table)}${whereOf(condition)}`,
  read: (rows) => {
    const first = rows[0];
    const raw: unknown = isRecord(first) ? first['QUERY PLAN'] : undefined;
    const plan: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
    const top: unknown = Array.isArray(plan) ? plan[0] : undefined;
    const node: unknown = isRecord(top) ? top.Plan : undefined;
    return { n: whole(isRecord(node) ? node['Plan Rows'] : 0), exact: false };
  },
};

/** MySQL/MariaDB: EXPLAIN's rows of the table scanned, times its `filtered` share where the server reports one. */
export const MYSQL_ESTIMATES: RowEstimates = {
  statement: (table, condition) => sql`explain select 1 from ${sql.table(table)}${whereOf(condition)}`,
  read: (rows) => {
    const first = rows[0];
    if (!isRecord(first)) return { n: 0, exact: false };
    const filtered = first.filtered === undefined || first.filtered === null ? 100 : Number(first.filtered);
    return { n: whole((Number(first.rows ?? 0) * filtered) / 100), exact: false };
  },
};

/** Rows of a SQLite table probed at most by one estimate. */
export const SQLITE_PROBES = 1000;

/**
 * SQLite has no planner row estimate: it probes about SQLITE_PROBES rowids spread evenly from
 * the smallest to the largest, counts the rows found there that match, and scales by the
 * spacing (a table up to SQLITE_PROBES rowids wide is probed whole, and its count is exact).
 * Each probe is a rowid lookup, so the cost does not grow with the table; rowid gaps (deleted
 * rows) count as such, since a probe that finds no row counts nothing.
 */
export const SQLITE_ESTIMATES: RowEstimates = {
  statement: (table, condition) => {
    const t = sql.table(table);
    const test = condition === undefined ? sql`1` : sql`case when ${condition} then 1 else 0 end`;
    return sql`with recursive corral_span(lo, hi, step) as (select min(rowid), max(rowid), (max(rowid) - min(rowid)) / ${sql.lit(SQLITE_PROBES)} + 1 from ${t}),
corral_probe(x) as (select lo from corral_span union all select x + step from corral_probe, corral_span where x + step <= hi)
select coalesce(sum(${test}), 0) as hit, (select step from corral_span) as step from ${t} where rowid in (select x from corral_probe)`;
  },
  read: (rows) => {
    const first = rows[0];
    if (!isRecord(first)) return { n: 0, exact: true };
    const step = Number(first.step ?? 1);
    return { n: whole(Number(first.hit ?? 0) * step), exact: step <= 1 };
  },
};
