import { beforeEach, describe, expect, it } from 'vitest';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * NocoBase's move-action.test.ts, "same scope" cases, over HTTP: `tests` has two sort fields
 * and four rows t1..t4 created in order. (The "different scope" and "associations" cases need
 * `scopeKey` and sortable associations, which Corral does not have: see docs/api.md.)
 */
for (const dialect of DIALECTS) {
  describe(`NocoBase move-action.test.ts "same scope" on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let round = 0;
    let name = '';
    const order = async (field: string) =>
      ((await ctx.api.get(`/api/${name}:list?sort=${field}&fields=title,${field}`)).body.data as Record<string, unknown>[]);

    beforeEach(async () => {
      name = `tests${(round += 1)}`;
      await ctx.api.collection({ name, fields: [{ name: 'title', type: 'string' }, { name: 'sort', type: 'sort' }, { name: 'sort2', type: 'sort' }] });
      for (let index = 1; index < 5; index++) expect((await ctx.api.post(`/api/${name}:create`, { title: `t${index}` })).status).toBe(201);
    });

    it('"targetId" (1 → 3): the row moved down lands after the target', async () => {
      expect((await ctx.api.post(`/api/${name}:move`, { sourceId: 1, targetId: 3 })).status).toBe(200);
      expect(await order('sort')).toEqual([
        { title: 't2', sort: 1 },
        { title: 't3', sort: 2 },
        { title: 't1', sort: 3 },
        { title: 't4', sort: 4 },
      ]);
    });

    it('"targetId" (3 → 1): the row moved up lands before the target', async () => {
      expect((await ctx.api.post(`/api/${name}:move?sourceId=3&targetId=1`)).status).toBe(200);
      expect(await order('sort')).toEqual([
        { title: 't3', sort: 1 },
        { title: 't1', sort: 2 },
        { title: 't2', sort: 3 },
        { title: 't4', sort: 4 },
      ]);
    });

    it('"sortField": another sort field moves alone', async () => {
      expect((await ctx.api.post(`/api/${name}:move`, { sortField: 'sort2', sourceId: 1, targetId: 3 })).status).toBe(200);
      expect(await order('sort2')).toEqual([
        { title: 't2', sort2: 1 },
        { title: 't3', sort2: 2 },
        { title: 't1', sort2: 3 },
        { title: 't4', sort2: 4 },
      ]);
      expect((await order('sort')).map((row) => row.title)).toEqual(['t1', 't2', 't3', 't4']);
    });

    it('"different scope" cases: a targetScope is refused (400 PARAM_INVALID), in the body or the query, and nothing moves', async () => {
      for (const [url, body] of [[`/api/${name}:move`, { sourceId: 1, targetScope: { state: 2 } }], [`/api/${name}:move?sourceId=1&targetId=3&targetScope[state]=2`, undefined]] as const) {
        const reply = await ctx.api.post(url, body);
        expect(reply.status, url).toBe(400);
        expect(reply.body.errors[0]).toMatchObject({ code: 'PARAM_INVALID', field: 'targetScope' });
      }
      expect((await order('sort')).map((row) => row.title)).toEqual(['t1', 't2', 't3', 't4']);
    });

    it('"sticky": the row goes first', async () => {
      expect((await ctx.api.post(`/api/${name}:move`, { sourceId: 3, sticky: true })).status).toBe(200);
      expect((await order('sort')).map((row) => row.title)).toEqual(['t3', 't1', 't2', 't4']);
    });
  });
}
