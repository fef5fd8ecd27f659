import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

for (const dialect of DIALECTS) {
  describe(`nested association writes on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const state = async () => {
      const read = async (url: string) => JSON.stringify((await ctx.api.get(url)).body.data);
      return [await read('/api/posts:list?paginate=false'), await read('/api/comments:list?paginate=false'), await read('/api/posts_tags:list?paginate=false'), await read('/api/authors:list?paginate=false')].join('\n');
    };

    beforeAll(async () => {
      const api = ctx.api;
      await api.collection({ name: 'authors', fields: [{ name: 'name', type: 'string', allowNull: false }] });
      await api.collection({ name: 'tags', fields: [{ name: 'label', type: 'string' }] });
      await api.collection({ name: 'comments', fields: [{ name: 'body', type: 'string', allowNull: false }] });
      await api.collection({
        name: 'posts',
        fields: [{ name: 'title', type: 'string' }, { name: 'views', type: 'integer' }, { name: 'author', type: 'belongsTo' }, { name: 'comments', type: 'hasMany' }, { name: 'tags', type: 'belongsToMany' }],
      });
      await api.post('/api/authors:create', [{ name: 'ann' }, { name: 'bob' }]);
      await api.post('/api/tags:create', [{ label: 'a' }, { label: 'b' }, { label: 'c' }]);
    });

    it('creates a record with keys and new objects for every relation type, in one request', async () => {
      const reply = await ctx.api.post('/api/posts:create?appends=author,comments,tags', {
        title: 'one',
        author: 1,
        tags: [1, 3],
        comments: [{ body: 'first' }, { body: 'second' }],
      });
      expect(reply.status, reply.text).toBe(201);
      const data = reply.body.data;
      expect(data.authorId).toBe(1);
      expect(data.author.name).toBe('ann');
      expect(data.comments.map((c: { body: string }) => c.body)).toEqual(['first', 'second']);
      expect(data.tags.map((t: { label: string }) => t.label)).toEqual(['a', 'c']);
      const created = await ctx.api.post('/api/posts:create?appends=author', { title: 'two', author: { name: 'cyd' } });
      expect(created.body.data.author.name).toBe('cyd');
      expect((await ctx.api.get('/api/authors:count')).body.data).toBe(3);
    });

    it('replaces to-many links on update (set semantics) and unlinks without deleting', async () => {
      const post = (await ctx.api.get('/api/posts:list?filter={"title":"one"}')).body.data[0];
      const comments = (await ctx.api.get(`/api/posts/${post.id}/comments:list`)).body.data;
      const updated = await ctx.api.put(`/api/posts/${post.id}?appends=tags,comments`, { tags: [2], comments: [comments[1].id, { body: 'third' }] });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.data.tags.map((t: { label: string }) => t.label)).toEqual(['b']);
      expect(updated.body.data.comments.map((c: { body: string }) => c.body)).toEqual(['second', 'third']);
      const orphan = (await ctx.api.get(`/api/comments/${comments[0].id}`)).body.data;
      expect(orphan.postId).toBeNull();
      const cleared = await ctx.api.put(`/api/posts/${post.id}?appends=tags,author`, { tags: [], author: null });
      expect(cleared.body.data.tags).toEqual([]);
      expect(cleared.body.data.author).toBeNull();
    });

    it('changes an existing target through a nested object only with updateAssociationValues', async () => {
      const post = (await ctx.api.post('/api/posts:create', { title: 'three', author: 2 })).body.data;
      await ctx.api.put(`/api/posts/${post.id}`, { author: { id: 2, name: 'renamed' } });
      expect((await ctx.api.get('/api/authors/2')).body.data.name).toBe('bob');
      await ctx.api.put(`/api/posts/${post.id}?updateAssociationValues=author`, { author: { id: 2, name: 'renamed' } });
      expect((await ctx.api.get('/api/authors/2')).body.data.name).toBe('renamed');
    });

    it('rolls the whole write back when a nested part fails', async () => {
      const before = await state();
      const missingTag = await ctx.api.post('/api/posts:create', { title: 'bad', tags: [1, 999], comments: [{ body: 'x' }] });
      expect(missingTag.status).toBe(409);
      expect(missingTag.body.errors[0]).toMatchObject({ code: 'REFERENCE_VIOLATION', field: 'tags' });
      const badComment = await ctx.api.post('/api/posts:create', { title: 'bad', author: { name: 'new' }, comments: [{ body: 'ok' }, { body: null }] });
      expect(badComment.status).toBe(400);
      expect(badComment.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'body' });
      const badShape = await ctx.api.post('/api/posts:create', { title: 'bad', tags: 'a' });
      expect(badShape.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'tags' });
      const post = (await ctx.api.get('/api/posts:list?filter={"title":"one"}')).body.data[0];
      const failedUpdate = await ctx.api.put(`/api/posts/${post.id}`, { title: 'changed', tags: [1, 2], author: 999 });
      expect(failedUpdate.status).toBe(409);
      expect(await state()).toBe(before);
    });

    it('narrows what a write may touch with whitelist and blacklist', async () => {
      const white = await ctx.api.post('/api/posts:create?whitelist=title&appends=tags', { title: 'w', views: 5, tags: [1] });
      expect(white.body.data).toMatchObject({ title: 'w', views: null, tags: [] });
      const black = await ctx.api.post('/api/posts:create?blacklist=views', { title: 'b', views: 5 });
      expect(black.body.data).toMatchObject({ title: 'b', views: null });
    });
  });
}
