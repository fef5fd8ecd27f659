import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { apiFor, testConfig, useDialectApp, type Reply, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * NocoBase's named row scopes (`rolesResourcesScopes`, docs/auth.md "Named scopes"): the
 * cases of plugin-acl's scope.test.ts, ported in our words over HTTP, and Corral's own (a
 * scope is a live part of every grant naming it, here and on another node).
 */
const SCOPE_TEST = 'packages/plugins/@nocobase/plugin-acl/src/server/__tests__/scope.test.ts';
/** NocoBase's rolesResourcesActions collection: `scope` belongsTo rolesResourcesScopes, onDelete RESTRICT. */
const ACTIONS_COLLECTION = 'packages/plugins/@nocobase/plugin-acl/src/server/collections/roles-resources-actions.ts';

const ok = (reply: Reply, status = 200): Reply => {
  expect(reply.status, reply.text).toBe(status);
  return reply;
};
const refused = (reply: Reply, status: number, code: string): void => {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.errors[0].code, reply.text).toBe(code);
};
const titles = (reply: Reply): string[] => (ok(reply).body.data as Array<{ title: string }>).map((row) => row.title).sort();

/** Polls `probe` until it holds (another node's caches live about a second); fails after `ms`. */
async function eventually(probe: () => Promise<boolean>, ms = 4000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > until) throw new Error('the other node did not see the change in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const dialect of DIALECTS) {
  describe(`NocoBase compatibility: named row scopes on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let other: BuiltApp;
    let n = 0;
    const user = async (roles: string[], node?: BuiltApp): Promise<{ api: TestApi; id: number; login: { account: string; password: string } }> => {
      const name = `s${++n}`;
      const created = ok(await ctx.api.post('/api/users:create', { email: `${name}@scopes.test`, password: `${name}-password`, roles }), 201);
      const login = { account: `${name}@scopes.test`, password: `${name}-password` };
      return { api: apiFor(node ?? ctx.built, login), id: created.body.data.id, login };
    };
    const scope = async (body: Record<string, unknown>): Promise<number> => ok(await ctx.api.post('/api/rolesResourcesScopes:create', body), 201).body.data.id;
    const role = async (name: string, resources: unknown[]): Promise<void> => void ok(await ctx.api.post('/api/roles:create', { name, strategy: { actions: [] }, resources }), 201);

    beforeAll(async () => {
      await ctx.api.collection({ name: 'posts', createdBy: true, fields: [{ name: 'title', type: 'string' }, { name: 'published', type: 'boolean' }, { name: 'ownerId', type: 'bigInt' }] });
      await ctx.api.collection({ name: 'notes', fields: [{ name: 'text', type: 'string' }] });
      for (const [title, published] of [['draft', false], ['live', true], ['old', true]] as const) ok(await ctx.api.post('/api/posts:create', { title, published }), 201);
      other = await buildApp(testConfig(ctx.database));
    });

    afterAll(async () => {
      await other?.close();
    });

    it(`should create scope of resource (${SCOPE_TEST}): the row is stored with its filter, listed and read back`, async () => {
      const id = await scope({ resourceName: 'posts', name: 'published posts', scope: { published: true } });
      const found = ok(await ctx.api.get('/api/rolesResourcesScopes:list?filter={"name":"published posts"}')).body.data;
      expect(found).toHaveLength(1);
      expect(found[0].scope).toMatchObject({ published: true });
      expect(ok(await ctx.api.get(`/api/rolesResourcesScopes:get?filterByTk=${id}`)).body.data).toMatchObject({ resourceName: 'posts', name: 'published posts' });
    });

    it('create, update and destroy through the resource routes; key is unique', async () => {
      const id = await scope({ key: 'k-unique', name: 'any', scope: {} });
      refused(await ctx.api.post('/api/rolesResourcesScopes:create', { key: 'k-unique', name: 'again' }), 409, 'UNIQUE_VIOLATION');
      ok(await ctx.api.post(`/api/rolesResourcesScopes:update?filterByTk=${id}`, { name: 'renamed' }));
      expect(ok(await ctx.api.get(`/api/rolesResourcesScopes:get?filterByTk=${id}`)).body.data.name).toBe('renamed');
      ok(await ctx.api.post(`/api/rolesResourcesScopes:destroy?filterByTk=${id}`));
      refused(await ctx.api.get(`/api/rolesResourcesScopes:get?filterByTk=${id}`), 404, 'RECORD_NOT_FOUND');
    });

    it('a scope filter naming an unknown or hidden field, or for a collection that does not exist, is 400', async () => {
      refused(await ctx.api.post('/api/rolesResourcesScopes:create', { resourceName: 'posts', name: 'bad', scope: { nope: 1 } }), 400, 'FILTER_UNKNOWN_FIELD');
      refused(await ctx.api.post('/api/rolesResourcesScopes:create', { resourceName: 'ghosts', name: 'bad', scope: {} }), 400, 'VALIDATION_FAILED');
      // A hidden field (a password) is no more a filter field in a scope than in a request.
      expect((await ctx.api.post('/api/rolesResourcesScopes:create', { resourceName: 'users', name: 'bad', scope: { password: 'x' } })).status).toBe(400);
      refused(await ctx.api.post('/api/rolesResourcesScopes:create', { name: 'bad', scope: 'published' }), 400, 'VALIDATION_FAILED');
      const id = await scope({ resourceName: 'posts', name: 'fine', scope: { published: true } });
      expect((await ctx.api.post(`/api/rolesResourcesScopes:update?filterByTk=${id}`, { scope: { nope: true } })).status).toBe(400);
    });

    it('a role resource action with scopeId (or scope: {id}) sees the scope rows only, ANDed with its own filter', async () => {
      const id = await scope({ resourceName: 'posts', name: 'published', scope: { published: true } });
      await role('scoped-viewer', [{ name: 'posts', actions: [{ name: 'view', scopeId: id }] }]);
      await role('scoped-object', [{ name: 'posts', actions: [{ name: 'view', scope: { id, key: 'published', name: 'published' }, filter: { title: 'old' } }] }]);
      expect(titles(await (await user(['scoped-viewer'])).api.get('/api/posts:list'))).toEqual(['live', 'old']);
      expect(titles(await (await user(['scoped-object'])).api.get('/api/posts:list'))).toEqual(['old']);
      const listed = ok(await ctx.api.get('/api/roles/scoped-viewer/resources:get/posts')).body.data;
      expect(listed.actions[0].scopeId).toBe(id);
    });

    it('a scope with user variables binds them per user ({{$user.id}} and {{ctx.state.currentUser.id}})', async () => {
      const mine = await scope({ resourceName: 'posts', name: 'mine', scope: { ownerId: '{{ctx.state.currentUser.id}}' } });
      await role('owner-viewer', [{ name: 'posts', actions: [{ name: 'view', scopeId: mine }] }]);
      const owner = await user(['owner-viewer']);
      ok(await ctx.api.post('/api/posts:create', { title: 'owned', ownerId: owner.id }), 201);
      expect(titles(await owner.api.get('/api/posts:list'))).toEqual(['owned']);
    });

    it('saving a role resource naming a missing scope, or one for another collection, is 400', async () => {
      await role('checked', []);
      const notesOnly = await scope({ resourceName: 'notes', name: 'notes only', scope: {} });
      refused(await ctx.api.post('/api/roles/checked/resources:create', { name: 'posts', actions: [{ name: 'view', scopeId: 999999 }] }), 400, 'VALIDATION_FAILED');
      refused(await ctx.api.post('/api/roles/checked/resources:create', { name: 'posts', actions: [{ name: 'view', scopeId: notesOnly }] }), 400, 'VALIDATION_FAILED');
      refused(await ctx.api.post('/api/roles/checked/resources:create', { name: 'posts', actions: [{ name: 'view', scopeId: 'x' }] }), 400, 'VALIDATION_FAILED');
      // A scope for any collection (resourceName null) must still bind against the one it is used on.
      const anywhere = await scope({ name: 'titled', scope: { title: 'x' } });
      refused(await ctx.api.post('/api/roles/checked/resources:create', { name: 'notes', actions: [{ name: 'view', scopeId: anywhere }] }), 400, 'FILTER_UNKNOWN_FIELD');
      ok(await ctx.api.post('/api/roles/checked/resources:create', { name: 'posts', actions: [{ name: 'view', scopeId: anywhere }] }), 201);
      // ...and then cannot be changed to a filter that no longer fits posts.
      refused(await ctx.api.post(`/api/rolesResourcesScopes:update?filterByTk=${anywhere}`, { scope: { text: 'x' } }), 400, 'FILTER_UNKNOWN_FIELD');
      expect((await ctx.api.post(`/api/rolesResourcesScopes:update?filterByTk=${anywhere}`, { resourceName: 'notes' })).status).toBe(400);
      // Only for posts, where it is used: fine.
      ok(await ctx.api.post(`/api/rolesResourcesScopes:update?filterByTk=${anywhere}`, { resourceName: 'posts' }));
      const postsOnly = await scope({ resourceName: 'posts', name: 'no text here', scope: {} });
      ok(await ctx.api.post('/api/roles/checked/resources:update/posts', { actions: [{ name: 'view', scopeId: postsOnly }] }));
      // Used on posts, it cannot move to notes (a filter that fits both but the wrong collection).
      refused(await ctx.api.post(`/api/rolesResourcesScopes:update?filterByTk=${postsOnly}`, { resourceName: 'notes' }), 400, 'VALIDATION_FAILED');
    });

    it(`a scope still used by a role cannot be destroyed (${ACTIONS_COLLECTION}: onDelete RESTRICT); unused, it can`, async () => {
      const id = await scope({ resourceName: 'posts', name: 'kept', scope: { published: true } });
      await role('uses-kept', [{ name: 'posts', actions: [{ name: 'view', scopeId: id }] }]);
      refused(await ctx.api.post(`/api/rolesResourcesScopes:destroy?filterByTk=${id}`), 409, 'REFERENCE_VIOLATION');
      ok(await ctx.api.post('/api/roles/uses-kept/resources:destroy/posts'));
      ok(await ctx.api.post(`/api/rolesResourcesScopes:destroy?filterByTk=${id}`));
    });

    it('a scope change applies to the next request here, and on another node within its propagation window', async () => {
      const id = await scope({ resourceName: 'posts', name: 'live', scope: { title: 'live' } });
      await role('live-viewer', [{ name: 'posts', actions: [{ name: 'view', scopeId: id }] }]);
      const viewer = await user(['live-viewer']);
      const there = apiFor(other, viewer.login);
      expect(titles(await viewer.api.get('/api/posts:list'))).toEqual(['live']);
      expect(titles(await there.get('/api/posts:list'))).toEqual(['live']);
      ok(await ctx.api.post(`/api/rolesResourcesScopes:update?filterByTk=${id}`, { scope: { title: 'old' } }));
      expect(titles(await viewer.api.get('/api/posts:list'))).toEqual(['old']);
      await eventually(async () => titles(await there.get('/api/posts:list')).join() === 'old');
    });

    it('a non-root user cannot read, create or change scopes unless a role grants rolesResourcesScopes', async () => {
      const id = await scope({ resourceName: 'posts', name: 'guarded', scope: { published: true } });
      await role('everything', []);
      ok(await ctx.api.post('/api/roles:update/everything', { strategy: { actions: ['view', 'create', 'update', 'destroy'] } }));
      const plain = await user(['everything']);
      refused(await plain.api.get('/api/rolesResourcesScopes:list'), 403, 'FORBIDDEN');
      refused(await plain.api.post('/api/rolesResourcesScopes:create', { name: 'mine', scope: {} }), 403, 'FORBIDDEN');
      refused(await plain.api.post(`/api/rolesResourcesScopes:update?filterByTk=${id}`, { scope: {} }), 403, 'FORBIDDEN');
      refused(await plain.api.post(`/api/rolesResourcesScopes:destroy?filterByTk=${id}`), 403, 'FORBIDDEN');
      await role('scope-admin', [{ name: 'rolesResourcesScopes', actions: [{ name: 'view' }, { name: 'create' }, { name: 'update' }] }]);
      const admin = await user(['scope-admin']);
      const made = ok(await admin.api.post('/api/rolesResourcesScopes:create', { resourceName: 'posts', name: 'by admin', scope: { published: false } }), 201).body.data.id;
      ok(await admin.api.post(`/api/rolesResourcesScopes:update?filterByTk=${made}`, { name: 'renamed by admin' }));
      refused(await admin.api.post(`/api/rolesResourcesScopes:destroy?filterByTk=${made}`), 403, 'FORBIDDEN');
      // A scope some role names changes that role: it needs update on roles, and never a role the writer holds.
      await role('uses-made', [{ name: 'posts', actions: [{ name: 'view', scopeId: made }] }]);
      refused(await admin.api.post(`/api/rolesResourcesScopes:update?filterByTk=${made}`, { scope: {} }), 403, 'FORBIDDEN');
      await role('scope-and-roles-admin', [
        { name: 'rolesResourcesScopes', actions: [{ name: 'view' }, { name: 'update' }] },
        { name: 'roles', actions: [{ name: 'view' }, { name: 'update' }] },
        { name: 'posts', actions: [{ name: 'view', scopeId: made }] },
      ]);
      const both = await user(['scope-and-roles-admin']);
      refused(await both.api.post(`/api/rolesResourcesScopes:update?filterByTk=${made}`, { scope: {} }), 403, 'FORBIDDEN');
      expect(titles(await both.api.get('/api/posts:list'))).toEqual(['draft']);
      ok(await ctx.api.post('/api/roles/scope-and-roles-admin/resources:destroy/posts'));
      ok(await both.api.post(`/api/rolesResourcesScopes:update?filterByTk=${made}`, { scope: { title: 'live' } }));
    });

    it('a role writer who cannot see a scope cannot name it (400, as if missing)', async () => {
      const id = await scope({ resourceName: 'posts', name: 'hidden from writer', scope: { published: true } });
      await role('role-writer', [
        { name: 'roles', actions: [{ name: 'view' }, { name: 'update' }] },
        { name: 'posts', actions: [{ name: 'view' }] },
      ]);
      await role('target', []);
      const writer = await user(['role-writer']);
      refused(await writer.api.post('/api/roles/target/resources:create', { name: 'posts', actions: [{ name: 'view', scopeId: id }] }), 400, 'VALIDATION_FAILED');
    });
  });
}
