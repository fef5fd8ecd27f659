import { beforeAll, describe, expect, it } from 'vitest';
import { apiFor, useDialectApp, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * `move` writes the sort field of every row it shifts: a role may move only when its `update`
 * grant covers that sort field (403 FORBIDDEN naming `sortField` otherwise, nothing moved), and
 * only rows inside its update scope.
 */
const ROLES = [
  { name: 'titles', strategy: { actions: [] }, resources: [{ name: 'cards', actions: [{ name: 'view' }, { name: 'update', fields: ['title'] }] }] },
  { name: 'sorter', strategy: { actions: [] }, resources: [{ name: 'cards', actions: [{ name: 'view' }, { name: 'update', fields: ['title', 'sort'] }] }] },
  {
    name: 'other',
    strategy: { actions: [] },
    resources: [{ name: 'cards', actions: [{ name: 'view' }, { name: 'update', fields: ['title', 'rank'] }] }],
  },
];

for (const dialect of DIALECTS) {
  describe(`move under field grants on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const as = (name: string): TestApi => apiFor(ctx.built, { account: `${name}@corral.test`, password: `${name}-password` });
    const ids = new Map<string, number>();
    const order = async (sort = 'sort'): Promise<string[]> =>
      (await ctx.api.get(`/api/cards:list?sort=${sort}&paginate=false`)).body.data.map((item: { title: string }) => item.title);

    beforeAll(async () => {
      const root = ctx.api;
      await root.collection({ name: 'cards', fields: [{ name: 'title', type: 'string' }, { name: 'sort', type: 'sort' }, { name: 'rank', type: 'sort' }] });
      for (const title of ['a', 'b', 'c']) ids.set(title, (await root.post('/api/cards:create', { title })).body.data.id);
      for (const role of ROLES) expect((await root.post('/api/roles:create', role)).status).toBe(201);
      for (const role of ROLES) {
        const created = await root.post('/api/users:create', { email: `${role.name}@corral.test`, password: `${role.name}-password`, roles: [role.name] });
        expect(created.status, created.text).toBe(201);
      }
    });

    const cases: Array<[string, string, string, unknown]> = [
      ['the default sort field, in the query', 'titles', `sourceId=A&targetId=C`, undefined],
      ['the default sort field, in the body', 'titles', '', { sourceId: 'A', targetId: 'C' }],
      ['a named sort field', 'titles', 'sourceId=A&targetId=C&sortField=sort', undefined],
      ['sticky', 'titles', 'sourceId=C&sticky=true&sortField=sort', undefined],
      ['another sort field than the one granted', 'other', 'sourceId=A&targetId=C&sortField=sort', undefined],
    ];
    const fill = (text: string): string => text.replace('A', String(ids.get('a'))).replace('C', String(ids.get('c')));

    it.each(cases)('refuses %s when the update grant lacks it: 403 naming sortField, nothing moved', async (_what, role, query, body) => {
      const before = await order();
      const reply = await as(role).post(`/api/cards:move?${fill(query)}`, body === undefined ? undefined : JSON.parse(fill(JSON.stringify(body))));
      expect(reply.status, reply.text).toBe(403);
      expect(reply.body.errors[0].code).toBe('FORBIDDEN');
      expect(reply.body.errors[0].field).toBe('sortField');
      expect(await order()).toEqual(before);
    });

    it('moves when the update grant covers the sort field', async () => {
      expect(await order()).toEqual(['a', 'b', 'c']);
      const reply = await as('sorter').post(`/api/cards:move?sourceId=${ids.get('a')}&targetId=${ids.get('c')}`);
      expect(reply.status, reply.text).toBe(200);
      expect(await order()).toEqual(['b', 'c', 'a']);
      const other = await as('other').post(`/api/cards:move?sourceId=${ids.get('c')}&sticky=true&sortField=rank`);
      expect(other.status, other.text).toBe(200);
      expect(await order('rank')).toEqual(['c', 'a', 'b']);
    });

    it('still answers bad parameters with 400 before the grant', async () => {
      const reply = await as('titles').post(`/api/cards:move?sourceId=${ids.get('a')}&targetId=${ids.get('b')}&sortField=title`);
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.errors[0].code).toBe('PARAM_INVALID');
    });
  });
}
