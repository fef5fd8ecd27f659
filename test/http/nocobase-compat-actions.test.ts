import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { defineNocoBaseBlog } from '../support/nocobase-blog-schema.js';
import { useDialectApp } from '../support/test-app.js';

/**
 * NocoBase's action tests (packages/core/actions/src/__tests__/), replayed over HTTP: each case
 * names the NocoBase file and test it comes from. Where Corral answers differently on purpose
 * (201 for a create, 404 for a missing row, …) the case asserts Corral's answer and
 * docs/api.md's "Differences from NocoBase" table says why.
 */

for (const dialect of DIALECTS) {
  describe(`NocoBase action tests (create, update, or-create) on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const count = async (collection: string, filter?: object) =>
      (await ctx.api.get(`/api/${collection}:count${filter === undefined ? '' : `?filter=${encodeURIComponent(JSON.stringify(filter))}`}`)).body.data as number;

    beforeAll(async () => {
      await defineNocoBaseBlog(ctx.api);
    });

    it('create-action.test.ts "create resource": 201 (NocoBase: 200) and the row is stored', async () => {
      const reply = await ctx.api.post('/api/posts:create', { title: 't1' });
      expect(reply.status).toBe(201);
      expect(reply.body.data).toMatchObject({ title: 't1', status: 'draft' });
    });

    it('create-action.test.ts "create has many nested resource" and "create belongs to many nested resource"', async () => {
      const post = (await ctx.api.post('/api/posts:create', { title: 'p1' })).body.data;
      const comment = await ctx.api.post(`/api/posts/${post.id}/comments:create`, { content: 'hello' });
      expect(comment.status).toBe(201);
      expect(comment.body.data).toMatchObject({ content: 'hello', postId: post.id });
      const tag = await ctx.api.post(`/api/posts/${post.id}/tags:create`, { name: 'hello' });
      expect(tag.status).toBe(201);
      const linked = await ctx.api.get(`/api/posts/${post.id}/tags:list`);
      expect(linked.body.data.map((t: { name: string }) => t.name)).toEqual(['hello']);
    });

    it('create-action.test.ts "create with empty values": no body, an empty JSON body and {} all create a row with defaults', async () => {
      const bodies: [string, string | undefined, Record<string, string>][] = [
        ['no body, no content-type', undefined, {}],
        ['empty body labelled JSON', '', { 'content-type': 'application/json' }],
        ['blank body labelled JSON', '  \n', { 'content-type': 'application/json' }],
        ['empty body labelled as a form (axios)', '', { 'content-type': 'application/x-www-form-urlencoded' }],
        ['{}', '{}', { 'content-type': 'application/json' }],
      ];
      for (const [label, body, headers] of bodies) {
        const before = await count('posts');
        const reply = await ctx.built.app.inject({ method: 'POST', url: '/api/posts:create', headers: { ...(await ctx.api.authHeaders()), ...headers }, ...(body === undefined ? {} : { payload: body }) });
        expect(reply.statusCode, label).toBe(201);
        expect(JSON.parse(reply.body).data, label).toMatchObject({ title: null, status: 'draft' });
        expect(await count('posts'), label).toBe(before + 1);
      }
      const post = (await ctx.api.post('/api/posts:create', { title: 'p' })).body.data;
      const nested = await ctx.built.app.inject({ method: 'POST', url: `/api/posts/${post.id}/comments:create`, headers: await ctx.api.authHeaders() });
      expect(nested.statusCode).toBe(201);
      expect(JSON.parse(nested.body).data).toMatchObject({ content: null, postId: post.id });
      const rest = await ctx.built.app.inject({ method: 'POST', url: '/api/posts', headers: await ctx.api.authHeaders() });
      expect(rest.statusCode).toBe(201);
    });

    it('update and updateOrCreate without a body: update changes nothing (as NocoBase: no values, no change), updateOrCreate matches on null', async () => {
      const post = (await ctx.api.post('/api/posts:create', { title: 'keep' })).body.data;
      const reply = await ctx.built.app.inject({ method: 'POST', url: `/api/posts:update?filterByTk=${post.id}`, headers: await ctx.api.authHeaders() });
      expect(reply.statusCode).toBe(200);
      expect(JSON.parse(reply.body).data).toMatchObject({ id: post.id, title: 'keep', status: 'draft' });
      const put = await ctx.built.app.inject({ method: 'PUT', url: `/api/posts/${post.id}`, headers: { ...(await ctx.api.authHeaders()), 'content-type': 'application/json' }, payload: '' });
      expect(put.statusCode).toBe(200);
      // Without a key or filter an update is still refused, body or not.
      const unnamed = await ctx.built.app.inject({ method: 'POST', url: '/api/posts:update', headers: await ctx.api.authHeaders() });
      expect(unnamed.statusCode).toBe(400);
      expect(JSON.parse(unnamed.body).errors[0].code).toBe('KEY_REQUIRED');
    });

    it('update-action.test.ts "update resource" and "update has many resource"', async () => {
      const post = (await ctx.api.post('/api/posts:create', { title: 'p1', comments: [{ content: 'c1' }] })).body.data;
      const updated = await ctx.api.post(`/api/posts:update?filterByTk=${post.id}`, { title: 'p0' });
      expect(updated.status).toBe(200);
      expect((await ctx.api.get(`/api/posts/${post.id}`)).body.data.title).toBe('p0');
      const [comment] = (await ctx.api.get(`/api/posts/${post.id}/comments:list`)).body.data;
      const reply = await ctx.api.post(`/api/posts/${post.id}/comments:update?filterByTk=${comment.id}`, { content: 'c0' });
      expect(reply.status).toBe(200);
      expect(reply.body.data.content).toBe('c0');
    });

    // (NocoBase's test names the tag as the source and the post as filterByTk; both are 1 there. Here the post is the source.)
    it('update-action.test.ts "update belongs to many through value": the junction row of that link is written', async () => {
      const post = (await ctx.api.post('/api/posts:create', { title: 'p1', tags: [{ name: 't1', posts_tags: { tagged_at: '123' } }] })).body.data;
      const [tag] = (await ctx.api.get(`/api/posts/${post.id}/tags:list`)).body.data;
      const links = async () => (await ctx.api.get(`/api/posts_tags:list?filter=${encodeURIComponent(JSON.stringify({ postId: post.id }))}`)).body.data;
      expect(await links()).toMatchObject([{ tagId: tag.id, tagged_at: '123' }]);
      const reply = await ctx.api.post(`/api/posts/${post.id}/tags:update?filterByTk=${tag.id}`, { posts_tags: { tagged_at: 'test' } });
      expect(reply.status).toBe(200);
      expect(reply.body.data).toMatchObject({ id: tag.id, name: 't1' });
      expect(await links()).toMatchObject([{ tagId: tag.id, tagged_at: 'test' }]);
      // Target values and through values together, in the REST form too.
      const both = await ctx.api.put(`/api/posts/${post.id}/tags/${tag.id}`, { name: 't2', posts_tags: { tagged_at: 'both' } });
      expect(both.status).toBe(200);
      expect(both.body.data.name).toBe('t2');
      expect(await links()).toMatchObject([{ tagId: tag.id, tagged_at: 'both' }]);
      // Only the link of this source changes: another post linked to the same tag keeps its row.
      const other = (await ctx.api.post('/api/posts:create', { title: 'p2', tags: [[tag.id, { tagged_at: 'other' }]] })).body.data;
      await ctx.api.post(`/api/posts/${post.id}/tags:update?filterByTk=${tag.id}`, { posts_tags: { tagged_at: 'mine' } });
      const otherLinks = (await ctx.api.get(`/api/posts_tags:list?filter=${encodeURIComponent(JSON.stringify({ postId: other.id }))}`)).body.data;
      expect(otherLinks).toMatchObject([{ tagId: tag.id, tagged_at: 'other' }]);
      // A tag not linked to the post is 404, and a bad through value is refused naming the field.
      const loose = (await ctx.api.post('/api/tags:create', { name: 'loose' })).body.data;
      const missing = await ctx.api.post(`/api/posts/${post.id}/tags:update?filterByTk=${loose.id}`, { posts_tags: { tagged_at: 'x' } });
      expect(missing.status).toBe(404);
      const unknown = await ctx.api.post(`/api/posts/${post.id}/tags:update?filterByTk=${tag.id}`, { posts_tags: { nope: 1 } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors[0]).toMatchObject({ code: 'VALUE_UNKNOWN_FIELD', field: 'posts_tags.nope' });
      const shape = await ctx.api.post(`/api/posts/${post.id}/tags:update?filterByTk=${tag.id}`, { posts_tags: 'x' });
      expect(shape.status).toBe(400);
      expect(shape.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'posts_tags' });
    });

    it('through values on an association create (as the nested form of destroy-action.test.ts "destroy belongs to many")', async () => {
      const post = (await ctx.api.post('/api/posts:create', { title: 'p1' })).body.data;
      const tag = await ctx.api.post(`/api/posts/${post.id}/tags:create`, { name: 'made', posts_tags: { tagged_at: 'now' } });
      expect(tag.status).toBe(201);
      expect(tag.body.data).not.toHaveProperty('posts_tags');
      const links = (await ctx.api.get(`/api/posts_tags:list?filter=${encodeURIComponent(JSON.stringify({ postId: post.id }))}`)).body.data;
      expect(links).toMatchObject([{ tagId: tag.body.data.id, tagged_at: 'now' }]);
    });

    it('update-action.test.ts "update has one": the to-one association is updated without a key', async () => {
      const post = (await ctx.api.post('/api/posts:create', { title: 'p1', profile: { post_profile: 'test' } })).body.data;
      const reply = await ctx.api.post(`/api/posts/${post.id}/profile:update`, { post_profile: 'test0' });
      expect(reply.status).toBe(200);
      expect(reply.body.data.post_profile).toBe('test0');
    });

    it('first-or-create.test.ts "first or create resource": 201 (NocoBase: 200) when created', async () => {
      const reply = await ctx.api.post('/api/posts:firstOrCreate?filterKeys[]=title', { title: 'foc' });
      expect(reply.status).toBe(201);
      const again = await ctx.api.post('/api/posts:firstOrCreate?filterKeys[]=title', { title: 'foc' });
      expect(again.status).toBe(200);
      expect(again.body.data.id).toBe(reply.body.data.id);
    });

    it('update-or-create.test.ts "update or create resource" and "update or create with empty values": a filter key absent from the body matches NULL', async () => {
      const created = await ctx.api.post('/api/tags:updateOrCreate?filterKeys[]=name', { name: 'uoc' });
      expect(created.status).toBe(201);
      const emptyBefore = await count('tags', { name: { $empty: true } });
      const first = await ctx.api.post('/api/tags:updateOrCreate?filterKeys[]=name', {});
      expect(first.status).toBe(201);
      expect(first.body.data.name).toBeNull();
      const second = await ctx.api.post('/api/tags:updateOrCreate?filterKeys[]=name', {});
      expect(second.status).toBe(200);
      expect(second.body.data.id).toBe(first.body.data.id);
      const bare = await ctx.built.app.inject({ method: 'POST', url: '/api/tags:updateOrCreate?filterKeys[]=name', headers: await ctx.api.authHeaders() });
      expect(bare.statusCode).toBe(200);
      expect(await count('tags', { name: { $empty: true } })).toBe(emptyBefore + 1);
      expect(await count('tags', { name: 'uoc' })).toBe(1);
      // firstOrCreate reads its filter keys the same way.
      const found = await ctx.api.post('/api/tags:firstOrCreate?filterKeys[]=name', {});
      expect(found.status).toBe(200);
      expect(found.body.data.id).toBe(first.body.data.id);
    });
  });
}
