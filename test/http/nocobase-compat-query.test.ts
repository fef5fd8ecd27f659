import { beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../src/schema/collection.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';

/**
 * The query-string forms NocoBase's resourcer reads (packages/core/resourcer/src/__tests__/
 * utils.test.ts: parseFields) and its list action's paging (packages/core/actions/src/
 * __tests__/list-action.test.ts), over HTTP on every dialect. NocoBase's `age` is `views` here.
 */

const keysOf = (item: Item): string[] => Object.keys(item).sort();

for (const dialect of DIALECTS) {
  describe(`NocoBase query forms on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let api: TestApi;

    const list = async (query: string): Promise<Item[]> => {
      const reply = await api.get(`/api/notes:list?sort=id&${query}`);
      expect(reply.status, reply.text).toBe(200);
      return reply.body.data as Item[];
    };

    beforeAll(async () => {
      api = ctx.api;
      await api.collection({ name: 'writers', fields: [{ name: 'name', type: 'string' }] });
      await api.collection({
        name: 'notes',
        fields: [
          { name: 'name', type: 'string' },
          { name: 'views', type: 'integer' },
          { name: 'title', type: 'string' },
          { name: 'content', type: 'text' },
          { name: 'status', type: 'string' },
          { name: 'writer', type: 'belongsTo', target: 'writers' },
        ],
      });
      expect((await api.post('/api/writers:create', [{ name: 'w1' }])).status).toBe(201);
      const rows = ['pt1', 'pt2', 'pt3'].map((title, i) => ({ name: `n${i + 1}`, views: i, title, content: 'c', status: 'draft', writer: 1 }));
      expect((await api.post('/api/notes:create', rows)).status).toBe(201);
    });

    it.each([
      ['plain string fields equal to only', 'fields=name,views'],
      ['plain array fields equal to only', 'fields[]=name&fields[]=views'],
      ['only string fields equal to only', 'fields[only]=name,views'],
      ['only array fields equal to only', 'fields[only][]=name&fields[only][]=views'],
      ['only array fields equal to only (repeated key)', 'fields[only]=name&fields[only]=views'],
    ])('utils.test.ts parseFields: %s', async (_title, query) => {
      expect((await list(query)).map(keysOf)).toEqual([['name', 'views'], ['name', 'views'], ['name', 'views']]);
    });

    it('utils.test.ts parseFields: plain only and expect fields', async () => {
      // The input the NocoBase test names: fields, fields[only] and fields[except] together.
      const items = await list('fields=title&fields[only]=content&fields[except]=status&fields[except]=createdAt');
      expect(items.map(keysOf)).toEqual([['content', 'title'], ['content', 'title'], ['content', 'title']]);
    });

    it('fields[except] alone leaves those fields out, as except does', async () => {
      const [item] = await list('fields[except]=content&fields[except]=status&except[]=createdAt');
      expect(keysOf(item!)).toEqual(['id', 'name', 'title', 'updatedAt', 'views', 'writerId']);
    });

    it('appends[], except[] and sort in the forms the SDK sends', async () => {
      const [item] = await list('appends[]=writer&except[]=content&fields[only]=title&fields[only]=writer.name');
      expect(item).toEqual({ title: 'pt1', writer: { name: 'w1' } });
      for (const sort of ['sort[]=-views', 'sort=-views', 'sort[]=-status&sort[]=-views']) {
        expect((await api.get(`/api/notes:list?${sort}&fields=title`)).body.data.map((row: Item) => row.title), sort).toEqual(['pt3', 'pt2', 'pt1']);
      }
    });

    it('refuses a fields part that is neither only nor except with 400 PARAM_INVALID', async () => {
      for (const query of ['fields[nope]=title', 'fields[only][x][y]=title']) {
        const reply = await api.get(`/api/notes:list?${query}`);
        expect(reply.status, query).toBe(400);
        expect(reply.body.errors[0]).toMatchObject({ code: 'PARAM_INVALID', field: 'fields' });
      }
    });

    it('list-action.test.ts: list with pagination (fields, pageSize, page, sort)', async () => {
      const reply = await api.get('/api/notes:list?fields[]=id&pageSize=1&page=2&sort[]=id');
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toEqual([{ id: 2 }]);
      expect(reply.body.meta).toMatchObject({ count: 3, totalPage: 3 });
    });

    it('list-action.test.ts: list with non-paged', async () => {
      expect((await list('paginate=false')).length).toBe(3);
    });
  });
}
