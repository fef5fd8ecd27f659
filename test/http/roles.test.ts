import { beforeAll, describe, expect, it } from 'vitest';
import { apiFor, useDialectApp, type Reply, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

function expectError(reply: Reply, status: number, code: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.errors[0].code, reply.text).toBe(code);
}

const OWN = { ownerId: '{{$user.id}}' };

/** Roles of the tests: view-only, owner-scoped with a field grant, and a field-limited reader. */
const ROLE_DEFS = [
  { name: 'reader', strategy: { actions: ['view'] } },
  {
    name: 'owner',
    strategy: { actions: ['view'] },
    resources: [
      {
        name: 'posts',
        actions: [
          { name: 'view', filter: OWN },
          { name: 'create', fields: ['title', 'ownerId'] },
          { name: 'update', filter: OWN, fields: ['title', 'comments'] },
          { name: 'destroy', filter: OWN },
        ],
      },
      { name: 'comments', actions: [{ name: 'view', filter: { visible: true } }] },
    ],
  },
  {
    name: 'bodies',
    strategy: { actions: [] },
    resources: [
      { name: 'posts', actions: [{ name: 'view', fields: ['id', 'title', 'comments'] }] },
      { name: 'comments', actions: [{ name: 'view', fields: ['id', 'body'] }] },
    ],
  },
  { name: 'titles', strategy: { actions: [] }, resources: [{ name: 'posts', actions: [{ name: 'view', fields: ['id', 'title'] }] }] },
  { name: 'userAdmin', strategy: { actions: ['view'] }, resources: [{ name: 'users', actions: [{ name: 'view' }, { name: 'update' }] }, { name: 'roles', actions: [{ name: 'view' }, { name: 'update' }, { name: 'create' }] }] },
];

for (const dialect of DIALECTS) {
  describe(`roles and grants on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const ids: Record<string, number> = {};
    const posts: Record<string, number> = {};
    const as = (name: string): TestApi => apiFor(ctx.built, { account: `${name}@corral.test`, password: `${name}-password` });
    let reader: TestApi;
    let owner: TestApi;
    let titles: TestApi;
    let userAdmin: TestApi;

    beforeAll(async () => {
      const root = ctx.api;
      await root.collection({ name: 'comments', fields: [{ name: 'body', type: 'string' }, { name: 'visible', type: 'boolean' }] });
      await root.collection({ name: 'posts', fields: [{ name: 'title', type: 'string' }, { name: 'views', type: 'integer' }, { name: 'ownerId', type: 'integer' }, { name: 'comments', type: 'hasMany' }] });
      for (const role of ROLE_DEFS) expect((await root.post('/api/roles:create', role)).status).toBe(201);
      for (const [name, roles] of [['reader', ['reader']], ['owner', ['owner']], ['other', ['owner']], ['titles', ['titles']], ['bodies', ['bodies']], ['both', ['reader', 'owner']], ['userAdmin', ['userAdmin']]] as const) {
        const created = await root.post('/api/users:create', { email: `${name}@corral.test`, password: `${name}-password`, roles });
        expect(created.status, created.text).toBe(201);
        ids[name] = created.body.data.id;
      }
      for (const [title, who] of [['mine', 'owner'], ['theirs', 'other']] as const) {
        const created = await root.post('/api/posts:create', { title, views: 1, ownerId: ids[who], comments: [{ body: `${title} shown`, visible: true }, { body: `${title} hidden`, visible: false }] });
        expect(created.status, created.text).toBe(201);
        posts[title] = created.body.data.id;
      }
      reader = as('reader');
      owner = as('owner');
      titles = as('titles');
      userAdmin = as('userAdmin');
    });

    const titlesOf = (reply: Reply) => reply.body.data.map((post: { title: string }) => post.title).sort();
    const state = async () => JSON.stringify((await ctx.api.get('/api/posts:list?sort=id&appends=comments&paginate=false')).body);

    it('a view-only role reads everything and gets 403 FORBIDDEN on every write, storing nothing', async () => {
      expect(titlesOf(await reader.get('/api/posts:list'))).toEqual(['mine', 'theirs']);
      const before = await state();
      expectError(await reader.post('/api/posts:create', { title: 'no' }), 403, 'FORBIDDEN');
      expectError(await reader.post(`/api/posts:update/${posts.mine}`, { title: 'no' }), 403, 'FORBIDDEN');
      expectError(await reader.post(`/api/posts:destroy/${posts.mine}`), 403, 'FORBIDDEN');
      expectError(await reader.post(`/api/posts/${posts.mine}/comments:create`, { body: 'no' }), 403, 'FORBIDDEN');
      expectError(await reader.post('/api/collections:create', { name: 'nope' }), 403, 'FORBIDDEN');
      expectError(await reader.get('/api/users:list'), 403, 'FORBIDDEN');
      expect(await state()).toBe(before);
    });

    it('row scope: out-of-scope rows are invisible to list, get and count, and 404 to update and destroy', async () => {
      expect(titlesOf(await owner.get('/api/posts:list'))).toEqual(['mine']);
      expect((await owner.get('/api/posts:count')).body.data).toBe(1);
      expect((await owner.get(`/api/posts:get/${posts.mine}`)).status).toBe(200);
      expectError(await owner.get(`/api/posts:get/${posts.theirs}`), 404, 'RECORD_NOT_FOUND');
      const theirs = async () => JSON.stringify((await ctx.api.get(`/api/posts:get/${posts.theirs}?appends=comments`)).body);
      const before = await theirs();
      expectError(await owner.post(`/api/posts:update/${posts.theirs}`, { title: 'taken' }), 404, 'RECORD_NOT_FOUND');
      expectError(await owner.post(`/api/posts:destroy/${posts.theirs}`), 404, 'RECORD_NOT_FOUND');
      const bulk = await owner.post('/api/posts:update?filter=' + encodeURIComponent('{"views":1}'), { title: 'bulk' });
      expect(bulk.status, bulk.text).toBe(200);
      const after = await ctx.api.get(`/api/posts:get/${posts.theirs}`);
      expect(after.body.data.title).toBe('theirs');
      expect((await ctx.api.get(`/api/posts:get/${posts.mine}`)).body.data.title).toBe('bulk');
      expect((await owner.post(`/api/posts:update/${posts.mine}`, { title: 'mine' })).status).toBe(200);
      expect(await theirs()).toBe(before);
    });

    it('appends, association routes and relation filters see only in-scope rows', async () => {
      const listed = await owner.get('/api/posts:list?appends=comments');
      expect(listed.body.data[0].comments.map((c: { body: string }) => c.body)).toEqual(['mine shown']);
      const through = await owner.get(`/api/posts/${posts.mine}/comments:list`);
      expect(through.body.data.map((c: { body: string }) => c.body)).toEqual(['mine shown']);
      expectError(await owner.get(`/api/posts/${posts.theirs}/comments:list`), 404, 'RECORD_NOT_FOUND');
      const byHidden = await owner.get('/api/posts:list?filter=' + encodeURIComponent('{"comments.body":"mine hidden"}'));
      expect(byHidden.body.data).toEqual([]);
      const byShown = await owner.get('/api/posts:list?filter=' + encodeURIComponent('{"comments.body":"theirs shown"}'));
      expect(byShown.body.data).toEqual([]);
      const comments = await owner.get('/api/comments:list');
      expect(comments.body.data.map((c: { body: string }) => c.body).sort()).toEqual(['mine shown', 'theirs shown']);
    });

    it('field grants: reads return only granted fields; writing another field is 403 with nothing stored', async () => {
      const listed = await titles.get('/api/posts:list?sort=id');
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.data).toEqual([{ id: posts.mine, title: 'mine' }, { id: posts.theirs, title: 'theirs' }]);
      expect(Object.keys((await titles.get(`/api/posts/${posts.mine}`)).body.data).sort()).toEqual(['id', 'title']);
      expectError(await titles.get('/api/posts:list?appends=comments'), 403, 'FORBIDDEN');
      const before = await state();
      expectError(await owner.post(`/api/posts:update/${posts.mine}`, { title: 'x', views: 99 }), 403, 'FORBIDDEN');
      expectError(await owner.post('/api/posts:create', { title: 'x', views: 5 }), 403, 'FORBIDDEN');
      expect(await state()).toBe(before);
      const created = await owner.post('/api/posts:create', { title: 'new', ownerId: ids.owner });
      expect(created.status, created.text).toBe(201);
      expect((await owner.post(`/api/posts:destroy/${created.body.data.id}`)).status).toBe(200);
    });

    it('field grants apply to appended and associated rows: a field outside the read grant never appears', async () => {
      const bodies = as('bodies');
      const keys = (item: object) => Object.keys(item).sort();
      const cases: Array<[string, (reply: Reply) => object[]]> = [
        ['/api/posts:list?sort=id&appends=comments', (reply) => reply.body.data.flatMap((post: { comments: object[] }) => post.comments)],
        [`/api/posts:get/${posts.mine}?appends=comments`, (reply) => reply.body.data.comments],
        [`/api/posts/${posts.mine}/comments:list`, (reply) => reply.body.data],
        ['/api/comments:list', (reply) => reply.body.data],
        ['/api/comments:list?fields=id,body,visible', (reply) => reply.body.data],
      ];
      for (const [url, embedded] of cases) {
        const reply = await bodies.get(url);
        expect(reply.status, `${url}: ${reply.text}`).toBe(200);
        const items = embedded(reply);
        expect(items.length, url).toBeGreaterThan(0);
        for (const item of items) expect(keys(item), url).toEqual(['body', 'id']);
      }
      const listed = await bodies.get('/api/posts:list?sort=id&appends=comments');
      expect(keys(listed.body.data[0])).toEqual(['comments', 'id', 'title']);
      // Root still sees every field of the same rows.
      const full = await ctx.api.get('/api/posts:list?sort=id&appends=comments');
      expect(keys(full.body.data[0].comments[0])).toEqual(expect.arrayContaining(['body', 'id', 'postId', 'visible']));
    });

    it('roles/<role>/resources: list, get, create, update and destroy a role\'s grants per collection; they take effect', async () => {
      const root = ctx.api;
      expect((await root.post('/api/roles:create', { name: 'editor', strategy: { actions: ['view'] } })).status).toBe(201);
      expect((await root.post('/api/users:create', { email: 'editor@corral.test', password: 'editor-password', roles: ['editor'] })).status).toBe(201);
      const editor = as('editor');
      expect(titlesOf(await editor.get('/api/posts:list'))).toEqual(['mine', 'theirs']);
      const base = '/api/roles/editor/resources';
      expect((await root.get(`${base}:list`)).body).toEqual({ data: [] });

      const grant = { name: 'posts', actions: [{ name: 'view', filter: { title: 'mine' } }] };
      const created = await root.post(`${base}:create`, grant);
      expect(created.status, created.text).toBe(201);
      expect(created.body.data).toEqual(grant);
      expect(created.headers.location).toBe('/api/roles/editor/resources/posts');
      expect((await root.get(`${base}:list`)).body.data).toEqual([grant]);
      expect((await root.get(`${base}:get/posts`)).body.data).toEqual(grant);
      expect((await root.get('/api/roles:get/editor')).body.data.resources).toEqual([grant]);
      expect(titlesOf(await editor.get('/api/posts:list'))).toEqual(['mine']);

      const widened = { actions: [{ name: 'view', fields: ['id', 'title'] }] };
      const updated = await root.post(`${base}:update/posts`, widened);
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.data).toEqual({ name: 'posts', ...widened });
      const listed = await editor.get('/api/posts:list?sort=id');
      expect(listed.body.data).toEqual([{ id: posts.mine, title: 'mine' }, { id: posts.theirs, title: 'theirs' }]);

      // Refusals, table-driven: [who, method, url, body, status, code].
      const refusals: Array<[TestApi, string, string, unknown, number, string]> = [
        [root, 'POST', `${base}:create`, grant, 409, 'UNIQUE_VIOLATION'],
        [root, 'GET', `${base}:get/comments`, undefined, 404, 'RECORD_NOT_FOUND'],
        [root, 'POST', `${base}:update/comments`, widened, 404, 'RECORD_NOT_FOUND'],
        [root, 'GET', '/api/roles/nobody/resources:list', undefined, 404, 'RECORD_NOT_FOUND'],
        [root, 'POST', `${base}:create`, { name: 'nowhere', actions: [] }, 400, 'VALIDATION_FAILED'],
        [root, 'POST', `${base}:create`, { name: 'comments', actions: [{ name: 'fly' }] }, 400, 'VALIDATION_FAILED'],
        [root, 'POST', `${base}:create`, { name: 'comments', actions: [{ name: 'view', fields: ['colour'] }] }, 400, 'VALIDATION_FAILED'],
        [root, 'POST', `${base}:create`, { name: 'comments', actions: [{ name: 'view', filter: { colour: 'red' } }] }, 400, 'FILTER_UNKNOWN_FIELD'],
        [reader, 'GET', `${base}:list`, undefined, 403, 'FORBIDDEN'],
        [reader, 'POST', `${base}:create`, { name: 'comments', actions: [{ name: 'view' }] }, 403, 'FORBIDDEN'],
        // userAdmin may update roles but holds no destroy on posts: it cannot grant it.
        [userAdmin, 'POST', `${base}:update/posts`, { actions: [{ name: 'destroy' }] }, 403, 'FORBIDDEN'],
        [userAdmin, 'POST', '/api/roles/userAdmin/resources:create', { name: 'comments', actions: [{ name: 'view' }] }, 403, 'FORBIDDEN'],
      ];
      for (const [who, method, url, body, status, code] of refusals) expectError(await who.request(method, url, body), status, code);
      expect((await root.get(`${base}:get/posts`)).body.data).toEqual({ name: 'posts', ...widened });

      const destroyed = await root.post(`${base}:destroy/posts`);
      expect(destroyed.body).toEqual({ data: 1 });
      expect((await root.post(`${base}:destroy/posts`)).body).toEqual({ data: 0 });
      expect((await root.get(`${base}:list`)).body.data).toEqual([]);
      expect(titlesOf(await editor.get('/api/posts:list'))).toEqual(['mine', 'theirs']);
    });

    it('X-Role picks one of the user\'s roles; the default is their union', async () => {
      const both = as('both');
      expect(titlesOf(await both.get('/api/posts:list'))).toEqual(['mine', 'theirs']);
      expect((await both.request('POST', '/api/posts:create', { title: 'union', ownerId: ids.both })).status).toBe(201);
      expectError(await both.request('POST', '/api/posts:create', { title: 'no' }, { 'x-role': 'reader' }), 403, 'FORBIDDEN');
      expectError(await both.request('GET', '/api/posts:list', undefined, { 'x-role': 'root' }), 403, 'FORBIDDEN');
      await ctx.api.post('/api/posts:destroy?filter=' + encodeURIComponent('{"title":"union"}'));
    });

    it('nobody can grant themselves more than they have', async () => {
      expectError(await userAdmin.post(`/api/users:update/${ids.userAdmin}`, { roles: ['root'] }), 403, 'FORBIDDEN');
      expectError(await userAdmin.post(`/api/users:update/${ids.reader}`, { roles: ['owner'] }), 403, 'FORBIDDEN');
      expectError(await userAdmin.post('/api/roles:update/userAdmin', { strategy: { actions: ['view', 'create', 'update', 'destroy'] } }), 403, 'FORBIDDEN');
      expectError(await userAdmin.post('/api/roles:create', { name: 'sneaky', strategy: { actions: ['destroy'] } }), 403, 'FORBIDDEN');
      expectError(await userAdmin.post('/api/roles:update/reader', { resources: [{ name: 'users', actions: [{ name: 'destroy' }] }] }), 403, 'FORBIDDEN');
      expectError(await owner.post(`/api/users:update/${ids.owner}`, { roles: ['root'] }), 403, 'FORBIDDEN');
      expect((await ctx.api.get(`/api/users/${ids.userAdmin}`)).body.data.roles).toEqual(['userAdmin']);
      expect((await userAdmin.post(`/api/users:update/${ids.userAdmin}`, { nickname: 'Ursula' })).status).toBe(200);
      // Users holding a role userAdmin lacks (root above all) are out of reach: no new password for them.
      const rootId = (await ctx.api.get('/api/auth:check')).body.data.id;
      expectError(await userAdmin.post(`/api/users:update/${rootId}`, { password: 'mine-now' }), 404, 'RECORD_NOT_FOUND');
      expectError(await userAdmin.post(`/api/users:update/${ids.owner}`, { password: 'mine-now' }), 404, 'RECORD_NOT_FOUND');
    });

    it('API keys: created once with a token, act as the creator within their role, revoked by destroy', async () => {
      const created = await ctx.api.post('/api/apiKeys:create', { name: 'ci', role: 'reader', expiresIn: 3600 });
      expect(created.status, created.text).toBe(201);
      const { id, token } = created.body.data;
      expect(typeof token).toBe('string');
      const listed = await ctx.api.get('/api/apiKeys:list');
      expect(listed.body.data).toHaveLength(1);
      expect(JSON.stringify(listed.body)).not.toContain(token);
      expect(listed.body.data[0]).not.toHaveProperty('tokenHash');
      const key = apiFor(ctx.built, null);
      const auth = { authorization: `Bearer ${token}` };
      expect((await key.request('GET', '/api/posts:list', undefined, auth)).status).toBe(200);
      expectError(await key.request('POST', '/api/posts:create', { title: 'by key' }, auth), 403, 'FORBIDDEN');
      expectError(await key.request('GET', '/api/users:list', undefined, auth), 403, 'FORBIDDEN');
      expectError(await owner.post('/api/apiKeys:create', { name: 'mine', role: 'root' }), 403, 'FORBIDDEN');
      expect((await ctx.api.post(`/api/apiKeys:destroy/${id}`)).status).toBe(200);
      expectError(await key.request('GET', '/api/posts:list', undefined, auth), 401, 'AUTH_INVALID_TOKEN');
    });
  });
}
