import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { captureStatements, explain, type RanStatement } from '../support/explain-plan.js';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * The filter shapes docs/querying.md shows, on indexed fields: the statements Corral runs for
 * each list (page and count) are EXPLAINed on every dialect, and each must read through the
 * index docs/performance.md#indexes says to add for it. The filters are selective (about 1%
 * of the rows): a filter most rows match is answered as well by walking the primary key in
 * the list's default order until a page is full, and the planners rightly do that.
 */
const ROWS = 2000;
const STATUSES = 200;

interface PlanCase {
  name: string;
  query: string;
  /** The index (any of them) each checked statement must use. */
  indexes: string[];
  /** Which of the statements are checked: every read of posts, or the ordered page only. */
  only?: 'ordered';
  /** Dialects whose planner cannot use the index for it (documented). */
  not?: string[];
}

const CASES: PlanCase[] = [
  { name: 'equality {"views": 5}', query: 'filter={"views":5}', indexes: ['idx_posts_views'] },
  { name: 'range {"views": {"$gt": 1, "$lt": 10}}', query: 'filter={"views":{"$gt":1,"$lt":10}}', indexes: ['idx_posts_views'] },
  { name: 'equality on the first field of a composite {"status": "s3"}', query: 'filter={"status":"s3"}', indexes: ['idx_posts_status_views'] },
  { name: '$in {"status": {"$in": ["s1", "s2"]}}', query: 'filter={"status":{"$in":["s1","s2"]}}', indexes: ['idx_posts_status_views'] },
  { name: 'equality then range on a composite {"status": "s3", "views": {"$gte": 990}}', query: 'filter={"status":"s3","views":{"$gte":990}}', indexes: ['idx_posts_status_views'] },
  { name: 'a role\'s row filter {"ownerId": 7} (createdById)', query: 'filter={"ownerId":7}', indexes: ['idx_posts_ownerId'] },
  { name: 'sort on an indexed field with a limit (sort=views, pageSize=20)', query: 'sort=views&pageSize=20', indexes: ['idx_posts_views'], only: 'ordered' },
  // The tie-breaker stays `id asc`: MariaDB cannot read an ascending index for `views desc, id asc` (docs/performance.md#indexes).
  { name: 'sort descending on an indexed field with a limit (sort=-views, pageSize=20)', query: 'sort=-views&pageSize=20', indexes: ['idx_posts_views'], only: 'ordered', not: ['mysql'] },
];

const readsPosts = (statement: RanStatement): boolean => /^\s*select/i.test(statement.sql) && /from [`"]posts[`"]/i.test(statement.sql);

describe.each(DIALECTS)('filters the docs show use their index on %s (EXPLAIN)', (dialect) => {
  const ctx = useDialectApp(dialect);

  beforeAll(async () => {
    await ctx.api.collection({
      name: 'posts',
      fields: [
        { name: 'title', type: 'string' },
        { name: 'status', type: 'string' },
        { name: 'views', type: 'integer', allowNull: false, defaultValue: 0 },
        { name: 'ownerId', type: 'integer' },
      ],
      indexes: [{ fields: ['views'] }, { fields: ['status', 'views'] }, { fields: ['ownerId'] }],
    });
    for (let start = 0; start < ROWS; start += 500) {
      const batch = Array.from({ length: 500 }, (_, i) => ({ title: `t${start + i}`, status: `s${(start + i) % STATUSES}`, views: (start + i) % 1000, ownerId: (start + i) % 100 }));
      expect((await ctx.api.post('/api/posts:create', batch)).status).toBe(201);
    }
    const db = ctx.built.database.db;
    if (dialect === 'mysql') {
      // MariaDB sorts a table this small in memory rather than read an index in order: 48,000
      // more rows (none matching the filters above), by SQL in one statement.
      const digit = sql.raw('(select 0 d union all select 1 union all select 2 union all select 3 union all select 4 union all select 5 union all select 6 union all select 7 union all select 8 union all select 9)');
      await sql`insert into posts (createdAt, updatedAt, title, status, views, ownerId)
        select utc_timestamp(3), utc_timestamp(3), concat('bulk', n.i), concat('bulk', n.i % 500), 1000 + n.i % 5000, null
        from (select a.d + b.d * 10 + c.d * 100 + e.d * 1000 + f.d * 10000 as i from ${digit} a, ${digit} b, ${digit} c, ${digit} e, ${digit} f) n
        where n.i < 48000`.execute(db);
    }
    // Statistics, as a production table has them (MySQL and PostgreSQL pick plans by them).
    if (dialect === 'mysql') await sql`analyze table posts`.execute(db);
    else await sql`analyze`.execute(db);
  }, 120_000);

  it.each(CASES.filter((planCase) => !(planCase.not ?? []).includes(dialect)))('$name', async ({ query, indexes, only }) => {
    const url = `/api/posts:list?${query.replace(/filter=(.*)/, (_, json: string) => `filter=${encodeURIComponent(json)}`)}`;
    let status = 0;
    const ran = await captureStatements(async () => {
      status = (await ctx.api.get(url)).status;
    });
    expect(status).toBe(200);
    const checked = ran.filter(readsPosts).filter((statement) => only !== 'ordered' || /order by/i.test(statement.sql));
    expect(checked.length).toBeGreaterThan(0);
    for (const statement of checked) {
      const plan = await explain(ctx.built.database.db, dialect, statement);
      expect(plan.indexes.some((name) => indexes.includes(name)), `${statement.sql}\n${plan.text}`).toBe(true);
    }
  });
});
