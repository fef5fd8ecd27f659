import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/store/change-set.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';

/**
 * Every write kind reports the keys it changed, per collection, to the store's afterCommit
 * hook (one call per committed unit of work); a rolled-back unit reports nothing.
 */
type Summary = Record<string, { created?: unknown[]; updated?: unknown[]; deleted?: unknown[] }>;

function summarize(changes: ChangeSet): Summary {
  const out: Summary = {};
  for (const [collection, { created, updated, deleted }] of changes.collections()) {
    const keys = (list: { key: unknown }[]) => list.map((change) => Number(change.key)).sort((a, b) => a - b);
    out[collection] = {
      ...(created.length > 0 ? { created: keys(created) } : {}),
      ...(updated.length > 0 ? { updated: keys(updated) } : {}),
      ...(deleted.length > 0 ? { deleted: keys(deleted) } : {}),
    };
  }
  return out;
}

for (const dialect of DIALECTS) {
  describe(`change sets of writes on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let api: TestApi;
    let reports: Summary[] = [];
    let failBeforeCommit = false;

    const create = async (collection: string, values: unknown): Promise<number> => {
      const reply = await api.post(`/api/${collection}:create`, values);
      expect(reply.status, reply.text).toBe(201);
      return reply.body.data.id;
    };
    /** The reports since the last call. */
    const take = (): Summary[] => {
      const out = reports;
      reports = [];
      return out;
    };

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
      ctx.built.store.afterCommit((changes) => {
        reports.push(summarize(changes));
      });
      ctx.built.store.beforeCommit(() => {
        if (failBeforeCommit) throw new Error('outbox unavailable');
      });
    });

    beforeEach(() => {
      take();
      failBeforeCommit = false;
    });

    it('create, bulk create, update by key and by filter, destroy', async () => {
      const one = await create('posts', { title: 'one' });
      expect(take()).toEqual([{ posts: { created: [one] } }]);
      const bulk = await api.post('/api/posts:create', [{ title: 'two' }, { title: 'two' }]);
      const [two, three] = bulk.body.data.map((item: { id: number }) => item.id);
      expect(take()).toEqual([{ posts: { created: [two, three] } }]);
      expect((await api.put(`/api/posts/${one}`, { title: 'uno' })).status).toBe(200);
      expect(take()).toEqual([{ posts: { updated: [one] } }]);
      const filter = encodeURIComponent(JSON.stringify({ title: 'two' }));
      expect((await api.post(`/api/posts:update?filter=${filter}`, { title: 'dos' })).status).toBe(200);
      expect(take()).toEqual([{ posts: { updated: [two, three] } }]);
      expect((await api.post(`/api/posts:destroy?filter=${encodeURIComponent(JSON.stringify({ title: 'dos' }))}`)).body.data).toBe(2);
      expect(take()).toEqual([{ posts: { deleted: [two, three] } }]);
      expect((await api.del(`/api/posts/${one}`)).status).toBe(200);
      expect(take()).toEqual([{ posts: { deleted: [one] } }]);
    });

    it('nested create and nested update report every collection they touch', async () => {
      const tag = await create('tags', { name: 'old' });
      take();
      const reply = await api.post('/api/posts:create', { title: 'n', author: { name: 'a' }, comments: [{ name: 'c' }], tags: [tag, { name: 'new' }] });
      expect(reply.status, reply.text).toBe(201);
      const post = reply.body.data.id;
      const [report] = take();
      expect(Object.keys(report!).sort()).toEqual(['authors', 'comments', 'posts', 'posts_tags', 'tags']);
      expect(report!.posts).toEqual({ created: [post] });
      expect(report!.tags!.created).toHaveLength(1);
      expect(report!.posts_tags!.created).toHaveLength(2);
      const [comment] = (await api.get(`/api/posts/${post}/comments:list`)).body.data.map((item: { id: number }) => item.id);
      take();
      const updated = await api.put(`/api/posts/${post}`, { title: 'm', comments: [{ name: 'd' }] });
      expect(updated.status, updated.text).toBe(200);
      const [next] = take();
      expect(next!.posts).toEqual({ updated: [post] });
      expect(next!.comments!.created).toHaveLength(1);
      expect(next!.comments!.updated).toEqual([comment]);
    });

    it('association create and add, set, remove, toggle report the rows they link or unlink', async () => {
      const post = await create('posts', { title: 'p' });
      const author = await create('authors', { name: 'a' });
      const tag = await create('tags', { name: 't' });
      const loose = await create('comments', { name: 'loose' });
      take();
      const comment = (await api.post(`/api/posts/${post}/comments:create`, { name: 'c' })).body.data.id;
      expect(take()).toEqual([{ comments: { created: [comment] } }]);
      await api.post(`/api/posts/${post}/comments:add`, [loose]);
      expect(take()).toEqual([{ comments: { updated: [loose] } }]);
      await api.post(`/api/posts/${post}/comments:set`, [loose]);
      expect(take()).toEqual([{ comments: { updated: [comment] } }]);
      await api.post(`/api/posts/${post}/comments:remove`, [loose]);
      expect(take()).toEqual([{ comments: { updated: [loose] } }]);
      await api.post(`/api/posts/${post}/tags:add`, [tag]);
      const [added] = take();
      expect(added!.posts_tags!.created).toHaveLength(1);
      const link = added!.posts_tags!.created![0];
      await api.post(`/api/posts/${post}/tags:toggle`, [tag]);
      expect(take()).toEqual([{ posts_tags: { deleted: [link] } }]);
      await api.post(`/api/posts/${post}/tags:toggle`, [tag]);
      expect(take()[0]!.posts_tags!.created).toHaveLength(1);
      await api.post(`/api/posts/${post}/tags:remove`, [tag]);
      expect(take()[0]!.posts_tags!.deleted).toHaveLength(1);
      await api.post(`/api/posts/${post}/author:set`, author);
      expect(take()).toEqual([{ posts: { updated: [post] } }]);
      await api.post(`/api/posts/${post}/author:remove`);
      expect(take()).toEqual([{ posts: { updated: [post] } }]);
    });

    it('a rolled-back unit of work reports nothing', async () => {
      const refused = await api.post('/api/posts:create', { title: 'r', comments: [{ name: 'c' }], author: 999999 });
      expect(refused.status, refused.text).toBe(409);
      const failing = await api.post('/api/posts:create', [{ title: 'r' }, { title: 'r', author: 999999 }]);
      expect(failing.status, failing.text).toBe(409);
      failBeforeCommit = true;
      const hooked = await api.post('/api/posts:create', { title: 'rolled back' });
      expect(hooked.status).toBe(500);
      failBeforeCommit = false;
      expect(take()).toEqual([]);
      const left = await api.get(`/api/posts:count?filter=${encodeURIComponent(JSON.stringify({ title: { $in: ['r', 'rolled back'] } }))}`);
      expect(left.body.data).toBe(0);
    });
  });
}
