import { beforeAll, describe, expect, it } from 'vitest';
import { defineNocoBaseBlog } from '../support/nocobase-blog-schema.js';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * NocoBase's action tests for get, destroy and the link actions (packages/core/actions/src/__tests__/),
 * replayed over HTTP; each case names the NocoBase file and test it comes from.
 */
for (const dialect of DIALECTS) {
  describe(`NocoBase action tests (get, destroy, add, set, remove, toggle) on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const tagIds = async (post: number) => ((await ctx.api.get(`/api/posts/${post}/tags:list?sort=id`)).body.data as { id: number }[]).map((tag) => tag.id);
    const newPost = async (values: object = { title: 'p1' }) => (await ctx.api.post('/api/posts:create', values)).body.data.id as number;
    const newTags = async (...names: string[]) => ((await ctx.api.post('/api/tags:create', names.map((name) => ({ name })))).body.data as { id: number }[]).map((tag) => tag.id);
    const throughRow = async (post: number, tag: number) =>
      (await ctx.api.get(`/api/posts_tags:list?filter=${encodeURIComponent(JSON.stringify({ postId: post, tagId: tag }))}`)).body.data[0];

    beforeAll(async () => {
      await defineNocoBaseBlog(ctx.api);
    });

    it('get-action.test.ts "get resource", "get has many resource", "get has one resource"', async () => {
      await newPost({ title: 'p0' });
      const post = await newPost({ title: 'p1', comments: [{ content: 'c1' }], profile: { post_profile: 'test' } });
      expect((await ctx.api.get(`/api/posts:get?filterByTk=${post}`)).body.data.id).toBe(post);
      const [comment] = (await ctx.api.get(`/api/posts/${post}/comments:list`)).body.data;
      expect((await ctx.api.get(`/api/posts/${post}/comments:get?filterByTk=${comment.id}`)).body.data.id).toBe(comment.id);
      const profile = await ctx.api.get(`/api/posts/${post}/profile:get`);
      expect(profile.status).toBe(200);
      expect(profile.body.data.post_profile).toBe('test');
    });

    it('get-action.test.ts "should return null when source model not found": 404 (NocoBase: 200)', async () => {
      const reply = await ctx.api.get('/api/posts/999/profile:get');
      expect(reply.status).toBe(404);
      expect(reply.body.errors[0].code).toBe('RECORD_NOT_FOUND');
    });

    it('destroy-action.test.ts "destroy resource", "destroy has many resource", "destroy belongs to many", "destroy has one" (then 404 for the to-one; NocoBase: 200 null)', async () => {
      const post = await newPost({ title: 'p1', comments: [{ content: 'c1' }], tags: [{ name: 't1', posts_tags: { tagged_at: '123' } }], profile: { post_profile: 'x' } });
      const [comment] = (await ctx.api.get(`/api/posts/${post}/comments:list`)).body.data;
      expect((await ctx.api.post(`/api/posts/${post}/comments:destroy?filterByTk=${comment.id}`)).status).toBe(200);
      expect((await ctx.api.get(`/api/comments/${comment.id}`)).status).toBe(404);
      const [tag] = await tagIds(post);
      expect((await ctx.api.post(`/api/posts/${post}/tags:destroy?filterByTk=${tag}`)).status).toBe(200);
      expect((await ctx.api.get(`/api/tags/${tag}`)).status).toBe(404);
      expect(await throughRow(post, tag!)).toBeUndefined();
      const profiles = (await ctx.api.get('/api/profiles:count')).body.data;
      expect((await ctx.api.post(`/api/posts/${post}/profile:destroy`)).status).toBe(200);
      // Nothing linked to a to-one: 404 like any missing row (NocoBase answers 200 with null).
      expect((await ctx.api.get(`/api/posts/${post}/profile:get`)).status).toBe(404);
      expect((await ctx.api.get('/api/profiles:count')).body.data).toBe(profiles - 1);
      const destroyed = await ctx.api.post(`/api/posts:destroy?filterByTk=${post}`);
      expect(destroyed.status).toBe(200);
      expect((await ctx.api.get(`/api/posts/${post}`)).status).toBe(404);
    });

    it('destroy with a filterByTk array, in the query (filterByTk[]=) and in the REST path (NocoBase resourcer: /posts/1,2,3 is one key text)', async () => {
      const ids = await Promise.all([newPost(), newPost(), newPost()]);
      const reply = await ctx.api.post(`/api/posts:destroy?filterByTk[]=${ids[0]}&filterByTk[]=${ids[1]}`);
      expect(reply.status).toBe(200);
      expect(reply.body.data).toBe(2);
      expect((await ctx.api.get(`/api/posts/${ids[2]}`)).status).toBe(200);
    });

    it('add-action.test.ts "add belongs to many": keys, then [key, {through values}]', async () => {
      const post = await newPost();
      const [t1, t2, t3] = await newTags('t1', 't2', 't3');
      expect((await ctx.api.post(`/api/posts/${post}/tags:add`, [t1, t2])).status).toBe(200);
      expect(await tagIds(post)).toEqual([t1, t2]);
      expect((await ctx.api.post(`/api/posts/${post}/tags:add`, [[t3, { tagged_at: '123' }]])).status).toBe(200);
      expect(await tagIds(post)).toEqual([t1, t2, t3]);
      expect((await throughRow(post, t3!)).tagged_at).toBe('123');
    });

    it('set-action.test.ts "set belongs to many": the named keys become the links, [key, {through values}] included', async () => {
      const post = await newPost();
      const [t1, t2, t3] = await newTags('t1', 't2', 't3');
      expect((await ctx.api.post(`/api/posts/${post}/tags:set`, [t1, t2])).status).toBe(200);
      expect(await tagIds(post)).toEqual([t1, t2]);
      await ctx.api.post(`/api/posts/${post}/tags:set`, [[t3, { tagged_at: '123' }]]);
      expect(await tagIds(post)).toEqual([t3]);
      expect((await throughRow(post, t3!)).tagged_at).toBe('123');
    });

    it('remove-action.test.ts "remove belongs to many" and "remove has one"', async () => {
      const [t1, t2] = await newTags('t1', 't2');
      const post = await newPost({ title: 'p1', tags: [t1, t2], profile: { post_profile: 'test' } });
      expect((await ctx.api.post(`/api/posts/${post}/tags:remove`, [t1])).status).toBe(200);
      expect(await tagIds(post)).toEqual([t2]);
      const [profile] = (await ctx.api.get(`/api/profiles:list?filter=${encodeURIComponent(JSON.stringify({ postId: post }))}`)).body.data;
      const removed = await ctx.built.app.inject({ method: 'POST', url: `/api/posts/${post}/profile:remove`, headers: await ctx.api.authHeaders() });
      expect(removed.statusCode).toBe(200);
      expect((await ctx.api.get(`/api/profiles/${profile.id}`)).body.data.postId).toBeNull();
    });

    it('toggle-action.test.ts "toggle belongs to many"', async () => {
      const post = await newPost();
      const [t1, t2] = await newTags('t1', 't2');
      await ctx.api.post(`/api/posts/${post}/tags:toggle`, [t1, t2]);
      expect(await tagIds(post)).toEqual([t1, t2]);
      await ctx.api.post(`/api/posts/${post}/tags:toggle`, [t2]);
      expect(await tagIds(post)).toEqual([t1]);
    });

    it('every write action without a body (no content-type, as the SDK sends one without values) answers as with none', async () => {
      const [t1] = await newTags('bodyless');
      const post = await newPost({ title: 'bodyless', tags: [t1] });
      const victim = await newPost({ title: 'victim' });
      const cases: [string, number, () => Promise<void>][] = [
        [`/api/posts/${post}/tags:add`, 200, async () => expect(await tagIds(post)).toEqual([t1])],
        [`/api/posts/${post}/tags:remove`, 200, async () => expect(await tagIds(post)).toEqual([t1])],
        [`/api/posts/${post}/tags:toggle`, 200, async () => expect(await tagIds(post)).toEqual([t1])],
        [`/api/posts/${post}/tags:add?filterByTk=${t1}`, 200, async () => expect(await tagIds(post)).toEqual([t1])],
        [`/api/posts/${post}/tags:set`, 200, async () => expect(await tagIds(post)).toEqual([])],
        [`/api/posts/${post}/tags:create`, 201, async () => expect(await tagIds(post)).toHaveLength(1)],
        [`/api/posts:update?filterByTk=${post}`, 200, async () => expect((await ctx.api.get(`/api/posts/${post}`)).body.data.title).toBe('bodyless')],
        [`/api/posts:destroy?filterByTk=${victim}`, 200, async () => expect((await ctx.api.get(`/api/posts/${victim}`)).status).toBe(404)],
        ['/api/posts:destroy', 400, async () => undefined],
        ['/api/posts:firstOrCreate', 400, async () => undefined],
      ];
      for (const [url, status, check] of cases) {
        const reply = await ctx.built.app.inject({ method: 'POST', url, headers: await ctx.api.authHeaders() });
        expect(reply.statusCode, `${url} ${reply.body}`).toBe(status);
        await check();
      }
    });

    it('destroyed-collection-404.test.ts: list, get and create of a dropped collection, and of one that never existed, are 404', async () => {
      await ctx.api.collection({ name: 'tcdestroy', fields: [{ name: 'name', type: 'string' }] });
      expect((await ctx.api.get('/api/tcdestroy:list')).status).toBe(200);
      expect((await ctx.api.post('/api/collections:destroy?filterByTk=tcdestroy')).status).toBe(200);
      for (const [method, url] of [['GET', '/api/tcdestroy:list'], ['GET', '/api/tcdestroy:get?filterByTk=1'], ['POST', '/api/tcdestroy:create'], ['GET', '/api/tcneverexisted:list']] as const) {
        const reply = await ctx.api.request(method, url, method === 'POST' ? { name: 'x' } : undefined);
        expect(reply.status, url).toBe(404);
        expect(reply.body.errors[0].code, url).toBe('COLLECTION_NOT_FOUND');
      }
    });

    it('list-action.test.ts "list with pagination" and "list with non-paged": meta.count and totalPage; paginate=false answers every row', async () => {
      await ctx.api.collection({ name: 'pages', fields: [{ name: 'title', type: 'string' }] });
      await ctx.api.post('/api/pages:create', [{ title: 'pt1' }, { title: 'pt2' }, { title: 'pt3' }]);
      const page = await ctx.api.get('/api/pages:list?fields=id&pageSize=1&page=2&sort=id');
      expect(page.body.data).toEqual([{ id: 2 }]);
      expect(page.body.meta).toMatchObject({ count: 3, page: 2, pageSize: 1, totalPage: 3 });
      const all = await ctx.api.get('/api/pages:list?paginate=false');
      expect(all.body.data).toHaveLength(3);
      expect(all.body.meta).toBeUndefined();
      const descending = await ctx.api.get('/api/pages:list?sort=-id&fields=title');
      expect(descending.body.data.map((row: { title: string }) => row.title)).toEqual(['pt3', 'pt2', 'pt1']);
      const simple = await ctx.api.get('/api/pages:list?simplePaginate=true&pageSize=2');
      expect(simple.body.meta).toMatchObject({ page: 1, pageSize: 2, hasNext: true });
      expect(simple.body.meta).not.toHaveProperty('count');
    });
  });
}
