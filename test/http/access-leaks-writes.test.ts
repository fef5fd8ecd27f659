import { describe, expect, it } from 'vitest';
import { apiFor } from '../support/test-app.js';
import { expectError, MISSING_ID, normalised, OWN, useLeakFixture, type LeakFixture } from '../support/access-leak-fixture.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * Regressions of the access-control leaks (writes, links, API keys, role resources): a write may not reach
 * a collection through a nested value or a key that its grants keep it from, and a hidden
 * row answers exactly like a missing one. The reads are in access-leaks.test.ts.
 */

type Ids = Pick<LeakFixture, 'post' | 'user' | 'comment' | 'row'>;

/** [what, url, body]: sent by `writer` (create and update on posts, create on comments with a field list, view-only tags, nothing on authors). */
const NESTED_WRITES: Array<[string, (ids: Ids) => string, (ids: Ids) => unknown]> = [
  ['a new author on a post create (no grant on authors)', () => '/api/posts:create', ({ user }) => ({ title: 'n1', ownerId: user.writer, author: { name: 'x' } })],
  ['a new tag on a post create (view-only tags)', () => '/api/posts:create', ({ user }) => ({ title: 'n2', ownerId: user.writer, tags: [{ label: 't' }] })],
  ['a new tag on a post update (view-only tags)', ({ post }) => `/api/posts:update/${post.writer}`, () => ({ tags: [{ label: 't' }] })],
  ['a new comment with a field outside the comments create grant', () => '/api/posts:create', ({ user }) => ({ title: 'n3', ownerId: user.writer, comments: [{ body: 'c', secretNote: 'x' }] })],
  [
    'another user\'s comment rewritten and re-parented through updateAssociationValues (no update grant on comments)',
    ({ post }) => `/api/posts:update/${post.writer}?updateAssociationValues=comments`,
    ({ comment }) => ({ comments: [{ id: comment.bob, body: 'rewritten' }] }),
  ],
];

/** [what, who, url, body for a target key, the hidden key]: a hidden target answers like MISSING_ID. */
const HIDDEN_LINKS: Array<[string, string, (ids: Ids) => string, (key: number) => unknown, (ids: Ids) => number]> = [
  ['a plain foreign-key column on create', 'alice', () => '/api/comments:create', (key) => ({ body: 'x', postId: key }), ({ post }) => post.bob!],
  ['the relation form on create', 'alice', () => '/api/comments:create', (key) => ({ body: 'x', post: key }), ({ post }) => post.bob!],
  ['a plain foreign-key column into a collection without a view grant', 'writer', () => '/api/posts:create', (key) => ({ title: 'linked', authorId: key }), ({ row }) => row.author],
  ['the relation form into a collection without a view grant', 'writer', () => '/api/posts:create', (key) => ({ title: 'linked', author: key }), ({ row }) => row.author],
];

const OWN_VIEW = [{ name: 'view', filter: OWN }];

/** [how the entry is written, the role's resources before, url, body, status]: both accept an owner filter on an integer field. */
const ROLE_RESOURCE_WRITES: Array<[string, unknown[], (role: string) => string, unknown, number]> = [
  ['roles/<role>/resources:create', [], (role) => `/api/roles/${role}/resources:create`, { name: 'posts', actions: OWN_VIEW }, 201],
  ['roles/<role>/resources:update', [{ name: 'posts', actions: [{ name: 'view' }] }], (role) => `/api/roles/${role}/resources:update/posts`, { actions: OWN_VIEW }, 200],
];

for (const dialect of DIALECTS) {
  describe(`access leaks of writes on ${dialect}`, () => {
    const fixture = useLeakFixture(dialect);
    const { post, user, comment, row } = fixture;
    const ids: Ids = { post, user, comment, row };

    it.each(NESTED_WRITES)('nested writes do not ignore the grants of the collections they reach: %s is 403 FORBIDDEN, nothing stored', async (_what, url, body) => {
      const before = await fixture.state();
      const reply = await fixture.as('writer').post(url(ids), body(ids));
      expectError(reply, 403, 'FORBIDDEN');
      expect(await fixture.state()).toBe(before);
    });

    it.each(HIDDEN_LINKS)('a plain foreign-key column does not skip the link checks: a target the caller cannot view answers exactly like a missing one (%s)', async (_what, who, url, body, hidden) => {
      const before = await fixture.state();
      const client = fixture.as(who);
      const missing = await client.post(url(ids), body(MISSING_ID));
      expect(missing.status, missing.text).toBeGreaterThanOrEqual(400);
      const reply = await client.post(url(ids), body(hidden(ids)));
      expect(reply.status, reply.text).not.toBe(201);
      expect(normalised(reply, hidden(ids))).toBe(normalised(missing, MISSING_ID));
      expect(await fixture.state()).toBe(before);
    });

    it('apiKeys rows are owned by their creator: a non-root holder of view and destroy sees and revokes only its own', async () => {
      const root = fixture.ctx.api;
      const keeper = fixture.as('keeper');
      const rootKey = await root.post('/api/apiKeys:create', { name: 'root key', role: 'root' });
      expect(rootKey.status, rootKey.text).toBe(201);
      const own = await keeper.post('/api/apiKeys:create', { name: 'keeper key', role: 'keyKeeper' });
      expect(own.status, own.text).toBe(201);
      const listed = await keeper.get('/api/apiKeys:list?sort=id');
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body.data.map((key: { name: string }) => key.name)).toEqual(['keeper key']);
      expect((await keeper.get('/api/apiKeys:count')).body.data).toBe(1);
      const missingGet = await keeper.get(`/api/apiKeys:get/${MISSING_ID}`);
      expectError(missingGet, 404, 'RECORD_NOT_FOUND');
      expect(normalised(await keeper.get(`/api/apiKeys:get/${rootKey.body.data.id}`), rootKey.body.data.id)).toBe(normalised(missingGet, MISSING_ID));
      const missingDestroy = await keeper.post(`/api/apiKeys:destroy/${MISSING_ID}`);
      expectError(missingDestroy, 404, 'RECORD_NOT_FOUND');
      expect(normalised(await keeper.post(`/api/apiKeys:destroy/${rootKey.body.data.id}`), rootKey.body.data.id)).toBe(normalised(missingDestroy, MISSING_ID));
      // Root's key still works and root still sees every key.
      const byKey = await apiFor(fixture.ctx.built, null).request('GET', '/api/auth:check', undefined, { authorization: `Bearer ${rootKey.body.data.token}` });
      expect(byKey.status, byKey.text).toBe(200);
      expect((await root.get('/api/apiKeys:list?sort=id')).body.data.map((key: { name: string }) => key.name)).toEqual(['root key', 'keeper key']);
      expect((await keeper.post(`/api/apiKeys:destroy/${own.body.data.id}`)).status).toBe(200);
    });

    it.each(ROLE_RESOURCE_WRITES)('role resources accept a user variable on an integer field (%s), and the filter then scopes reads', async (_how, resources, url, body, status) => {
      const root = fixture.ctx.api;
      const role = `own${status}`;
      const made = await root.post('/api/roles:create', { name: role, strategy: { actions: [] }, resources });
      expect(made.status, made.text).toBe(201);
      const reply = await root.post(url(role), body);
      expect(reply.status, reply.text).toBe(status);
      const created = await root.post('/api/users:create', { email: `${role}@corral.test`, password: `${role}-password`, roles: [role] });
      expect(created.status, created.text).toBe(201);
      expect((await root.post('/api/posts:create', { title: `${role} post`, ownerId: created.body.data.id })).status).toBe(201);
      const mine = await apiFor(fixture.ctx.built, { account: `${role}@corral.test`, password: `${role}-password` }).get('/api/posts:list?fields=title');
      expect(mine.status, mine.text).toBe(200);
      expect(mine.body.data).toEqual([{ title: `${role} post` }]);
    });
  });
}
