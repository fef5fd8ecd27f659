import { beforeAll, describe, expect, it } from 'vitest';
import { apiFor, useDialectApp, type Reply, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * NocoBase's ACL cases (plugin-acl/src/server/__tests__/ and core/database/src/__tests__/),
 * ported in our words over HTTP: each names the NocoBase file and test it comes from.
 * Deliberate differences are in docs/api.md "Differences from NocoBase" → "ACL and API keys".
 */
const NB = 'packages/plugins/@nocobase/plugin-acl/src/server/__tests__';

const ok = (reply: Reply, status = 200): Reply => {
  expect(reply.status, reply.text).toBe(status);
  return reply;
};

for (const dialect of DIALECTS) {
  describe(`NocoBase compatibility: ACL on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const users: Record<string, TestApi> = {};
    const ids: Record<string, number> = {};
    let n = 0;

    /** A role saved by root, and a fresh user holding `roles`. */
    const role = async (body: Record<string, unknown>): Promise<void> => void ok(await ctx.api.post('/api/roles:create', body), 201);
    const user = async (roles: string[]): Promise<{ api: TestApi; id: number }> => {
      const name = `u${++n}`;
      const created = ok(await ctx.api.post('/api/users:create', { email: `${name}@acl.test`, password: `${name}-password`, roles }), 201);
      return { api: apiFor(ctx.built, { account: `${name}@acl.test`, password: `${name}-password` }), id: created.body.data.id };
    };

    beforeAll(async () => {
      await ctx.api.collection({ name: 'posts', createdBy: true, updatedBy: true, fields: [{ name: 'title', type: 'string' }, { name: 'published', type: 'boolean' }] });
      await ctx.api.collection({ name: 'tests', fields: [{ name: 'name', type: 'string' }] });
      await ctx.api.collection({ name: 'comments', createdBy: true, fields: [{ name: 'body', type: 'string' }] });
      ok(await ctx.api.post('/api/collections/posts/fields:create', { name: 'comments', type: 'hasMany', target: 'comments', foreignKey: 'postId' }), 201);
      ok(await ctx.api.post('/api/tests:create', { name: 'by root' }), 201);
      for (const name of ['a', 'b']) {
        const made = await user([]);
        users[name] = made.api;
        ids[name] = made.id;
      }
    });

    const FIELDS = 'packages/plugins/@nocobase/plugin-users/src/server/__tests__/fields.test.ts';
    describe('createdBy, updatedBy, createdAt, updatedAt (plugin-users fields.test.ts)', () => {
      it(`collection definition case 1 and case 2 (${FIELDS}): createdBy/updatedBy relations, filled with the signed-in user`, async () => {
        const definition = ok(await ctx.api.get('/api/collections/posts')).body.data;
        expect(JSON.stringify(definition)).toContain('createdById');
        const me = (await ctx.api.get('/api/auth:check')).body.data.id;
        const post = ok(await ctx.api.post('/api/posts:create', { title: 'root post' }), 201).body.data;
        expect(post.createdById).toBe(me);
        expect(post.updatedById).toBe(me);
        const read = ok(await ctx.api.get(`/api/posts:get?filterByTk=${post.id}&appends[]=createdBy`)).body.data;
        expect(read.createdBy.id).toBe(me);
      });

      it(`should add createdBy field (${FIELDS}): a belongsTo to users over createdById added later is stamped too`, async () => {
        await ctx.api.collection({ name: 'a', timestamps: false, fields: [{ name: 'n', type: 'string' }] });
        ok(await ctx.api.post('/api/collections/a/fields:create', { name: 'xxxxxx', type: 'belongsTo', target: 'users', foreignKey: 'createdById' }), 201);
        const me = (await ctx.api.get('/api/auth:check')).body.data.id;
        const row = ok(await ctx.api.post('/api/a:create', { n: 'x', createdById: 999 }), 201).body.data;
        const read = ok(await ctx.api.get(`/api/a:get?filterByTk=${row.id}&appends[]=xxxxxx`)).body.data;
        expect(read.xxxxxx.id).toBe(me);
      });

      it(`collection definition case 3 (${FIELDS}): updatedBy follows the last writer, createdBy stays`, async () => {
        await role({ name: 'writer', strategy: { actions: ['view', 'create', 'update'] } });
        const writer = await user(['writer']);
        const post = ok(await ctx.api.post('/api/posts:create', { title: 'by root' }), 201).body.data;
        const updated = ok(await writer.api.post(`/api/posts:update?filterByTk=${post.id}`, { title: 'edited' })).body.data;
        expect(updated[0] ?? updated).toMatchObject({ createdById: post.createdById, updatedById: writer.id });
      });

      it('createdAt: false leaves out createdAt, updatedAt stays (NocoBase collection options createdAt/updatedAt; docs collection-options.md)', async () => {
        await ctx.api.collection({ name: 'stamps', createdAt: false, fields: [{ name: 'x', type: 'string' }] });
        const row = ok(await ctx.api.post('/api/stamps:create', { x: '1' }), 201).body.data;
        expect(row.createdAt).toBeUndefined();
        expect(typeof row.updatedAt).toBe('string');
        expect(ok(await ctx.api.post('/api/collections:create', { name: 'bad_stamps', createdBy: 'yes' }), 400).body.errors[0].code).toBe('SCHEMA_INVALID');
      });
    });

    describe('own (own.test.ts)', () => {
      it(`should list without createBy (${NB}/own.test.ts): 200, no row is owned there`, async () => {
        await role({ name: 'viewOwn', strategy: { actions: ['view:own'] } });
        const { api } = await user(['viewOwn']);
        const reply = ok(await api.get('/api/tests:list'));
        expect(reply.body.data).toEqual([]);
      });

      it(`should delete with createdBy (${NB}/own.test.ts)`, async () => {
        await role({ name: 'ownPosts', strategy: { actions: ['view:own', 'create', 'destroy:own', 'update:own'] } });
        const mine = await user(['ownPosts']);
        const other = await user(['ownPosts']);
        const created = ok(await mine.api.post('/api/posts:create', { title: 't1' }), 201).body.data;
        expect(created.createdById).toBe(mine.id);
        const theirs = ok(await other.api.post('/api/posts:create', { title: 't2' }), 201).body.data;
        // Only own rows are seen, changed and destroyed.
        expect(ok(await mine.api.get('/api/posts:list?paginate=false')).body.data.map((p: { id: number }) => p.id)).toEqual([created.id]);
        ok(await mine.api.post(`/api/posts:update?filterByTk=${theirs.id}`, { title: 'hijacked' }), 404);
        // Rows outside the own scope are as if they did not exist.
        ok(await mine.api.post(`/api/posts:destroy?filterByTk=${theirs.id}`), 404);
        expect(ok(await ctx.api.get(`/api/posts:get?filterByTk=${theirs.id}`)).body.data.title).toBe('t2');
        ok(await mine.api.post(`/api/posts:destroy?filterByTk=${created.id}`));
        ok(await ctx.api.get(`/api/posts:get?filterByTk=${created.id}`), 404);
      });

      it('a client-supplied createdById is ignored: nobody creates a row in another user\'s name (Corral)', async () => {
        await role({ name: 'ownForger', strategy: { actions: ['view:own', 'create'] } });
        const forger = await user(['ownForger']);
        const victim = await user(['ownForger']);
        const row = ok(await forger.api.post('/api/posts:create', { title: 'forged', createdById: victim.id, updatedById: victim.id, createdBy: victim.id }), 201).body.data;
        expect(row).toMatchObject({ createdById: forger.id, updatedById: forger.id });
        expect(ok(await victim.api.get('/api/posts:list')).body.data).toEqual([]);
      });

      it('nobody grants more than they have: view:own may pass on view:own, not view (Corral)', async () => {
        await role({ name: 'roleAdmin', strategy: { actions: ['view:own'] }, resources: [{ name: 'roles', actions: [{ name: 'view' }, { name: 'create' }] }] });
        const admin = await user(['roleAdmin']);
        expect(ok(await admin.api.post('/api/roles:create', { name: 'wider', strategy: { actions: ['view'] } }), 403).body.errors[0].field).toBe('strategy');
        ok(await admin.api.post('/api/roles:create', { name: 'narrow', strategy: { actions: ['view:own'] } }), 201);
      });

      it('unknown strategy actions are refused, not stored (role.test.ts strategy)', async () => {
        for (const actions of [['view', 'fly'], ['create:own'], ['view:mine'], [7]]) {
          const reply = ok(await ctx.api.post('/api/roles:create', { name: `bad${++n}`, strategy: { actions } }), 400);
          expect(reply.body.errors[0].code).toBe('VALIDATION_FAILED');
        }
        ok(await ctx.api.post('/api/roles:create', { name: '__union__' }), 400);
      });
    });

    describe('role resources with a scope (union-role.test.ts, role-resource.test.ts)', () => {
      it(`Data sources -> Action permissions, actions (${NB}/union-role.test.ts): the own scope with fields [id, createdBy, createdById]`, async () => {
        await role({ name: 'r1' });
        await role({ name: 'r2' });
        const member = await user(['r1', 'r2']);
        ok(await member.api.request('GET', '/api/posts:list', undefined, { 'x-role': '__union__' }), 403);
        ok(await ctx.api.post('/api/roles/r1/resources:create', { name: 'posts', actions: [{ name: 'view', fields: ['id', 'createdBy', 'createdById'], scope: { key: 'own', name: 'Own records' } }, { name: 'create' }] }), 201);
        ok(await member.api.post('/api/posts:create', { title: 'member post' }), 201);
        const list = ok(await member.api.request('GET', '/api/posts:list?appends[]=createdBy', undefined, { 'x-role': '__union__' })).body.data;
        expect(list.length).toBeGreaterThan(0);
        expect(list.every((post: { createdById: number }) => post.createdById === member.id)).toBe(true);
        expect(list.some((post: { title?: string }) => post.title !== undefined)).toBe(false);
        // users is outside every strategy (docs/auth.md): without a grant on users the appended creator is hidden.
        expect(list[0].createdBy).toBeNull();
      });

      it('an own scope on a collection without createdById is refused when the role is saved (Corral)', async () => {
        const reply = ok(await ctx.api.post('/api/roles/r2/resources:create', { name: 'tests', actions: [{ name: 'view', scope: 'own' }] }), 400);
        expect(reply.body.errors[0].code).toBe('VALIDATION_FAILED');
      });

      it(`should create scope of resource (${NB}/scope.test.ts): a named scope is the action's inline filter here`, async () => {
        await role({ name: 'published', resources: [{ name: 'posts', actions: [{ name: 'view', filter: { published: true } }] }] });
        const reader = await user(['published']);
        ok(await ctx.api.post('/api/posts:create', { title: 'out', published: true }), 201);
        const titles = ok(await reader.api.get('/api/posts:list?paginate=false')).body.data.map((p: { title: string }) => p.title);
        expect(titles).toContain('out');
        expect(ok(await ctx.api.get('/api/posts:count?filter=' + encodeURIComponent(JSON.stringify({ published: { $ne: true } })))).body.data).toBeGreaterThan(0);
        expect(titles.length).toBe(ok(await ctx.api.get('/api/posts:count?filter=' + encodeURIComponent(JSON.stringify({ published: true })))).body.data);
      });
    });

    describe('union role (union-role.test.ts)', () => {
      it(`Data sources -> General action permissions, strategy.actions: role1->[view], role2->[create] (${NB}/union-role.test.ts)`, async () => {
        await role({ name: 'u_view', strategy: { actions: ['view'] } });
        await role({ name: 'u_create', strategy: { actions: ['create'] } });
        const both = await user(['u_view', 'u_create']);
        const union = { 'x-role': '__union__' };
        ok(await both.api.request('GET', '/api/tests:list', undefined, union));
        ok(await both.api.request('POST', '/api/tests:create', { name: 'u' }, union), 201);
        ok(await both.api.request('POST', '/api/tests:create', { name: 'u' }, { 'x-role': 'u_view' }), 403);
        ok(await both.api.request('GET', '/api/tests:list', undefined, { 'x-role': 'u_create' }), 403);
        const check = ok(await both.api.request('GET', '/api/auth:check', undefined, union)).body.data;
        expect([...check.roles].sort()).toEqual(['u_create', 'u_view']);
      });

      it('under __union__ row filters OR and field lists add up (union-role.test.ts)', async () => {
        await role({ name: 'f1', resources: [{ name: 'posts', actions: [{ name: 'view', fields: ['id', 'title'], filter: { published: true } }] }] });
        await role({ name: 'f2', resources: [{ name: 'posts', actions: [{ name: 'view', fields: ['id', 'published'], scope: 'own' }, { name: 'create' }] }] });
        const member = await user(['f1', 'f2']);
        const mine = ok(await member.api.post('/api/posts:create', { title: 'mine', published: false }), 201).body.data;
        const list = ok(await member.api.request('GET', '/api/posts:list?paginate=false', undefined, { 'x-role': '__union__' })).body.data;
        const published = ok(await ctx.api.get('/api/posts:count?filter=' + encodeURIComponent(JSON.stringify({ published: true })))).body.data;
        expect(list.length).toBe(published + 1);
        expect(list.find((p: { id: number }) => p.id === mine.id)).toEqual({ id: mine.id, title: 'mine', published: false });
        const one = ok(await member.api.request('GET', '/api/posts:list?paginate=false', undefined, { 'x-role': 'f2' })).body.data;
        expect(one).toEqual([{ id: mine.id, published: false }]);
      });
    });

    describe('association fields in a field grant (association-field.test.ts)', () => {
      it(`should access association actions by target permission (${NB}/association-field.test.ts)`, async () => {
        const post = ok(await ctx.api.post('/api/posts:create', { title: 'hello world', comments: [{ body: 'comment 1' }] }), 201).body.data;
        await role({ name: 'test-role', resources: [{ name: 'posts', actions: [{ name: 'view', fields: ['comments'] }] }] });
        const member = await user(['test-role']);
        ok(await member.api.get(`/api/posts/${post.id}/comments:list`), 403);
        ok(await ctx.api.post('/api/roles/test-role/resources:create', { name: 'comments', actions: [{ name: 'view' }] }), 201);
        const listed = ok(await member.api.get(`/api/posts/${post.id}/comments:list`)).body.data;
        expect(listed.map((c: { body: string }) => c.body)).toEqual(['comment 1']);
      });

      it(`a field grant naming an association returns it to fields/appends, narrowed by the target's grant (${NB}/association-field.test.ts)`, async () => {
        const post = ok(await ctx.api.post('/api/posts:create', { title: 'with comments', comments: [{ body: 'c1' }, { body: 'c2' }] }), 201).body.data;
        await role({ name: 'assoc', resources: [{ name: 'posts', actions: [{ name: 'view', fields: ['title', 'comments'] }] }, { name: 'comments', actions: [{ name: 'view', fields: ['id', 'body'], filter: { body: 'c1' } }] }] });
        const reader = await user(['assoc']);
        const reply = ok(await reader.api.get(`/api/posts:get?filterByTk=${post.id}&fields[]=title&fields[]=comments`)).body.data;
        expect(reply.title).toBe('with comments');
        expect(reply.comments.map((c: { body: string }) => c.body)).toEqual(['c1']);
        const listed = ok(await reader.api.get(`/api/posts:list?fields[]=title&fields[]=comments&filterByTk=${post.id}`)).body.data;
        expect(listed.find((p: { title: string }) => p.title === 'with comments').comments.map((c: { body: string }) => c.body)).toEqual(['c1']);
        const appended = ok(await reader.api.get(`/api/posts:get?filterByTk=${post.id}&appends[]=comments`)).body.data;
        expect(appended.comments.map((c: { body: string }) => c.body)).toEqual(['c1']);
        // The target under the strategy alone (no field list of its own): the association comes whole.
        await role({ name: 'assocStrategy', strategy: { actions: ['view'] }, resources: [{ name: 'posts', actions: [{ name: 'view', fields: ['title', 'comments'] }] }] });
        const strategy = await user(['assocStrategy']);
        const whole = ok(await strategy.api.get(`/api/posts:list?fields[]=title&fields[]=comments&filterByTk=${post.id}`)).body.data;
        expect(whole.find((p: { title: string }) => p.title === 'with comments').comments.map((c: { body: string }) => c.body).sort()).toEqual(['c1', 'c2']);
        // Without a view grant on the target, the association stays out.
        await role({ name: 'assocNoTarget', resources: [{ name: 'posts', actions: [{ name: 'view', fields: ['title', 'comments'] }] }] });
        const blind = await user(['assocNoTarget']);
        const hidden = await blind.api.get(`/api/posts:get?filterByTk=${post.id}&fields[]=title&fields[]=comments`);
        expect(hidden.status === 403 || (hidden.status === 200 && (hidden.body.data.comments ?? []).length === 0), hidden.text).toBe(true);
      });
    });
  });
}
