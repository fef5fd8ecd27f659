import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { adapterOf } from '../../src/db/dialects/adapters.js';
import { DIALECTS } from '../support/test-database.js';
import { apiFor, useDialectApp, type Reply, type TestApi } from '../support/test-app.js';
import { expectError } from '../support/access-leak-fixture.js';

const f = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));

/** Rows in `rows`: every fourth is kind a. Wider than SQLite's probe count, so its estimate samples. */
const ROWS = 2400;
const KIND_A = ROWS / 4;
/** CORRAL_EXACT_COUNT_LIMIT and CORRAL_MAX_OFFSET of this app: small, so the tables stay small. */
const EXACT_LIMIT = 50;
const MAX_OFFSET = 200;

/** An estimate is "sane" within this factor of the truth once the table was analysed. */
const FACTOR = 2;
const near = (value: number, truth: number) => value >= truth / FACTOR && value <= truth * FACTOR;

for (const dialect of DIALECTS) {
  describe(`list counts and deep pages on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { exactCountLimit: EXACT_LIMIT, maxOffset: MAX_OFFSET });
    let scoped: TestApi;

    beforeAll(async () => {
      const api = ctx.api;
      await api.collection({ name: 'rows', fields: [{ name: 'n', type: 'integer' }, { name: 'kind', type: 'string', searchable: true }] });
      await api.collection({ name: 'boxes', fields: [{ name: 'label', type: 'string' }, { name: 'rows', type: 'hasMany', target: 'rows', foreignKey: 'boxId' }] });
      await api.collection({ name: 'smalls', fields: [{ name: 'n', type: 'integer' }] });
      expect((await api.post('/api/boxes:create', { label: 'all' })).status).toBe(201);
      for (let start = 0; start < ROWS; start += 1000) {
        const batch = Array.from({ length: Math.min(1000, ROWS - start) }, (_, i) => ({ n: start + i, kind: (start + i) % 4 === 0 ? 'a' : 'b', boxId: 1 }));
        const created = await api.post('/api/rows:create', batch);
        expect(created.status, created.text).toBe(201);
      }
      expect((await api.post('/api/smalls:create', Array.from({ length: 20 }, (_, n) => ({ n })))).status).toBe(201);
      // Statistics, as a busy database has them (MariaDB's histograms need PERSISTENT FOR ALL).
      const db = ctx.built.database.db;
      const statements = dialect === 'mysql' ? ['analyze table `rows` persistent for all'] : adapterOf(dialect).ddl.analyze('rows');
      for (const statement of statements) await sql.raw(statement).execute(db);
      const role = await api.post('/api/roles:create', { name: 'kindA', strategy: { actions: [] }, resources: [{ name: 'rows', actions: [{ name: 'view', filter: { kind: 'a' } }] }] });
      expect(role.status, role.text).toBe(201);
      const user = await api.post('/api/users:create', { email: 'kinda@corral.test', password: 'kinda-password', roles: ['kindA'] });
      expect(user.status, user.text).toBe(201);
      scoped = apiFor(ctx.built, { account: 'kinda@corral.test', password: 'kinda-password' });
    });

    const meta = (reply: Reply) => {
      expect(reply.status, reply.text).toBe(200);
      return reply.body.meta as Record<string, unknown>;
    };

    it('answers count=exact, count=none and count=estimated', async () => {
      expect(meta(await ctx.api.get('/api/rows:list?count=exact&pageSize=10'))).toEqual({ count: ROWS, page: 1, pageSize: 10, totalPage: ROWS / 10 });
      expect(meta(await ctx.api.get('/api/rows:list?count=none&pageSize=10&page=3'))).toEqual({ page: 3, pageSize: 10, hasNext: true });
      expect(meta(await ctx.api.get(`/api/rows:list?count=none&pageSize=10&filter=${f({ n: { $gte: ROWS - 5 } })}`))).toEqual({ page: 1, pageSize: 10, hasNext: false });
      // The same meta as simplePaginate, which count=none is.
      expect(meta(await ctx.api.get('/api/rows:list?simplePaginate=true&pageSize=10&page=3'))).toEqual({ page: 3, pageSize: 10, hasNext: true });
      // SQLite counts a whole table from its b-tree (cheaper than probing), so that answer is exact.
      const whole = meta(await ctx.api.get('/api/rows:list?count=estimated&pageSize=10'));
      if (dialect === 'sqlite') expect(whole).toEqual({ count: ROWS, page: 1, pageSize: 10, totalPage: ROWS / 10 });
      const estimated = dialect === 'sqlite' ? meta(await ctx.api.get(`/api/rows:list?count=estimated&pageSize=10&filter=${f({ n: { $gte: 0 } })}`)) : whole;
      expect(estimated.countEstimated).toBe(true);
      expect(Object.keys(estimated).sort()).toEqual(['count', 'countEstimated', 'page', 'pageSize', 'totalPage']);
      expect(near(estimated.count as number, ROWS), `estimate ${String(estimated.count)} of ${ROWS}`).toBe(true);
      expect(estimated.totalPage).toBe(Math.ceil((estimated.count as number) / 10));
      const filtered = meta(await ctx.api.get(`/api/rows:list?count=estimated&pageSize=10&filter=${f({ kind: 'a' })}`));
      expect(near(filtered.count as number, KIND_A), `estimate ${String(filtered.count)} of ${KIND_A}`).toBe(true);
    });

    it('counts exactly up to CORRAL_EXACT_COUNT_LIMIT and estimates above, saying so', async () => {
      // A small table: exact, no flag, whatever the page.
      expect(meta(await ctx.api.get('/api/smalls:list?pageSize=5'))).toEqual({ count: 20, page: 1, pageSize: 5, totalPage: 4 });
      // A count over the limit (here an exact one; the first default count of a table is one too) teaches that the table is big: default counts estimate from then on.
      expect(meta(await ctx.api.get('/api/rows:list?pageSize=10&count=exact'))).toEqual({ count: ROWS, page: 1, pageSize: 10, totalPage: ROWS / 10 });
      const cases: { filter: unknown; truth: number; estimated: boolean }[] = [
        { filter: {}, truth: ROWS, estimated: dialect !== 'sqlite' },
        { filter: { n: { $gte: 0 } }, truth: ROWS, estimated: true },
        { filter: { kind: 'a' }, truth: KIND_A, estimated: true },
        { filter: { n: { $lt: EXACT_LIMIT } }, truth: EXACT_LIMIT, estimated: false },
        { filter: { n: { $lt: 30 } }, truth: 30, estimated: false },
      ];
      for (const { filter, truth, estimated } of cases) {
        const answer = meta(await ctx.api.get(`/api/rows:list?pageSize=10&filter=${f(filter)}`));
        if (estimated) {
          expect(answer.countEstimated, JSON.stringify(filter)).toBe(true);
          expect(answer.count as number).toBeGreaterThan(EXACT_LIMIT);
          expect(near(answer.count as number, truth), `estimate ${String(answer.count)} of ${truth}`).toBe(true);
        } else expect(answer, JSON.stringify(filter)).toEqual({ count: truth, page: 1, pageSize: 10, totalPage: Math.ceil(truth / 10) });
      }
      // count=exact still counts.
      expect(meta(await ctx.api.get(`/api/rows:list?pageSize=10&count=exact&filter=${f({ kind: 'a' })}`)).count).toBe(KIND_A);
      // A page that is neither full nor empty tells its total exactly.
      expect(meta(await ctx.api.get(`/api/rows:list?pageSize=10&page=2&filter=${f({ n: { $lt: 15 } })}`))).toEqual({ count: 15, page: 2, pageSize: 10, totalPage: 2 });
    });

    it('estimates a scoped caller\'s rows only', async () => {
      const exact = meta(await scoped.get('/api/rows:list?pageSize=10&count=exact'));
      expect(exact.count).toBe(KIND_A);
      for (const query of ['count=estimated', '']) {
        const answer = meta(await scoped.get(`/api/rows:list?pageSize=10&${query}`));
        expect(near(answer.count as number, KIND_A), `${query}: estimate ${String(answer.count)} of ${KIND_A}`).toBe(true);
      }
      const counted = await scoped.get('/api/rows:count?count=estimated');
      expect(counted.status, counted.text).toBe(200);
      expect(near(counted.body.data as number, KIND_A), `count action estimate ${String(counted.body.data)}`).toBe(true);
    });

    it('estimates through association paths and searches', async () => {
      for (const url of [`/api/boxes:list?count=estimated&filter=${f({ 'rows.kind': 'a' })}`, `/api/rows:list?count=estimated&pageSize=10&q=a`, `/api/boxes/1/rows:list?count=estimated&pageSize=10&filter=${f({ kind: 'a' })}`]) {
        const answer = meta(await ctx.api.get(url));
        expect(typeof answer.count, url).toBe('number');
        expect(answer.count as number, url).toBeGreaterThanOrEqual(0);
      }
      const scopedAssoc = meta(await scoped.get('/api/rows:list?count=estimated&pageSize=10&q=a'));
      expect(scopedAssoc.count as number).toBeLessThanOrEqual(KIND_A * FACTOR);
    });

    it('answers count=estimated on the count action, and refuses a bad count with 400 PARAM_INVALID', async () => {
      expect((await ctx.api.get('/api/rows:count?count=exact')).body.data).toBe(ROWS);
      const counted = await ctx.api.get('/api/rows:count?count=estimated');
      expect(counted.status, counted.text).toBe(200);
      expect(near(counted.body.data as number, ROWS)).toBe(true);
      for (const url of ['/api/rows:list?count=maybe', '/api/rows:list?count[]=exact', '/api/rows:count?count=none', '/api/rows:count?count=planned']) {
        const reply = await ctx.api.get(url);
        expectError(reply, 400, 'PARAM_INVALID');
        expect(reply.body.errors[0].field).toBe('count');
      }
    });

    it('refuses offset pages past CORRAL_MAX_OFFSET with 400 PAGE_TOO_DEEP naming cursor paging', async () => {
      expect((await ctx.api.get(`/api/rows:list?pageSize=10&page=${MAX_OFFSET / 10 + 1}`)).status).toBe(200);
      const deep = MAX_OFFSET / 10 + 2;
      for (const url of [
        `/api/rows:list?pageSize=10&page=${deep}`,
        `/api/rows:list?pageSize=10&page=${deep}&simplePaginate=true`,
        `/api/rows:list?pageSize=10&page=${deep}&count=none`,
        `/api/rows:list?pageSize=10&page=${deep}&count=exact`,
        `/api/boxes/1/rows:list?pageSize=10&page=${deep}`,
        `/api/rows:list?pageSize=1000&page=2`,
      ]) {
        const reply = await ctx.api.get(url);
        expectError(reply, 400, 'PAGE_TOO_DEEP');
        expect(reply.body.errors[0].message).toContain('cursor');
        expect(reply.body.errors[0].details.max).toBe(MAX_OFFSET);
      }
      expect((await ctx.api.get(`/api/boxes/1/rows:list?pageSize=10&page=${deep - 1}`)).status).toBe(200);
    });

    it('pages with cursor past the offset limit', async () => {
      const ids: number[] = [];
      let cursor = '';
      for (let page = 0; page < 100; page++) {
        const reply = await ctx.api.get(`/api/rows:list?fields=id&pageSize=250&cursor=${encodeURIComponent(cursor)}`);
        expect(reply.status, reply.text).toBe(200);
        ids.push(...reply.body.data.map((row: { id: number }) => row.id));
        if (!reply.body.meta.hasNext) break;
        cursor = reply.body.meta.nextCursor as string;
      }
      expect(ids).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    });
  });
}
