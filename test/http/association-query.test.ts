import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { defineBlog } from '../support/blog-schema.js';
import { useDialectApp } from '../support/test-app.js';

const f = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));

for (const dialect of DIALECTS) {
  describe(`association paths in filter and sort on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const titles = async (query: string) => {
      const reply = await ctx.api.get(`/api/posts:list?${query}&fields=title&pageSize=100`);
      expect(reply.status, reply.text).toBe(200);
      return { titles: reply.body.data.map((item: { title: string }) => item.title), count: reply.body.meta.count };
    };

    beforeAll(async () => {
      const api = ctx.api;
      await defineBlog(api);
      await api.post('/api/authors:create', [{ name: 'Zed' }, { name: 'amy' }, { name: 'Bob' }]);
      await api.post('/api/tags:create', [{ label: 'news' }, { label: 'tech' }]);
      // a: amy, 3 matching comments; b: Zed, 1; c: no author, none; d: Bob, comments by Zed
      await api.post('/api/posts:create', [
        { title: 'a', authorId: 2 },
        { title: 'b', authorId: 1 },
        { title: 'c' },
        { title: 'd', authorId: 3 },
      ]);
      for (const body of ['hot', 'hot take', 'hot!']) await api.post('/api/posts/1/comments:create', { body, authorId: 3 });
      await api.post('/api/posts/2/comments:create', { body: 'hot', authorId: 2 });
      await api.post('/api/posts/4/comments:create', { body: 'cold', authorId: 1 });
      await api.post('/api/posts/1/tags:set', [1, 2]);
      await api.post('/api/posts/2/tags:set', [2]);
    });

    it('filters through a to-one path', async () => {
      expect((await titles(`filter=${f({ 'author.name': 'amy' })}`)).titles).toEqual(['a']);
      expect((await titles(`filter=${f({ author: { name: { $in: ['Zed', 'Bob'] } } })}`)).titles).toEqual(['b', 'd']);
    });

    it('matches a parent once when many children match, with the right count', async () => {
      const hot = await titles(`filter=${f({ 'comments.body': { $in: ['hot', 'hot take', 'hot!'] } })}`);
      expect(hot).toEqual({ titles: ['a', 'b'], count: 2 });
      expect((await ctx.api.get(`/api/posts:count?filter=${f({ 'comments.body': 'hot' })}`)).body.data).toBe(2);
    });

    it('follows nested and many-to-many paths, combined with plain conditions', async () => {
      expect((await titles(`filter=${f({ 'comments.author.name': 'Zed' })}`)).titles).toEqual(['d']);
      expect((await titles(`filter=${f({ 'tags.label': 'tech' })}`)).titles).toEqual(['a', 'b']);
      expect((await titles(`filter=${f({ $and: [{ 'tags.label': 'tech' }, { title: { $ne: 'a' } }] })}`)).titles).toEqual(['b']);
      expect((await titles(`filter=${f({ $not: { 'comments.body': 'hot' } })}`)).titles).toEqual(['c', 'd']);
    });

    it('tests for related rows with $exists and $notExists', async () => {
      expect((await titles(`filter=${f({ comments: { $exists: true } })}`)).titles).toEqual(['a', 'b', 'd']);
      expect((await titles(`filter=${f({ tags: { $notExists: true } })}`)).titles).toEqual(['c', 'd']);
      expect((await titles(`filter=${f({ author: { $notExists: true } })}`)).titles).toEqual(['c']);
    });

    it('sorts by a to-one field, NULLs last both ways, without repeating rows', async () => {
      expect((await titles('sort=author.name')).titles).toEqual(['d', 'b', 'a', 'c']);
      expect((await titles('sort=-author.name')).titles).toEqual(['a', 'b', 'd', 'c']);
      const comments = await ctx.api.get('/api/comments:list?sort=-author.name,id&fields=body&pageSize=100');
      expect(comments.body.data.map((c: { body: string }) => c.body)).toEqual(['hot', 'cold', 'hot', 'hot take', 'hot!']);
    });

    it('refuses unknown or unsortable paths with the catalogue codes', async () => {
      expect((await ctx.api.get(`/api/posts:list?filter=${f({ 'author.nope': 1 })}`)).body.errors[0].code).toBe('FILTER_UNKNOWN_FIELD');
      expect((await ctx.api.get(`/api/posts:list?filter=${f({ 'nope.name': 1 })}`)).body.errors[0]).toMatchObject({ code: 'FILTER_UNKNOWN_FIELD', field: 'nope.name' });
      expect((await ctx.api.get('/api/posts:list?sort=comments.body')).body.errors[0].code).toBe('SORT_UNKNOWN_FIELD');
      expect((await ctx.api.get('/api/posts:list?sort=author.nope')).body.errors[0].code).toBe('SORT_UNKNOWN_FIELD');
      expect((await ctx.api.get(`/api/posts:list?filter=${f({ author: { $exists: 'maybe' } })}`)).body.errors[0].code).toBe('FILTER_OPERATOR_TYPE');
    });
  });
}
