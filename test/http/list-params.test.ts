import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

const f = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));

for (const dialect of DIALECTS) {
  describe(`list parameters on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    beforeAll(async () => {
      await ctx.api.collection({
        name: 'items',
        fields: [{ name: 'name', type: 'string' }, { name: 'rank', type: 'integer' }, { name: 'flag', type: 'boolean' }],
      });
      const rows = Array.from({ length: 45 }, (_, i) => ({ name: `n${String(i).padStart(2, '0')}`, rank: i % 5 === 0 ? null : i % 7, flag: i % 2 === 0 }));
      expect((await ctx.api.post('/api/items:create', rows)).status).toBe(201);
    });

    it('pages with count and totalPage, on full, partial and empty pages', async () => {
      const cases: [string, number, object][] = [
        ['page=1&pageSize=20', 20, { count: 45, page: 1, pageSize: 20, totalPage: 3 }],
        ['page=3&pageSize=20', 5, { count: 45, page: 3, pageSize: 20, totalPage: 3 }],
        ['page=9&pageSize=20', 0, { count: 45, page: 9, pageSize: 20, totalPage: 3 }],
        ['pageSize=1000', 45, { count: 45, page: 1, pageSize: 1000, totalPage: 1 }],
        [`filter=${f({ flag: true })}&pageSize=10&page=2`, 10, { count: 23, page: 2, pageSize: 10, totalPage: 3 }],
      ];
      for (const [query, length, meta] of cases) {
        const reply = await ctx.api.get(`/api/items:list?${query}`);
        expect(reply.body.data, query).toHaveLength(length);
        expect(reply.body.meta, query).toEqual(meta);
      }
    });

    it('answers simplePaginate with hasNext and no count', async () => {
      const page = await ctx.api.get('/api/items:list?simplePaginate=true&pageSize=40');
      expect(page.body.meta).toEqual({ page: 1, pageSize: 40, hasNext: true });
      const last = await ctx.api.get('/api/items:list?simplePaginate=true&pageSize=40&page=2');
      expect(last.body.meta).toEqual({ page: 2, pageSize: 40, hasNext: false });
      expect(last.body.data).toHaveLength(5);
    });

    it('streams every row with paginate=false and no meta', async () => {
      const reply = await ctx.api.get('/api/items:list?paginate=false&fields=id');
      expect(reply.status).toBe(200);
      expect(reply.body.meta).toBeUndefined();
      expect(reply.body.data).toHaveLength(45);
      expect(reply.body.data.map((item: { id: number }) => item.id)).toEqual(Array.from({ length: 45 }, (_, i) => i + 1));
    });

    it('sorts by several fields with NULLs last both ways and the key as the tie-breaker', async () => {
      const asc = (await ctx.api.get('/api/items:list?sort=rank&pageSize=100&fields=id,rank')).body.data;
      const desc = (await ctx.api.get('/api/items:list?sort=-rank,-id&pageSize=100&fields=id,rank')).body.data;
      const ranks = (rows: { rank: number | null }[]) => rows.map((row) => row.rank);
      expect(ranks(asc).slice(-9)).toEqual(Array(9).fill(null));
      expect(ranks(desc).slice(-9)).toEqual(Array(9).fill(null));
      expect(ranks(asc).slice(0, 36)).toEqual([...ranks(asc).slice(0, 36)].sort((a, b) => a! - b!));
      expect(ranks(desc).slice(0, 36)).toEqual([...ranks(desc).slice(0, 36)].sort((a, b) => b! - a!));
      const ties = asc.filter((row: { rank: number | null }) => row.rank === 1).map((row: { id: number }) => row.id);
      expect(ties).toEqual([...ties].sort((a, b) => a - b));
      const sdkForm = (await ctx.api.get('/api/items:list?sort[]=-flag&sort[]=name&pageSize=1')).body.data[0];
      expect(sdkForm.name).toBe('n00');
    });

    it('selects fields and leaves out except, in both list forms', async () => {
      const picked = (await ctx.api.get('/api/items:list?fields=name,rank&pageSize=1')).body.data[0];
      expect(Object.keys(picked)).toEqual(['name', 'rank']);
      const sdk = (await ctx.api.get('/api/items:list?fields[]=name&fields[]=id&pageSize=1')).body.data[0];
      expect(Object.keys(sdk)).toEqual(['name', 'id']);
      const rest = (await ctx.api.get('/api/items:get/1?except=createdAt,updatedAt')).body.data;
      expect(Object.keys(rest)).toEqual(['id', 'name', 'rank', 'flag']);
    });

    it('narrows a list with filterByTk and with the qs nested filter form', async () => {
      const keys = (await ctx.api.get('/api/items:list?filterByTk[]=3&filterByTk[]=1&fields=id')).body.data;
      expect(keys).toEqual([{ id: 1 }, { id: 3 }]);
      const nested = await ctx.api.get('/api/items:list?filter[rank][$gte]=6&filter[flag]=true&fields=id,rank,flag&pageSize=100');
      expect(nested.status).toBe(200);
      expect(nested.body.data.every((row: { rank: number; flag: boolean }) => row.rank >= 6 && row.flag)).toBe(true);
      expect(nested.body.data.length).toBeGreaterThan(0);
      const count = await ctx.api.get(`/api/items:count?filter=${f({ rank: null })}`);
      expect(count.body).toEqual({ data: 9 });
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`streaming past one batch on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it('streams 1200 rows with appends, batch by batch', async () => {
      await ctx.api.collection({ name: 'nodes', fields: [{ name: 'n', type: 'integer' }] });
      await ctx.api.post('/api/collections/nodes/fields:create', { name: 'parent', type: 'belongsTo', target: 'nodes' });
      for (let start = 0; start < 1200; start += 600) {
        const rows = Array.from({ length: 600 }, (_, i) => ({ n: start + i, parentId: start + i > 0 ? 1 : null }));
        expect((await ctx.api.post('/api/nodes:create', rows)).status).toBe(201);
      }
      const reply = await ctx.api.get('/api/nodes:list?paginate=false&fields=n,parent.n');
      expect(reply.status).toBe(200);
      expect(reply.body.data).toHaveLength(1200);
      expect(reply.body.data[1199]).toEqual({ n: 1199, parent: { n: 0 } });
      expect(reply.body.data[0]).toEqual({ n: 0, parent: null });
    });
  });
}
