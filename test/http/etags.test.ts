import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { apiFor, useDialectApp, type TestApi } from '../support/test-app.js';

/**
 * Conditional requests (docs/api.md, "Conditional requests"): ETag on GET answers of records
 * and lists, If-None-Match → 304, If-Match on update and destroy of one record → 412
 * PRECONDITION_FAILED when the record changed since. NocoBase has none of this: no case is ported.
 */
const LIMITED = {
  name: 'limited',
  strategy: { actions: [] },
  resources: [{ name: 'posts', actions: [{ name: 'view', fields: ['id', 'title', 'createdAt', 'updatedAt'] }, { name: 'update', fields: ['title'] }, { name: 'destroy' }] }],
};

for (const dialect of DIALECTS) {
  describe(`entity tags and conditional requests on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let limited: TestApi;
    let commits = 0;
    const create = async (title: string): Promise<number> => {
      const reply = await ctx.api.post('/api/posts:create', { title, secret: `${title}-secret` });
      expect(reply.status, reply.text).toBe(201);
      return reply.body.data.id as number;
    };
    const tagOf = async (url: string, api: TestApi = ctx.api): Promise<string> => {
      const reply = await api.get(url);
      expect(reply.status, reply.text).toBe(200);
      return String(reply.headers.etag);
    };

    beforeAll(async () => {
      await ctx.api.collection({ name: 'posts', fields: [{ name: 'title', type: 'string' }, { name: 'secret', type: 'string' }] });
      await ctx.api.collection({ name: 'comments', fields: [{ name: 'body', type: 'string' }, { name: 'post', type: 'belongsTo', target: 'posts' }] });
      const relation = await ctx.api.post('/api/collections/posts/fields:create', { name: 'comments', type: 'hasMany', target: 'comments', foreignKey: 'postId' });
      expect(relation.status, relation.text).toBe(201);
      expect((await ctx.api.post('/api/roles:create', LIMITED)).status).toBe(201);
      expect((await ctx.api.post('/api/users:create', { email: 'limited@corral.test', password: 'limited-password', roles: ['limited'] })).status).toBe(201);
      limited = apiFor(ctx.built, { account: 'limited@corral.test', password: 'limited-password' });
      ctx.built.store.afterCommit(() => void commits++);
    });

    it.each([
      ['get', (id: number) => `/api/posts:get?filterByTk=${id}`],
      ['REST get', (id: number) => `/api/posts/${id}`],
      ['list', () => '/api/posts:list?sort=id'],
      ['REST list', () => '/api/posts?sort=id'],
      ['simple paging', () => '/api/posts:list?simplePaginate=true'],
      ['cursor paging', () => '/api/posts:list?cursor='],
      ['association list', (id: number) => `/api/posts/${id}/comments:list`],
      ['REST association list', (id: number) => `/api/posts/${id}/comments`],
      ['association get', (id: number) => `/api/comments/${id}/post:get`],
    ])('%s: a strong ETag of the body, private no-cache, 304 on If-None-Match', async (what, url) => {
      const id = await create(`tagged ${what}`);
      const comment = await ctx.api.post(`/api/posts/${id}/comments:create`, { body: 'hi' });
      expect(comment.status, comment.text).toBe(201);
      const path = what === 'association get' ? url(comment.body.data.id as number) : url(id);
      const first = await ctx.api.get(path);
      expect(first.status, first.text).toBe(200);
      const tag = String(first.headers.etag);
      expect(tag).toMatch(/^"[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]+"$/);
      expect(first.headers['cache-control']).toBe('private, no-cache');
      expect(String(first.headers.vary)).toContain('Authorization');
      // The same answer again: the same tag.
      expect((await ctx.api.get(path)).headers.etag).toBe(tag);
      for (const condition of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
        const again = await ctx.api.request('GET', path, undefined, { 'if-none-match': condition });
        expect(again.status, condition).toBe(304);
        expect(again.text).toBe('');
        expect(again.headers.etag).toBe(tag);
        expect(again.headers['cache-control']).toBe('private, no-cache');
      }
      const miss = await ctx.api.request('GET', path, undefined, { 'if-none-match': '"other", W/"also-other"' });
      expect(miss.status).toBe(200);
      expect(miss.text).toBe(first.text);
    });

    it('HEAD answers with the same ETag and 304 like GET', async () => {
      const id = await create('head');
      const tag = await tagOf(`/api/posts/${id}`);
      const head = await ctx.api.request('HEAD', `/api/posts/${id}`);
      expect(head.status).toBe(200);
      expect(head.headers.etag).toBe(tag);
      expect((await ctx.api.request('HEAD', `/api/posts/${id}`, undefined, { 'if-none-match': tag })).status).toBe(304);
    });

    it('a change made after the GET changes the tags of the record and of the list', async () => {
      const id = await create('before');
      const record = await tagOf(`/api/posts/${id}`);
      const list = await tagOf('/api/posts:list?sort=id');
      expect((await ctx.api.put(`/api/posts/${id}`, { title: 'after' })).status).toBe(200);
      expect(await tagOf(`/api/posts/${id}`)).not.toBe(record);
      expect(await tagOf('/api/posts:list?sort=id')).not.toBe(list);
      expect((await ctx.api.request('GET', `/api/posts/${id}`, undefined, { 'if-none-match': record })).status).toBe(200);
    });

    it('streamed lists, writes and errors carry no ETag', async () => {
      const id = await create('untagged');
      expect((await ctx.api.get('/api/posts:list?paginate=false')).headers.etag).toBeUndefined();
      expect((await ctx.api.put(`/api/posts/${id}`, { title: 'untagged 2' })).headers.etag).toBeUndefined();
      expect((await ctx.api.get('/api/posts/999999')).headers.etag).toBeUndefined();
    });

    it('a malformed If-None-Match or If-Match is 400 REQUEST_INVALID', async () => {
      const id = await create('malformed');
      const none = await ctx.api.request('GET', `/api/posts/${id}`, undefined, { 'if-none-match': 'not-quoted' });
      expect(none.status).toBe(400);
      expect(none.body.errors[0].code).toBe('REQUEST_INVALID');
      const match = await ctx.api.request('PUT', `/api/posts/${id}`, { title: 'x' }, { 'if-match': '"a" "b"' });
      expect(match.status).toBe(400);
      expect(match.body.errors[0].code).toBe('REQUEST_INVALID');
    });

    it.each([
      ['update by path', 'PUT', (id: number) => `/api/posts/${id}`, { title: 'changed' }],
      ['update by filterByTk', 'POST', (id: number) => `/api/posts:update?filterByTk=${id}`, { title: 'changed' }],
      ['destroy by path', 'DELETE', (id: number) => `/api/posts/${id}`, undefined],
      ['destroy by filterByTk', 'POST', (id: number) => `/api/posts:destroy?filterByTk=${id}`, undefined],
    ])('%s: If-Match with the GET tag succeeds; after a concurrent change it is 412 and writes nothing', async (_what, method, url, body) => {
      const id = await create('match');
      const tag = await tagOf(`/api/posts/${id}`);
      const ok = await ctx.api.request(method, url(id), body, { 'if-match': `"stale", ${tag}` });
      expect(ok.status, ok.text).toBe(200);

      const other = await create('race');
      const stale = await tagOf(`/api/posts/${other}`);
      expect((await ctx.api.put(`/api/posts/${other}`, { title: 'someone else' })).status).toBe(200);
      const now = (await ctx.api.get(`/api/posts/${other}`)).text;
      const before = commits;
      const refused = await ctx.api.request(method, url(other), body, { 'if-match': stale });
      expect(refused.status, refused.text).toBe(412);
      expect(refused.body.errors[0].code).toBe('PRECONDITION_FAILED');
      expect(commits).toBe(before);
      expect((await ctx.api.get(`/api/posts/${other}`)).text).toBe(now);
      // A weak tag never matches If-Match (strong comparison).
      const fresh = await tagOf(`/api/posts/${other}`);
      expect((await ctx.api.request(method, url(other), body, { 'if-match': `W/${fresh}` })).status).toBe(412);
      expect(commits).toBe(before);
    });

    it('If-Match: * means "the record exists"', async () => {
      const id = await create('star');
      expect((await ctx.api.request('PUT', `/api/posts/${id}`, { title: 'star 2' }, { 'if-match': '*' })).status).toBe(200);
      expect((await ctx.api.request('DELETE', `/api/posts/${id}`, undefined, { 'if-match': '*' })).status).toBe(200);
      const gone = await ctx.api.request('PUT', `/api/posts/${id}`, { title: 'star 3' }, { 'if-match': '*' });
      expect(gone.status).toBe(412);
      expect(gone.body.errors[0].code).toBe('PRECONDITION_FAILED');
    });

    it('If-Match on an association record uses the tag of its GET at the same path', async () => {
      const id = await create('source');
      const comment = await ctx.api.post(`/api/posts/${id}/comments:create`, { body: 'one' });
      const path = `/api/posts/${id}/comments/${comment.body.data.id}`;
      const tag = await tagOf(path);
      expect((await ctx.api.request('PUT', path, { body: 'two' }, { 'if-match': tag })).status).toBe(200);
      expect((await ctx.api.request('PUT', path, { body: 'three' }, { 'if-match': tag })).status).toBe(412);
    });

    it.each([
      ['update by filter', 'POST', `/api/posts:update?filter=${encodeURIComponent('{"title":"bulk"}')}`, { title: 'bulk 2' }],
      ['update by a key list', 'POST', '/api/posts:update?filterByTk[]=1&filterByTk[]=2', { title: 'bulk 2' }],
      ['destroy by filter', 'POST', `/api/posts:destroy?filter=${encodeURIComponent('{"title":"bulk"}')}`, undefined],
    ])('%s with If-Match: 400 PRECONDITION_NOT_SINGLE, nothing written', async (_what, method, url, body) => {
      await create('bulk');
      const before = commits;
      const reply = await ctx.api.request(method, url, body, { 'if-match': '*' });
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.errors[0].code).toBe('PRECONDITION_NOT_SINGLE');
      expect(commits).toBe(before);
    });

    it('a caller with a narrower field grant gets its own tag and cannot use root\'s', async () => {
      const id = await create('grants');
      const rootTag = await tagOf(`/api/posts/${id}`);
      const limitedGet = await limited.get(`/api/posts/${id}`);
      expect(limitedGet.body.data.secret).toBeUndefined();
      const limitedTag = String(limitedGet.headers.etag);
      expect(limitedTag).not.toBe(rootTag);
      // Root's tag is not the limited caller's: 412, with no hidden value in the answer.
      const probe = await limited.request('PUT', `/api/posts/${id}`, { title: 'probe' }, { 'if-match': rootTag });
      expect(probe.status).toBe(412);
      expect(probe.text).not.toContain('grants-secret');
      expect((await limited.request('GET', `/api/posts/${id}`, undefined, { 'if-none-match': rootTag })).status).toBe(200);
      const own = await limited.request('PUT', `/api/posts/${id}`, { title: 'limited wrote' }, { 'if-match': limitedTag });
      expect(own.status, own.text).toBe(200);
      expect((await ctx.api.get(`/api/posts/${id}`)).body.data.secret).toBe('grants-secret');
    });
  });
}
