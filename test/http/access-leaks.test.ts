import { describe, expect, it } from 'vitest';
import { COMMENT_VIEW, expectError, LEAK, POST_VIEW, rowsOf, useLeakFixture, type LeakFixture } from '../support/access-leak-fixture.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * Regressions of the access-control leaks (reads and write answers): what a caller may not see must not reach
 * it through a field list, a firstOrCreate/updateOrCreate lookup or a write's answer.
 * The writes of the tests are in access-leaks-writes.test.ts.
 */

type Ids = Pick<LeakFixture, 'post' | 'user'>;

/** [route, url, the field the 403 names (undefined: not asserted)]: alice asks only for what she may not read. */
const EMPTY_FIELD_LISTS: Array<[string, (ids: Ids) => string, string | undefined]> = [
  ['get', ({ post }) => `/api/posts:get/${post.alice}?fields=secret`, 'secret'],
  ['REST get', ({ post }) => `/api/posts/${post.alice}?fields=secret`, 'secret'],
  ['get with except naming every granted field', ({ post }) => `/api/posts:get/${post.alice}?except=id,title,ownerId,authorId,createdAt,updatedAt`, undefined],
  ['list', () => '/api/posts:list?fields=secret', 'secret'],
  ['list with except naming every granted field', () => '/api/posts:list?except=id,title,ownerId,authorId,createdAt,updatedAt', undefined],
  ['cursor paging', () => '/api/posts:list?cursor=&fields=secret', 'secret'],
  ['paginate=false', () => '/api/posts:list?paginate=false&fields=secret', 'secret'],
  ['simplePaginate', () => '/api/posts:list?simplePaginate=true&fields=secret', 'secret'],
  ['association route list (comments view lacks secretNote)', ({ post }) => `/api/posts/${post.alice}/comments:list?fields=secretNote`, 'secretNote'],
];

/** [what, who, url, body, status]: every lookup must miss bob's post (invisible to the caller). */
const FOREIGN_LOOKUPS: Array<[string, string, (ids: Ids) => string, (ids: Ids) => Record<string, unknown>, number]> = [
  ['firstOrCreate with a create grant creates a new post', 'writer', () => '/api/posts:firstOrCreate?filterKeys=ownerId', ({ user }) => ({ ownerId: user.bob, title: 'probe' }), 201],
  ['firstOrCreate without a create grant is 403', 'alice', () => '/api/posts:firstOrCreate?filterKeys=ownerId', ({ user }) => ({ ownerId: user.bob }), 403],
  ['firstOrCreate by title', 'writer', () => '/api/posts:firstOrCreate?filterKeys=title', () => ({ title: 'bob post' }), 201],
  ['updateOrCreate whose update grant reaches every row', 'editor', () => '/api/posts:updateOrCreate?filterKeys=ownerId', ({ user }) => ({ ownerId: user.bob, title: 'hijacked' }), 201],
];

/** [what, who, method, url, body, fields the answer may carry]: every write answer is narrowed to the view grant. */
const WRITE_ANSWERS: Array<[string, string, (ids: Ids) => string, (ids: Ids) => unknown, readonly string[]]> = [
  ['create', 'writer', () => '/api/posts:create', ({ user }) => ({ title: 'w create', secret: 'SECRET-w1', ownerId: user.writer }), POST_VIEW],
  ['bulk create', 'writer', () => '/api/posts:create', ({ user }) => [{ title: 'w bulk', secret: 'SECRET-w2', ownerId: user.writer }], POST_VIEW],
  ['create with appends', 'writer', () => '/api/posts:create?appends=tags', ({ user }) => ({ title: 'w appends', secret: 'SECRET-w3', ownerId: user.writer }), POST_VIEW],
  ['update by key', 'writer', ({ post }) => `/api/posts:update/${post.writer}`, () => ({ secret: 'SECRET-w4' }), POST_VIEW],
  ['no-op update by key', 'writer', ({ post }) => `/api/posts:update/${post.writer}`, () => ({ secret: 'SECRET-w4' }), POST_VIEW],
  ['update by filter', 'writer', () => `/api/posts:update?filter=${encodeURIComponent(JSON.stringify({ title: 'writer post' }))}`, () => ({ secret: 'SECRET-w5' }), POST_VIEW],
  ['updateOrCreate of an existing post', 'writer', () => '/api/posts:updateOrCreate?filterKeys=title', () => ({ title: 'writer post', secret: 'SECRET-w6' }), POST_VIEW],
  ['updateOrCreate of a new post', 'writer', () => '/api/posts:updateOrCreate?filterKeys=title', () => ({ title: 'w new', secret: 'SECRET-w7' }), POST_VIEW],
  ['firstOrCreate of an existing post', 'writer', () => '/api/posts:firstOrCreate?filterKeys=title', () => ({ title: 'writer post' }), POST_VIEW],
  ['create without a view grant: the key only', 'blind', () => '/api/posts:create', () => ({ title: 'b create', secret: 'SECRET-b1' }), ['id']],
  ['update by key without a view grant: the key only', 'blind', ({ post }) => `/api/posts:update/${post.blind}`, () => ({ secret: 'SECRET-b2' }), ['id']],
  ['update by filter without a view grant: the key only', 'blind', () => `/api/posts:update?filter=${encodeURIComponent(JSON.stringify({ title: 'blind post' }))}`, () => ({ secret: 'SECRET-b3' }), ['id']],
];

for (const dialect of DIALECTS) {
  describe(`access leaks of reads and write answers on ${dialect}`, () => {
    const fixture = useLeakFixture(dialect);
    const { post, user, comment } = fixture;

    it.each(EMPTY_FIELD_LISTS)('a requested field list with no granted field is not read as all fields (%s): 403 FORBIDDEN', async (_route, url, field) => {
      const reply = await fixture.as('alice').get(url({ post, user }));
      expect(reply.text).not.toMatch(LEAK);
      expectError(reply, 403, 'FORBIDDEN');
      if (field !== undefined) expect(reply.body.errors[0].field, reply.text).toBe(field);
    });

    it('a requested field list with some granted fields is narrowed to them, on every read route', async () => {
      const alice = fixture.as('alice');
      const replies = [
        await alice.get(`/api/posts:get/${post.alice}?fields=title,secret`),
        await alice.get('/api/posts:list?fields=title,secret'),
        await alice.get('/api/posts:list?cursor=&fields=title,secret'),
        await alice.get('/api/posts:list?paginate=false&fields=title,secret'),
      ];
      for (const reply of replies) {
        expect(reply.status, reply.text).toBe(200);
        expect(reply.text).not.toMatch(LEAK);
        for (const row of rowsOf(reply)) expect(Object.keys(row)).toEqual(['title']);
      }
      const comments = await alice.get(`/api/posts/${post.alice}/comments:list?fields=body,secretNote`);
      expect(comments.status, comments.text).toBe(200);
      expect(comments.text).not.toMatch(LEAK);
      for (const row of rowsOf(comments)) expect(COMMENT_VIEW).toEqual(expect.arrayContaining(Object.keys(row)));
    });

    it.each(FOREIGN_LOOKUPS)('firstOrCreate and updateOrCreate do not find another user\'s row under the create or update scope: %s', async (_what, who, url, body, status) => {
      const before = (await fixture.ctx.api.get(`/api/posts/${post.bob}`)).body.data;
      const reply = await fixture.as(who).post(url({ post, user }), body({ post, user }));
      expect(reply.text).not.toMatch(LEAK);
      expect(reply.status, reply.text).toBe(status);
      if (status === 201) expect(reply.body.data.id).not.toBe(post.bob);
      else expect(reply.body.errors[0].code, reply.text).toBe('FORBIDDEN');
      expect((await fixture.ctx.api.get(`/api/posts/${post.bob}`)).body.data).toEqual(before);
    });

    it.each(WRITE_ANSWERS)('write answers are narrowed to the view field grant: %s', async (_what, who, url, body, allowed) => {
      const reply = await fixture.as(who).post(url({ post, user }), body({ post, user }));
      expect([200, 201], reply.text).toContain(reply.status);
      expect(reply.text).not.toMatch(LEAK);
      for (const row of rowsOf(reply)) {
        expect(allowed, JSON.stringify(row)).toEqual(expect.arrayContaining(Object.keys(row)));
        expect(row).toHaveProperty('id');
      }
    });

    it('alice reads her post\'s comments through the association route (the premise of its cases above)', async () => {
      const comments = await fixture.as('alice').get(`/api/posts/${post.alice}/comments:list?fields=body`);
      expect(comments.body.data).toEqual([{ body: 'alice comment' }]);
      expect(comment.bob).toBeGreaterThan(0);
    });
  });
}
