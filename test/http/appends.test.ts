import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { defineBlog } from '../support/blog-schema.js';
import { useDialectApp } from '../support/test-app.js';

for (const dialect of DIALECTS) {
  describe(`appends on ${dialect}`, () => {
    // Long poll intervals keep the schema poller's and the change feed's statements out of the counts below.
    const ctx = useDialectApp(dialect, { schemaPollMs: 600_000, changesPollMs: 600_000 });

    beforeAll(async () => {
      const api = ctx.api;
      await defineBlog(api);
      await api.post('/api/authors:create', [{ name: 'ann' }, { name: 'bob' }]);
      await api.post('/api/tags:create', [{ label: 'x' }, { label: 'y' }]);
      for (let p = 1; p <= 30; p++) {
        await api.post('/api/posts:create', { title: `p${p}`, authorId: p % 3 === 0 ? null : (p % 2) + 1 });
        for (let c = 0; c < 3; c++) await api.post(`/api/posts/${p}/comments:create`, { body: `p${p}c${c}`, authorId: ((p + c) % 2) + 1 });
        if (p % 2 === 0) await api.post(`/api/posts/${p}/tags:add`, [1, 2]);
      }
    });

    it('embeds every relation type, nested, on list and get', async () => {
      const list = await ctx.api.get('/api/posts:list?appends=author,comments.author,tags&pageSize=4&sort=id');
      expect(list.status, list.text).toBe(200);
      const [p1, p2, p3] = list.body.data;
      expect(p1.author).toMatchObject({ id: 2, name: 'bob' });
      expect(p3.author).toBeNull();
      expect(p1.comments.map((c: { body: string }) => c.body)).toEqual(['p1c0', 'p1c1', 'p1c2']);
      expect(p1.comments[0].author).toMatchObject({ name: 'bob' });
      expect(p1.tags).toEqual([]);
      expect(p2.tags.map((t: { label: string }) => t.label)).toEqual(['x', 'y']);
      const one = await ctx.api.get('/api/posts:get/2?appends=comments,author');
      expect(one.body.data.comments).toHaveLength(3);
      expect(one.body.data.author.name).toBe('ann');
    });

    it('selects fields inside appended associations and leaves out except', async () => {
      const reply = await ctx.api.get('/api/posts:get/1?fields=title,comments.body,author.name&except=comments.id');
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toEqual({
        title: 'p1',
        comments: [{ body: 'p1c0' }, { body: 'p1c1' }, { body: 'p1c2' }],
        author: { name: 'bob' },
      });
      const except = await ctx.api.get('/api/posts:get/1?appends=author&except=author.createdAt,author.updatedAt');
      expect(Object.keys(except.body.data.author)).toEqual(['id', 'name']);
    });

    it('reads appends in a number of statements bounded by the levels, not by the rows', async () => {
      const statements = async (url: string) => {
        const before = ctx.built.database.statements();
        const reply = await ctx.api.get(url);
        expect(reply.status, reply.text).toBe(200);
        return ctx.built.database.statements() - before;
      };
      // The fewest of four runs: a run may also reload the signed-in user and the role
      // definitions (each cached for a second per node), or overlap a background statement
      // (PostgreSQL publishes the setup's events within 50 ms), which is not the read's doing.
      await ctx.built.changes.settle();
      const fewest = async (url: string) => {
        const counts: number[] = [];
        for (let run = 0; run < 4; run++) counts.push(await statements(url));
        return Math.min(...counts);
      };
      const few = await fewest('/api/posts:list?appends=author,comments.author,tags&pageSize=3');
      const many = await fewest('/api/posts:list?appends=author,comments.author,tags&pageSize=30');
      // rows + count + author + comments + comments.author + tags
      expect(many).toBe(few);
      expect(many).toBeLessThanOrEqual(6);
    });

    it('streams appends with paginate=false', async () => {
      const reply = await ctx.api.get('/api/posts:list?paginate=false&appends=comments&fields=id,comments.body');
      expect(reply.body.data).toHaveLength(30);
      expect(reply.body.data[29].comments).toHaveLength(3);
    });

    it('refuses unknown association paths with APPENDS_UNKNOWN or FIELDS_UNKNOWN', async () => {
      expect((await ctx.api.get('/api/posts:list?appends=nope')).body.errors[0]).toMatchObject({ code: 'APPENDS_UNKNOWN', field: 'nope' });
      expect((await ctx.api.get('/api/posts:list?appends=comments.nope')).body.errors[0]).toMatchObject({ code: 'APPENDS_UNKNOWN', field: 'comments.nope' });
      expect((await ctx.api.get('/api/posts:list?fields=comments.nope')).body.errors[0]).toMatchObject({ code: 'FIELDS_UNKNOWN', field: 'comments.nope' });
      expect((await ctx.api.get('/api/posts:list?appends=title')).body.errors[0].code).toBe('APPENDS_UNKNOWN');
    });
  });
}
