import { describe, expect, it } from 'vitest';
import { MYSQL_ESTIMATES, POSTGRES_ESTIMATES, SQLITE_ESTIMATES, type RowEstimate, type RowEstimates } from '../../src/db/dialects/row-estimates.js';

const mariaPlan = { query_block: { select_id: 1, nested_loop: [{ table: { table_name: 'r', access_type: 'ALL', rows: 2400, filtered: 24.21875 } }] } };
const mysqlPlan = { query_block: { select_id: 1, table: { table_name: 'r', access_type: 'ALL', rows_examined_per_scan: 1000, filtered: '10.00' } } };

const CASES: { name: string; estimates: RowEstimates; rows: unknown[]; expected: RowEstimate }[] = [
  { name: 'PostgreSQL plan rows (pg parsed the JSON)', estimates: POSTGRES_ESTIMATES, rows: [{ 'QUERY PLAN': [{ Plan: { 'Node Type': 'Seq Scan', 'Plan Rows': 612 } }] }], expected: { n: 612, exact: false } },
  { name: 'PostgreSQL plan rows as text', estimates: POSTGRES_ESTIMATES, rows: [{ 'QUERY PLAN': JSON.stringify([{ Plan: { 'Plan Rows': 3.4 } }]) }], expected: { n: 3, exact: false } },
  { name: 'PostgreSQL without a plan', estimates: POSTGRES_ESTIMATES, rows: [], expected: { n: 0, exact: false } },
  { name: 'MariaDB nested loop: rows × filtered', estimates: MYSQL_ESTIMATES, rows: [{ EXPLAIN: JSON.stringify(mariaPlan) }], expected: { n: 581, exact: false } },
  { name: 'MySQL table: rows examined × filtered', estimates: MYSQL_ESTIMATES, rows: [{ EXPLAIN: JSON.stringify(mysqlPlan) }], expected: { n: 100, exact: false } },
  { name: 'MySQL plan without filtered', estimates: MYSQL_ESTIMATES, rows: [{ EXPLAIN: JSON.stringify({ query_block: { table: { rows: 7 } } }) }], expected: { n: 7, exact: false } },
  { name: 'MySQL without a plan', estimates: MYSQL_ESTIMATES, rows: [{ EXPLAIN: '{}' }], expected: { n: 0, exact: false } },
  { name: 'SQLite probes scaled by the stretch', estimates: SQLITE_ESTIMATES, rows: [{ hit: 150, step: 6 }], expected: { n: 900, exact: false } },
  { name: 'SQLite every rowid probed: exact', estimates: SQLITE_ESTIMATES, rows: [{ hit: 42, step: 1 }], expected: { n: 42, exact: true } },
  { name: 'SQLite empty table', estimates: SQLITE_ESTIMATES, rows: [{ hit: 0, step: null }], expected: { n: 0, exact: true } },
];

describe('row estimates: reading each dialect\'s answer', () => {
  for (const { name, estimates, rows, expected } of CASES) {
    it(name, () => {
      expect(estimates.read(rows)).toEqual(expected);
    });
  }
});
