import { beforeAll, describe, expect, it } from 'vitest';
import { apiFor, useDialectApp, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';
import { defineNocoBaseBlog } from '../support/nocobase-blog-schema.js';

/**
 * Through values (NocoBase's `{"posts_tags": {…}}` and `[key, {…}]` forms) write the link row:
 * the caller needs `update` on the through collection, with a field list naming each value.
 * Without it the write is 403 and nothing changes, whichever route carries the values.
 */
const ROLES = [
  // Links posts and tags and updates tags, but may only view the link rows.
  {
    name: 'linker',
    strategy: { actions: [] },
    resources: [
      { name: 'posts', actions: [{ name: 'view' }, { name: 'create' }, { name: 'update', fields: ['title', 'tags'] }] },
      { name: 'tags', actions: [{ name: 'view' }, { name: 'create' }, { name: 'update' }] },
      { name: 'posts_tags', actions: [{ name: 'view' }] },
    ],
  },
  // May write tagged_at of a link row (not its other fields). An association update is an update of the target too (the permission layer's rule).
  {
    name: 'tagger',
    strategy: { actions: [] },
    resources: [
      { name: 'posts', actions: [{ name: 'view' }, { name: 'update', fields: ['tags'] }] },
      { name: 'tags', actions: [{ name: 'view' }, { name: 'update', fields: ['name'] }] },
      { name: 'posts_tags', actions: [{ name: 'view' }, { name: 'update', fields: ['tagged_at'] }] },
    ],
  },
];

for (const dialect of DIALECTS) {
  describe(`grants of through values on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const as: Record<string, TestApi> = {};
    let post = 0;
    let linked = 0;
    let loose = 0;
    const links = async () => JSON.stringify((await ctx.api.get('/api/posts_tags:list?sort=id')).body.data);

    beforeAll(async () => {
      await defineNocoBaseBlog(ctx.api);
      await ctx.api.collection({ name: 'notes', fields: [{ name: 'text', type: 'string' }] });
      const extra = await ctx.api.post('/api/collections/posts_tags/fields:create', { name: 'note', type: 'string' });
      expect(extra.status, extra.text).toBe(201);
      for (const role of ROLES) expect((await ctx.api.post('/api/roles:create', role)).status).toBe(201);
      for (const role of ROLES) {
        const user = await ctx.api.post('/api/users:create', { email: `${role.name}@corral.test`, password: `${role.name}-password`, roles: [role.name] });
        expect(user.status, user.text).toBe(201);
        as[role.name] = apiFor(ctx.built, { account: `${role.name}@corral.test`, password: `${role.name}-password` });
      }
      const created = (await ctx.api.post('/api/posts:create', { title: 'p', tags: [{ name: 'linked', posts_tags: { tagged_at: 'first' } }] })).body.data;
      post = created.id;
      linked = (await ctx.api.get(`/api/posts/${post}/tags:list`)).body.data[0].id;
      loose = (await ctx.api.post('/api/tags:create', { name: 'loose' })).body.data.id;
    });

    const refused: Array<[string, string, (url: { post: number; linked: number; loose: number }) => string, (ids: { linked: number; loose: number }) => unknown]> = [
      ['association update with {"posts_tags": …}', 'linker', ({ post, linked }) => `/api/posts/${post}/tags:update?filterByTk=${linked}`, () => ({ posts_tags: { tagged_at: 'x' } })],
      ['add with [key, {…}] of a new link', 'linker', ({ post }) => `/api/posts/${post}/tags:add`, ({ loose }) => [[loose, { tagged_at: 'x' }]]],
      ['set with [key, {…}] of a kept link', 'linker', ({ post }) => `/api/posts/${post}/tags:set`, ({ linked }) => [[linked, { tagged_at: 'x' }]]],
      ['association create with {"posts_tags": …}', 'linker', ({ post }) => `/api/posts/${post}/tags:create`, () => ({ name: 'n', posts_tags: { tagged_at: 'x' } })],
      ['nested create with {"posts_tags": …}', 'linker', () => '/api/posts:create', () => ({ title: 'q', tags: [{ name: 'n', posts_tags: { tagged_at: 'x' } }] })],
      ['a through field outside the update field list', 'tagger', ({ post, linked }) => `/api/posts/${post}/tags:update?filterByTk=${linked}`, () => ({ posts_tags: { note: 'x' } })],
    ];

    it.each(refused)('%s without the grant is 403 FORBIDDEN and writes nothing', async (_what, who, url, body) => {
      const before = await links();
      const tags = JSON.stringify((await ctx.api.get('/api/tags:list?sort=id')).body.data);
      const reply = await as[who]!.post(url({ post, linked, loose }), body({ linked, loose }));
      expect(reply.status, reply.text).toBe(403);
      expect(reply.body.errors[0].code).toBe('FORBIDDEN');
      expect(reply.body.errors[0].message).toContain('posts_tags');
      expect(await links()).toBe(before);
      expect(JSON.stringify((await ctx.api.get('/api/tags:list?sort=id')).body.data)).toBe(tags);
    });

    it('links without through values need no grant on the through collection', async () => {
      const reply = await as.linker!.post(`/api/posts/${post}/tags:add`, [loose]);
      expect(reply.status, reply.text).toBe(200);
      expect((await as.linker!.post(`/api/posts/${post}/tags:remove`, [loose])).status).toBe(200);
    });

    it('with update on the through collection the link values are written, alone or with values of the target', async () => {
      const reply = await as.tagger!.post(`/api/posts/${post}/tags:update?filterByTk=${linked}`, { posts_tags: { tagged_at: 'granted' } });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toMatchObject({ id: linked, name: 'linked' });
      const [row] = (await ctx.api.get(`/api/posts_tags:list?filter=${encodeURIComponent(JSON.stringify({ postId: post }))}`)).body.data;
      expect(row).toMatchObject({ tagId: linked, tagged_at: 'granted' });
      const both = await as.tagger!.post(`/api/posts/${post}/tags:update?filterByTk=${linked}`, { name: 'renamed', posts_tags: { tagged_at: 'both' } });
      expect(both.status, both.text).toBe(200);
      expect(both.body.data.name).toBe('renamed');
      const added = await as.tagger!.post(`/api/posts/${post}/tags:add`, [[loose, { tagged_at: 'added' }]]);
      expect(added.status, added.text).toBe(200);
    });
  });
}
