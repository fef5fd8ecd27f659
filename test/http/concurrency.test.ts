import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

for (const dialect of DIALECTS) {
  describe(`concurrent writes on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it('lands all of 50 concurrent creates, each in its own transaction', async () => {
      await ctx.api.collection({ name: 'events', fields: [{ name: 'n', type: 'integer' }, { name: 'pos', type: 'sort' }] });
      const replies = await Promise.all(Array.from({ length: 50 }, (_, n) => ctx.api.post('/api/events:create', { n })));
      expect(replies.map((reply) => reply.status)).toEqual(Array(50).fill(201));
      const list = await ctx.api.get('/api/events:list?pageSize=100');
      expect(list.body.meta.count).toBe(50);
      expect(new Set(list.body.data.map((item: { n: number }) => item.n)).size).toBe(50);
    });

    it('keeps concurrent updates of one row and a failing write apart', async () => {
      const id = (await ctx.api.post('/api/events:create', { n: 0 })).body.data.id;
      const replies = await Promise.all([
        ...Array.from({ length: 20 }, (_, n) => ctx.api.put(`/api/events/${id}`, { n: n + 1 })),
        ctx.api.post('/api/events:create', [{ n: 1000 }, { n: 'bad' }]),
      ]);
      expect(replies.slice(0, 20).every((reply) => reply.status === 200)).toBe(true);
      expect(replies[20]!.status).toBe(400);
      const row = (await ctx.api.get(`/api/events/${id}`)).body.data;
      expect(row.n).toBeGreaterThanOrEqual(1);
      expect((await ctx.api.get(`/api/events:list?filter=${encodeURIComponent('{"n":1000}')}`)).body.meta.count).toBe(0);
    });
  });
}
