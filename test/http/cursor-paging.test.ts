import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

const f = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));

interface Page {
  status: number;
  body: { data: { id: number }[]; meta: { pageSize: number; hasNext: boolean; nextCursor: string | null } };
}

for (const dialect of DIALECTS) {
  describe(`cursor paging on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    /** Every id of a query, page by page through cursors. */
    async function walk(query: string, pageSize: number, between?: (page: number) => Promise<void>): Promise<number[]> {
      const ids: number[] = [];
      let cursor = '';
      for (let page = 0; page < 200; page++) {
        const reply = (await ctx.api.get(`/api/items:list?${query}&pageSize=${pageSize}&cursor=${encodeURIComponent(cursor)}`)) as Page;
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        ids.push(...reply.body.data.map((item) => item.id));
        expect(reply.body.meta.pageSize).toBe(pageSize);
        if (!reply.body.meta.hasNext) {
          expect(reply.body.meta.nextCursor).toBeNull();
          return ids;
        }
        expect(typeof reply.body.meta.nextCursor).toBe('string');
        cursor = reply.body.meta.nextCursor!;
        await between?.(page);
      }
      throw new Error('too many pages');
    }

    beforeAll(async () => {
      await ctx.api.collection({ name: 'people', fields: [{ name: 'name', type: 'string' }] });
      await ctx.api.collection({
        name: 'items',
        fields: [
          { name: 'name', type: 'string' },
          { name: 'rank', type: 'integer' },
          { name: 'at', type: 'date' },
          { name: 'owner', type: 'belongsTo', target: 'people' },
        ],
      });
      const people = [{ name: 'bea' }, { name: null }, { name: 'al' }, { name: 'cy' }];
      expect((await ctx.api.post('/api/people:create', people)).status).toBe(201);
      const rows = Array.from({ length: 53 }, (_, i) => ({
        name: i % 6 === 0 ? null : `n${String(i % 11).padStart(2, '0')}`,
        rank: i % 5 === 0 ? null : i % 4,
        at: i % 7 === 0 ? null : new Date(Date.UTC(2026, 0, 1 + (i % 9), 10, 30, 15, 123)).toISOString(),
        ownerId: i % 8 === 0 ? null : (i % 4) + 1,
      }));
      expect((await ctx.api.post('/api/items:create', rows)).status).toBe(201);
    });

    const SORTS = ['', 'sort=-id', 'sort=rank', 'sort=-rank', 'sort=rank,-name', 'sort=-name,rank', 'sort=at', 'sort=-at,-rank', 'sort=owner.name', 'sort=-owner.name,rank'];
    for (const sort of SORTS) {
      it(`visits the same rows in the same order as the full list (${sort || 'no sort'})`, async () => {
        const all = (await ctx.api.get(`/api/items:list?${sort}&paginate=false&fields=id`)).body.data.map((item: { id: number }) => item.id);
        expect(all).toHaveLength(53);
        for (const pageSize of [1, 7, 53, 60]) expect(await walk(`${sort}&fields=id`, pageSize), `pageSize ${pageSize}`).toEqual(all);
      });
    }

    it('pages under a filter and answers the meta of a cursor page', async () => {
      const filter = f({ rank: { $ne: 1 } });
      const all = (await ctx.api.get(`/api/items:list?filter=${filter}&sort=-at&paginate=false`)).body.data.map((item: { id: number }) => item.id);
      expect(await walk(`filter=${filter}&sort=-at`, 4)).toEqual(all);
      const first = (await ctx.api.get('/api/items:list?cursor=&pageSize=5')) as Page;
      expect(first.body.data.map((item) => item.id)).toEqual([1, 2, 3, 4, 5]);
      expect(Object.keys(first.body.meta).sort()).toEqual(['hasNext', 'nextCursor', 'pageSize']);
      const bare = (await ctx.api.get('/api/items:list?cursor&pageSize=5')) as Page;
      expect(bare.body.data.map((item) => item.id)).toEqual([1, 2, 3, 4, 5]);
    });

    it('refuses a forged cursor or one from another query with 400 PARAM_INVALID', async () => {
      const first = (await ctx.api.get('/api/items:list?cursor=&sort=rank&pageSize=5')) as Page;
      const cursor = first.body.meta.nextCursor!;
      const sealed = Buffer.from(cursor, 'base64url');
      const flipped = (index: number): string => {
        const copy = Buffer.from(sealed);
        copy[index] = copy[index]! ^ 1;
        return copy.toString('base64url');
      };
      const bad = [
        `sort=rank&cursor=${encodeURIComponent(flipped(20))}`,
        `sort=rank&cursor=${encodeURIComponent(flipped(0))}`,
        `sort=rank&cursor=${encodeURIComponent(flipped(sealed.length - 1))}`,
        `sort=rank&cursor=${encodeURIComponent(sealed.subarray(0, sealed.length - 1).toString('base64url'))}`,
        `sort=rank&cursor=${encodeURIComponent(Buffer.from(JSON.stringify([0, 1])).toString('base64url'))}`,
        `sort=rank&cursor=garbage`,
        `sort=rank&cursor=${encodeURIComponent('a.b.c')}`,
        `sort=-rank&cursor=${encodeURIComponent(cursor)}`,
        `sort=rank&filter=${f({ rank: 1 })}&cursor=${encodeURIComponent(cursor)}`,
        `sort=rank&cursor[]=x`,
      ];
      for (const query of bad) {
        const reply = await ctx.api.get(`/api/items:list?${query}&pageSize=5`);
        expect(reply.status, query).toBe(400);
        expect(reply.body.errors[0].code, query).toBe('PARAM_INVALID');
      }
      const good = await ctx.api.get(`/api/items:list?sort=rank&pageSize=5&cursor=${encodeURIComponent(cursor)}`);
      expect(good.status).toBe(200);
    });

    it('hides the values it carries: neither the sort values nor the key can be read from it', async () => {
      const page = (await ctx.api.get('/api/items:list?cursor=&sort=-name&pageSize=3')) as Page;
      const cursor = page.body.meta.nextCursor!;
      const last = page.body.data.at(-1) as { id: number; name: string };
      expect(last.name).toMatch(/^n\d\d$/);
      const bytes = Buffer.from(cursor, 'base64url').toString('latin1');
      expect(bytes).not.toContain(last.name);
      // Two cursors for the same position differ (a fresh nonce each), and both work.
      const again = (await ctx.api.get('/api/items:list?cursor=&sort=-name&pageSize=3')) as Page;
      expect(again.body.meta.nextCursor).not.toBe(cursor);
      for (const next of [cursor, again.body.meta.nextCursor!]) {
        const reply = await ctx.api.get(`/api/items:list?sort=-name&pageSize=3&cursor=${encodeURIComponent(next)}`);
        expect(reply.status).toBe(200);
        expect(reply.body.data[0].id).not.toBe(last.id);
      }
    });

    it('visits every row exactly once while rows are inserted between pages', async () => {
      const before = (await ctx.api.get('/api/items:list?paginate=false&fields=id')).body.data.map((item: { id: number }) => item.id) as number[];
      const insert = async (page: number) => {
        const rows = [{ name: `new${page}`, rank: page % 4 }, { name: null, rank: null }, { name: 'a', rank: 0 }];
        expect((await ctx.api.post('/api/items:create', rows)).status).toBe(201);
      };
      for (const sort of ['', 'sort=rank,-name']) {
        const seen = await walk(`${sort}&fields=id`, 6, insert);
        expect(new Set(seen).size, sort).toBe(seen.length);
        for (const id of before) expect(seen, sort).toContain(id);
      }
    });

    it('caches the cursor query shapes, refusing none', () => {
      const collection = ctx.built.schema.snapshot.get('items')!;
      expect(ctx.built.store.shapes.stats(collection).refused).toBe(0);
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`cursor paging on association lists on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it('pages an association and refuses its cursor on another source item', async () => {
      await ctx.api.collection({ name: 'comments', fields: [{ name: 'body', type: 'string' }] });
      await ctx.api.collection({ name: 'posts', fields: [{ name: 'title', type: 'string' }, { name: 'comments', type: 'hasMany' }] });
      for (const post of [1, 2]) {
        expect((await ctx.api.post('/api/posts:create', { title: `p${post}` })).status).toBe(201);
        for (let i = 0; i < 5; i++) expect((await ctx.api.post(`/api/posts/${post}/comments:create`, { body: `c${post}.${i}` })).status).toBe(201);
      }
      const first = await ctx.api.get('/api/posts/1/comments:list?pageSize=3&cursor=');
      expect(first.body.data.map((c: { body: string }) => c.body)).toEqual(['c1.0', 'c1.1', 'c1.2']);
      const cursor = encodeURIComponent(first.body.meta.nextCursor);
      const second = await ctx.api.get(`/api/posts/1/comments:list?pageSize=3&cursor=${cursor}`);
      expect(second.body.data.map((c: { body: string }) => c.body)).toEqual(['c1.3', 'c1.4']);
      expect(second.body.meta).toEqual({ pageSize: 3, hasNext: false, nextCursor: null });
      const other = await ctx.api.get(`/api/posts/2/comments:list?pageSize=3&cursor=${cursor}`);
      expect(other.status).toBe(400);
      expect(other.body.errors[0].code).toBe('PARAM_INVALID');
    });
  });
}
