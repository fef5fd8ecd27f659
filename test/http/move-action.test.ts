import { beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

for (const dialect of DIALECTS) {
  describe(`move on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let run = 0;
    let name = '';
    const order = async (): Promise<string[]> => (await ctx.api.get(`/api/${name}:list?sort=sort&paginate=false`)).body.data.map((item: { title: string }) => item.title);
    const ids = new Map<string, number>();

    beforeEach(async () => {
      name = `cards${++run}`;
      await ctx.api.collection({ name, fields: [{ name: 'title', type: 'string' }, { name: 'sort', type: 'sort' }] });
      for (const title of ['a', 'b', 'c', 'd', 'e']) ids.set(title, (await ctx.api.post(`/api/${name}:create`, { title })).body.data.id);
      expect(await order()).toEqual(['a', 'b', 'c', 'd', 'e']);
    });

    const cases: [string, (id: (t: string) => number) => string, unknown, string[]][] = [
      ['down: after the target', (id) => `sourceId=${id('b')}&targetId=${id('d')}`, undefined, ['a', 'c', 'd', 'b', 'e']],
      ['up: before the target', (id) => `sourceId=${id('d')}&targetId=${id('b')}`, undefined, ['a', 'd', 'b', 'c', 'e']],
      ['up with insertAfter', (id) => `sourceId=${id('e')}&targetId=${id('a')}&method=insertAfter`, undefined, ['a', 'e', 'b', 'c', 'd']],
      ['down with insertBefore', (id) => `sourceId=${id('a')}&targetId=${id('e')}&method=insertBefore`, undefined, ['b', 'c', 'd', 'a', 'e']],
      ['to the last place', (id) => `sourceId=${id('a')}&targetId=${id('e')}`, undefined, ['b', 'c', 'd', 'e', 'a']],
      ['sticky: first', (id) => `sourceId=${id('d')}&sticky=true`, undefined, ['d', 'a', 'b', 'c', 'e']],
      ['params in the body', () => 'sortField=sort', { sourceId: 3, targetId: 1 }, ['c', 'a', 'b', 'd', 'e']],
      ['onto itself', (id) => `sourceId=${id('c')}&targetId=${id('c')}`, undefined, ['a', 'b', 'c', 'd', 'e']],
    ];
    for (const [label, query, body, expected] of cases) {
      it(label, async () => {
        const reply = await ctx.api.post(`/api/${name}:move?${query((t) => ids.get(t)!)}`, body);
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        expect(reply.body).toEqual({ data: null });
        expect(await order()).toEqual(expected);
        const sorts = (await ctx.api.get(`/api/${name}:list?sort=sort&paginate=false`)).body.data.map((item: { sort: number }) => item.sort);
        expect(new Set(sorts).size).toBe(5);
      });
    }

    it('refuses missing rows and bad parameters', async () => {
      const cases: [string, number, string][] = [
        [`sourceId=999&targetId=${ids.get('a')}`, 404, 'RECORD_NOT_FOUND'],
        [`sourceId=${ids.get('a')}&targetId=999`, 404, 'RECORD_NOT_FOUND'],
        [`targetId=${ids.get('a')}`, 400, 'PARAM_INVALID'],
        [`sourceId=${ids.get('a')}&targetId=${ids.get('b')}&sortField=title`, 400, 'PARAM_INVALID'],
        [`sourceId=${ids.get('a')}&targetId=${ids.get('b')}&method=sideways`, 400, 'PARAM_INVALID'],
      ];
      for (const [query, status, code] of cases) {
        const reply = await ctx.api.post(`/api/${name}:move?${query}`);
        expect(reply.status, query).toBe(status);
        expect(reply.body.errors[0].code, query).toBe(code);
      }
      expect(await order()).toEqual(['a', 'b', 'c', 'd', 'e']);
    });
  });
}
