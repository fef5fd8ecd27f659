import { beforeAll, describe, expect, it } from 'vitest';
import { bindFilter } from '../../src/plan/bind-filter.js';
import type { ScopeProvider, Scopes } from '../../src/store/scope.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type Reply, type TestApi } from '../support/test-app.js';

/**
 * A scope given to the store for a collection hides its out-of-scope rows from every path
 * that reads or changes them. Every collection here hides the rows named 'hidden' (posts:
 * titled 'hidden'); the scope is switched on per test through the store's provider seam.
 */
const HIDDEN: Record<string, Record<string, unknown>> = {
  posts: { title: { $ne: 'hidden' } },
  authors: { name: { $ne: 'hidden' } },
  comments: { name: { $ne: 'hidden' } },
  tags: { name: { $ne: 'hidden' } },
};

let scoped = false;
const provider: ScopeProvider = (_request, snapshot) => {
  if (!scoped) return new Map();
  const scopes = new Map(Object.entries(HIDDEN).map(([name, filter]) => [name, { where: bindFilter(filter, snapshot.get(name)!) }]));
  return scopes satisfies Scopes;
};

function expectError(reply: Reply, status: number, code: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.errors[0].code, reply.text).toBe(code);
}

for (const dialect of DIALECTS) {
  describe(`store scopes on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, {}, { store: { scopes: provider } });
    let api: TestApi;
    const id: Record<string, number> = {};

    /** Runs `work` with the scope on, then switches it off again. */
    const inScope = async <T>(work: () => Promise<T>): Promise<T> => {
      scoped = true;
      try {
        return await work();
      } finally {
        scoped = false;
      }
    };
    const create = async (collection: string, values: Record<string, unknown>): Promise<number> => {
      const reply = await api.post(`/api/${collection}:create`, values);
      expect(reply.status, reply.text).toBe(201);
      return reply.body.data.id;
    };
    const titles = (reply: Reply): string[] => reply.body.data.map((item: { title: string }) => item.title);

    beforeAll(async () => {
      api = ctx.api;
      for (const name of ['authors', 'comments', 'tags']) await api.collection({ name, fields: [{ name: 'name', type: 'string' }] });
      await api.collection({
        name: 'posts',
        fields: [
          { name: 'title', type: 'string' },
          { name: 'author', type: 'belongsTo' },
          { name: 'comments', type: 'hasMany' },
          { name: 'tags', type: 'belongsToMany' },
        ],
      });
      id.amy = await create('authors', { name: 'amy' });
      id.hiddenAuthor = await create('authors', { name: 'hidden' });
      id.zoe = await create('authors', { name: 'zoe' });
      id.hiddenTag = await create('tags', { name: 'hidden' });
      id.tag = await create('tags', { name: 'red' });
      id.a = await create('posts', { title: 'a', author: id.zoe, tags: [id.tag, id.hiddenTag], comments: [{ name: 'c1' }, { name: 'hidden' }] });
      id.b = await create('posts', { title: 'b', author: id.hiddenAuthor });
      id.c = await create('posts', { title: 'c', author: id.amy });
      id.hidden = await create('posts', { title: 'hidden', author: id.amy, comments: [{ name: 'secret comment' }] });
    });

    it('list, get and count do not see out-of-scope rows', async () => {
      await inScope(async () => {
        expect(titles(await api.get('/api/posts:list?sort=id'))).toEqual(['a', 'b', 'c']);
        expect((await api.get('/api/posts:list?sort=id&paginate=false')).body.data).toHaveLength(3);
        expect((await api.get('/api/posts:list?pageSize=2')).body.meta).toMatchObject({ count: 3, totalPage: 2 });
        expectError(await api.get(`/api/posts/${id.hidden}`), 404, 'RECORD_NOT_FOUND');
        expect((await api.get('/api/posts:count')).body.data).toBe(3);
      });
      expect((await api.get('/api/posts:count')).body.data).toBe(4);
    });

    it('appends on another collection do not embed out-of-scope rows', async () => {
      const reply = await inScope(() => api.get('/api/posts:list?sort=id&appends=author,tags,comments'));
      expect(reply.status, reply.text).toBe(200);
      const [a, b] = reply.body.data;
      expect(a.author.name).toBe('zoe');
      expect(a.tags.map((tag: { name: string }) => tag.name)).toEqual(['red']);
      expect(a.comments.map((comment: { name: string }) => comment.name)).toEqual(['c1']);
      expect(b.author).toBeNull();
    });

    it('association routes see neither an out-of-scope source nor out-of-scope targets', async () => {
      await inScope(async () => {
        expectError(await api.get(`/api/posts/${id.hidden}/comments:list`), 404, 'RECORD_NOT_FOUND');
        expectError(await api.get(`/api/posts/${id.hidden}/comments:count`), 404, 'RECORD_NOT_FOUND');
        const comments = await api.get(`/api/posts/${id.a}/comments:list?sort=id`);
        expect(comments.body.data.map((comment: { name: string }) => comment.name)).toEqual(['c1']);
        const tags = await api.get(`/api/posts/${id.a}/tags:list?sort=id`);
        expect(tags.body.data.map((tag: { name: string }) => tag.name)).toEqual(['red']);
        expectError(await api.get(`/api/posts/${id.b}/author:get`), 404, 'RECORD_NOT_FOUND');
      });
    });

    it('association paths in filter and sort do not reach out-of-scope rows', async () => {
      await inScope(async () => {
        const byAuthor = await api.get(`/api/posts:list?filter=${encodeURIComponent(JSON.stringify({ 'author.name': 'hidden' }))}`);
        expect(byAuthor.body.data).toEqual([]);
        const byComment = await api.get(`/api/posts:list?filter=${encodeURIComponent(JSON.stringify({ 'comments.name': 'hidden' }))}`);
        expect(byComment.body.data).toEqual([]);
        const byTag = await api.get(`/api/posts:list?filter=${encodeURIComponent(JSON.stringify({ 'tags.name': 'hidden' }))}`);
        expect(byTag.body.data).toEqual([]);
        // The hidden author sorts as no author: last, after amy and zoe.
        expect(titles(await api.get('/api/posts:list?sort=author.name'))).toEqual(['c', 'a', 'b']);
        expect(titles(await api.get('/api/posts:list?sort=-author.name'))).toEqual(['a', 'c', 'b']);
        // Twice: the second run comes from the statement cache.
        expect(titles(await api.get('/api/posts:list?sort=author.name'))).toEqual(['c', 'a', 'b']);
      });
      expect(titles(await api.get('/api/posts:list?sort=author.name'))).toEqual(['c', 'hidden', 'b', 'a']);
    });

    it('nested writes and links cannot name out-of-scope rows', async () => {
      await inScope(async () => {
        expectError(await api.post('/api/posts:create', { title: 'n', author: id.hiddenAuthor }), 409, 'REFERENCE_VIOLATION');
        expectError(await api.post('/api/posts:create', { title: 'n', tags: [id.hiddenTag] }), 409, 'REFERENCE_VIOLATION');
        expectError(await api.post(`/api/posts/${id.c}/tags:add`, [id.hiddenTag]), 409, 'REFERENCE_VIOLATION');
        expectError(await api.post(`/api/posts/${id.c}/author:set`, id.hiddenAuthor), 409, 'REFERENCE_VIOLATION');
        expectError(await api.post(`/api/posts/${id.hidden}/tags:add`, [id.tag]), 404, 'RECORD_NOT_FOUND');
      });
      expect((await api.get(`/api/posts:list?filter=${encodeURIComponent(JSON.stringify({ title: 'n' }))}`)).body.data).toEqual([]);
      expect((await api.get(`/api/posts/${id.c}`)).body.data.authorId).toBe(id.amy);
      expect((await api.get(`/api/posts/${id.c}/tags:list`)).body.data).toEqual([]);
    });

    it('update and destroy do not find or change out-of-scope rows', async () => {
      await inScope(async () => {
        expectError(await api.put(`/api/posts/${id.hidden}`, { title: 'changed' }), 404, 'RECORD_NOT_FOUND');
        expectError(await api.post(`/api/posts:update?filterByTk=${id.hidden}`, { title: 'changed', comments: [] }), 404, 'RECORD_NOT_FOUND');
        expectError(await api.del(`/api/posts/${id.hidden}`), 404, 'RECORD_NOT_FOUND');
        const filter = encodeURIComponent(JSON.stringify({ 'author.name': 'amy' }));
        const updated = await api.post(`/api/posts:update?filter=${filter}`, { author: id.amy });
        expect(updated.status, updated.text).toBe(200);
        expect(titles(updated)).toEqual(['c']);
        const destroyed = await api.post(`/api/posts:destroy?filter=${encodeURIComponent(JSON.stringify({ title: { $in: ['c', 'hidden'] } }))}`);
        expect(destroyed.body.data).toBe(1);
      });
      const hidden = await api.get(`/api/posts/${id.hidden}?appends=comments`);
      expect(hidden.body.data.title).toBe('hidden');
      expect(hidden.body.data.comments).toHaveLength(1);
      expectError(await api.get(`/api/posts/${id.c}`), 404, 'RECORD_NOT_FOUND');
    });
  });
}
