import { beforeAll, describe, expect, it } from 'vitest';
import { apiFor, useDialectApp, type Reply, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

/**
 * A role whose `view` grants list fields may not probe the others: every filter, sort,
 * search, filterKeys or query term naming a field outside the read grant (of the collection
 * the path reaches) is 403 FORBIDDEN naming it, and a write refused so stores nothing.
 */
const ROLES = [
  {
    name: 'limited',
    strategy: { actions: [] },
    resources: [
      {
        name: 'posts',
        actions: [
          { name: 'view', fields: ['id', 'title', 'body', 'author', 'authorId'] },
          { name: 'create', fields: ['title', 'secret'] },
          { name: 'update', fields: ['title'] },
          { name: 'destroy' },
        ],
      },
      { name: 'authors', actions: [{ name: 'view', fields: ['id', 'name'] }] },
    ],
  },
  { name: 'everything', strategy: { actions: ['view', 'create', 'update', 'destroy'] } },
];

/** [what, method, url, body?, the field named in the 403]: all refused for `limited`. */
type Probe = [string, string, string, unknown, string];

const PROBES: Probe[] = [
  ['filter on an unreadable field', 'GET', `/api/posts:list?filter=${q({ secret: { $eq: 'x' } })}`, undefined, 'secret'],
  ['inside $and', 'GET', `/api/posts:list?filter=${q({ $and: [{ title: 'a' }, { secret: 'x' }] })}`, undefined, 'secret'],
  ['inside $or', 'GET', `/api/posts:list?filter=${q({ $or: [{ title: 'a' }, { secret: { $includes: 'x' } }] })}`, undefined, 'secret'],
  ['inside $not', 'GET', `/api/posts:list?filter=${q({ $not: { secret: 'x' } })}`, undefined, 'secret'],
  ['$exists on a field', 'GET', `/api/posts:list?filter=${q({ secret: { $exists: true } })}`, undefined, 'secret'],
  ['an association path, checked in the target', 'GET', `/api/posts:list?filter=${q({ 'author.secret': 'x' })}`, undefined, 'author.secret'],
  ['a nested association object', 'GET', `/api/posts:list?filter=${q({ author: { secret: { $ne: null } } })}`, undefined, 'author.secret'],
  ['an association outside the grant', 'GET', `/api/authors:list?filter=${q({ posts: { $exists: true } })}`, undefined, 'posts'],
  ['$search over an unreadable searchable field', 'GET', `/api/posts:list?filter=${q({ $search: 'hello' })}`, undefined, 'secret'],
  ['?q=', 'GET', '/api/posts:list?q=hello', undefined, 'secret'],
  ['sort', 'GET', '/api/posts:list?sort=secret', undefined, 'secret'],
  ['descending sort through an association', 'GET', '/api/posts:list?sort=-author.secret', undefined, 'author.secret'],
  ['keyset cursor sort', 'GET', '/api/posts:list?cursor=&sort=secret', undefined, 'secret'],
  ['get with a filter', 'GET', `/api/posts:get?filter=${q({ secret: 'x' })}`, undefined, 'secret'],
  ['count', 'GET', `/api/posts:count?filter=${q({ secret: 'x' })}`, undefined, 'secret'],
  ['association route filter', 'GET', `/api/authors/1/posts:list?filter=${q({ secret: 'x' })}`, undefined, 'secret'],
  ['association route count', 'GET', `/api/authors/1/posts:count?filter=${q({ secret: 'x' })}`, undefined, 'secret'],
  ['query dimension', 'POST', '/api/posts:query', { dimensions: [{ field: 'secret' }], measures: [{ aggregation: 'count', alias: 'n' }] }, 'secret'],
  ['query dimension through an association', 'POST', '/api/posts:query', { dimensions: [{ field: 'author.secret' }], measures: [{ aggregation: 'count', alias: 'n' }] }, 'author.secret'],
  ['query measure', 'POST', '/api/posts:query', { measures: [{ field: 'secret', aggregation: 'max', alias: 'm' }] }, 'secret'],
  ['query filter', 'POST', '/api/posts:query', { measures: [{ aggregation: 'count', alias: 'n' }], filter: { secret: 'x' } }, 'secret'],
  ['subscribe filter', 'GET', `/api/posts:subscribe?filter=${q({ secret: 'x' })}`, undefined, 'secret'],
  ['update by filter', 'POST', `/api/posts:update?filter=${q({ secret: 'alpha-secret' })}`, { title: 'changed' }, 'secret'],
  ['destroy by filter', 'POST', `/api/posts:destroy?filter=${q({ secret: { $startsWith: 'alpha' } })}`, undefined, 'secret'],
  ['firstOrCreate filterKeys', 'POST', '/api/posts:firstOrCreate?filterKeys=secret', { title: 'probe', secret: 'alpha-secret' }, 'secret'],
];

/** [what, url, body?]: readable fields keep working for `limited`. */
const ALLOWED: Array<[string, string, string, unknown?]> = [
  ['filter on a readable field', 'GET', `/api/posts:list?filter=${q({ title: 'alpha' })}`],
  ['a readable association path', 'GET', `/api/posts:list?filter=${q({ 'author.name': 'ann' })}&sort=-author.name`],
  ['association $exists', 'GET', `/api/posts:list?filter=${q({ author: { $exists: true } })}`],
  ['cursor on a readable sort', 'GET', '/api/posts:list?cursor=&sort=title'],
  ['count', 'GET', `/api/posts:count?filter=${q({ body: { $includes: 'text' } })}`],
  ['query on readable fields', 'POST', '/api/posts:query', { dimensions: [{ field: 'author.name' }], measures: [{ aggregation: 'count', alias: 'n' }], filter: { title: { $ne: null } } }],
];

for (const dialect of DIALECTS) {
  describe(`field grants bound filters and sorts on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { changesPollMs: 50 });
    const as = (name: string): TestApi => apiFor(ctx.built, { account: `${name}@corral.test`, password: `${name}-password` });
    let limited: TestApi;
    let everything: TestApi;

    beforeAll(async () => {
      const root = ctx.api;
      await root.collection({ name: 'authors', fields: [{ name: 'name', type: 'string' }, { name: 'secret', type: 'string' }] });
      await root.collection({
        name: 'posts',
        fields: [
          { name: 'title', type: 'string', searchable: true },
          { name: 'body', type: 'text', searchable: true },
          { name: 'secret', type: 'string', searchable: true },
          { name: 'author', type: 'belongsTo' },
        ],
      });
      const relation = await root.post('/api/collections/authors/fields:create', { name: 'posts', type: 'hasMany', target: 'posts', foreignKey: 'authorId' });
      expect(relation.status, relation.text).toBe(201);
      for (const role of ROLES) expect((await root.post('/api/roles:create', role)).status).toBe(201);
      for (const name of ['limited', 'everything']) {
        const created = await root.post('/api/users:create', { email: `${name}@corral.test`, password: `${name}-password`, roles: [name] });
        expect(created.status, created.text).toBe(201);
      }
      const author = await root.post('/api/authors:create', { name: 'ann', secret: 'ann-secret' });
      expect(author.status, author.text).toBe(201);
      for (const title of ['alpha', 'beta']) {
        const post = await root.post('/api/posts:create', { title, body: `${title} text`, secret: `${title}-secret`, author: author.body.data.id });
        expect(post.status, post.text).toBe(201);
      }
      limited = as('limited');
      everything = as('everything');
    });

    const state = async (): Promise<string> => JSON.stringify((await ctx.api.get('/api/posts:list?sort=id&paginate=false')).body);

    it.each(PROBES)('%s: 403 FORBIDDEN naming the field, nothing changed', async (_what, method, url, body, field) => {
      const before = await state();
      const reply: Reply = await limited.request(method, url, body);
      expect(reply.status, reply.text).toBe(403);
      expect(reply.body.errors[0].code, reply.text).toBe('FORBIDDEN');
      expect(reply.body.errors[0].field, reply.text).toBe(field);
      expect(await state()).toBe(before);
    });

    it.each(ALLOWED)('%s: answered', async (_what, method, url, body) => {
      const reply = await limited.request(method, url, body);
      expect(reply.status, reply.text).toBe(200);
    });

    it('the answer to an allowed filter is the same as root gets (of the granted fields)', async () => {
      const mine = await limited.get(`/api/posts:list?filter=${q({ 'author.name': 'ann', title: { $startsWith: 'al' } })}&sort=title`);
      expect(mine.body.data).toEqual([expect.objectContaining({ title: 'alpha' })]);
      expect(Object.keys(mine.body.data[0]).sort()).toEqual(['authorId', 'body', 'id', 'title']);
      expect(mine.body.meta.count).toBe(1);
    });

    it('root and a role without field lists may filter and sort on every field', async () => {
      for (const api of [ctx.api, everything]) {
        const reply = await api.get(`/api/posts:list?filter=${q({ secret: 'alpha-secret', 'author.secret': 'ann-secret' })}&sort=-secret`);
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body.data.map((post: { title: string }) => post.title)).toEqual(['alpha']);
        expect((await api.get('/api/posts:list?q=alpha-secret')).body.data).toHaveLength(1);
      }
    });

    it('updateOrCreate needs both grants and writes only fields both allow', async () => {
      const updated = await limited.post('/api/posts:updateOrCreate?filterKeys=title', { title: 'alpha' });
      expect(updated.status, updated.text).toBe(200);
      const created = await limited.post('/api/posts:updateOrCreate?filterKeys=title', { title: 'gamma' });
      expect(created.status, created.text).toBe(201);
      const before = await state();
      const secret = await limited.post('/api/posts:updateOrCreate?filterKeys=title', { title: 'delta', secret: 's' });
      expect(secret.status, secret.text).toBe(403);
      expect(secret.body.errors[0].field).toBe('secret');
      expect(await state()).toBe(before);
      const authors = await limited.post('/api/authors:updateOrCreate?filterKeys=name', { name: 'ann' });
      expect(authors.status, authors.text).toBe(403);
      expect(authors.body.errors[0].code).toBe('FORBIDDEN');
      await ctx.api.post(`/api/posts:destroy?filter=${q({ title: 'gamma' })}`);
    });

    it('bad input keeps its 400 for a field-limited role', async () => {
      const reply = await limited.get(`/api/posts:list?filter=${q({ nope: 1 })}`);
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.errors[0].code).toBe('FILTER_UNKNOWN_FIELD');
    });
  });
}
