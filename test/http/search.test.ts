import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

const f = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));

for (const dialect of DIALECTS) {
  describe(`$search on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const ids = async (query: string): Promise<number[]> => {
      const reply = await ctx.api.get(`/api/notes:list?${query}&paginate=false&fields=id`);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply.body.data.map((item: { id: number }) => item.id);
    };

    beforeAll(async () => {
      await ctx.api.collection({ name: 'people', fields: [{ name: 'name', type: 'string', searchable: true }] });
      await ctx.api.collection({
        name: 'notes',
        fields: [
          { name: 'title', type: 'string', searchable: true },
          { name: 'body', type: 'text', searchable: true },
          { name: 'tag', type: 'string' },
          { name: 'author', type: 'belongsTo', target: 'people' },
        ],
      });
      const rows = [
        { title: 'The Quick Brown Fox', body: 'jumps over the lazy dog', tag: 'fox' },
        { title: 'Café crème', body: 'Ünïcödé ACCENTS and naïve façade', tag: 'cafe' },
        { title: 'quickly', body: null, tag: 'quick' },
        { title: null, body: 'foxtrot-alpha_bravo 42x', tag: null },
        { title: '100% fun_stuff', body: 'ÉCOLE', tag: 'x' },
      ];
      expect((await ctx.api.post('/api/notes:create', rows)).status).toBe(201);
    });

    it('matches every word as a word prefix, case- and accent-insensitive, over all searchable fields', async () => {
      const cases: [unknown, number[]][] = [
        ['quick', [1, 3]],
        ['QUICK fox', [1]],
        ['fox', [1, 4]],
        ['cafe', [2]],
        ['CRÈME café', [2]],
        ['unicode accents', [2]],
        ['naive facade', [2]],
        ['ecole', [5]],
        ['alpha bravo', [4]],
        ['42', [4]],
        ['42x', [4]],
        ['100 fun stuff', [5]],
        ['uick', []],
        ['dog cafe', []],
        ['   ', [1, 2, 3, 4, 5]],
        ['%', [1, 2, 3, 4, 5]],
      ];
      for (const [search, expected] of cases) {
        expect(await ids(`filter=${f({ $search: search })}`), String(search)).toEqual(expected);
        expect(await ids(`q=${encodeURIComponent(String(search))}`), `q ${String(search)}`).toEqual(expected);
      }
    });

    it('combines with other conditions and ?q with filter', async () => {
      expect(await ids(`filter=${f({ $or: [{ $search: 'cafe' }, { tag: 'x' }] })}`)).toEqual([2, 5]);
      expect(await ids(`filter=${f({ $not: { $search: 'quick' } })}`)).toEqual([2, 4, 5]);
      expect(await ids(`q=quick&filter=${f({ tag: 'quick' })}`)).toEqual([3]);
      expect((await ctx.api.get(`/api/notes:count?filter=${f({ $search: 'fox' })}`)).body.data).toBe(2);
    });

    it('follows updates, deletes, nested creates and searchable changes', async () => {
      const created = (await ctx.api.post('/api/notes:create', { title: 'zebra stripes', author: { name: 'Zoë Quinn' } })).body.data;
      expect(await ids('q=zebra')).toEqual([created.id]);
      expect((await ctx.api.get(`/api/people:list?q=zoe`)).body.data).toHaveLength(1);
      await ctx.api.put(`/api/notes/${created.id}`, { title: 'giraffe' });
      expect(await ids('q=zebra')).toEqual([]);
      expect(await ids('q=giraf')).toEqual([created.id]);
      await ctx.api.del(`/api/notes/${created.id}`);
      expect(await ids('q=giraffe')).toEqual([]);

      expect((await ctx.api.put('/api/collections/notes/fields:update/tag', { searchable: true })).status).toBe(200);
      expect(await ids('q=cafe')).toEqual([2]);
      expect(await ids('q=x')).toEqual([5]);
      expect(await ids('q=quick')).toEqual([1, 3]);
      expect((await ctx.api.put('/api/collections/notes/fields:update/body', { searchable: false })).status).toBe(200);
      expect(await ids('q=ecole')).toEqual([]);
      expect(await ids('q=fox')).toEqual([1]);
    });

    it('refuses $search on a collection without searchable fields, and searchable on other types', async () => {
      await ctx.api.collection({ name: 'plain', fields: [{ name: 'n', type: 'string' }] });
      const reply = await ctx.api.get(`/api/plain:list?filter=${f({ $search: 'x' })}`);
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0].code).toBe('FILTER_OPERATOR_TYPE');
      const typed = await ctx.api.get(`/api/notes:list?filter=${f({ $search: 5 })}`);
      expect(typed.body.errors[0].code).toBe('FILTER_OPERATOR_TYPE');
      const bad = await ctx.api.post('/api/collections:create', { name: 'bad', fields: [{ name: 'n', type: 'integer', searchable: true }] });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0].code).toBe('SCHEMA_INVALID');
    });
  });
}
