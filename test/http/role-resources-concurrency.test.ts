import { beforeAll, describe, expect, it } from 'vitest';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/** roles/<role>/resources changes are one locked read-modify-write of the role row: concurrent ones all land. */
const COUNT = 20;
const names = Array.from({ length: COUNT }, (_, index) => `c${index}`);

for (const dialect of DIALECTS) {
  describe(`concurrent changes of one role's resources on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const base = '/api/roles/busy/resources';

    beforeAll(async () => {
      for (const name of names) await ctx.api.collection({ name, fields: [{ name: 'title', type: 'string' }] });
      expect((await ctx.api.post('/api/roles:create', { name: 'busy', strategy: { actions: [] } })).status).toBe(201);
    });

    const listed = async (): Promise<Array<{ name: string; actions: unknown[] }>> => {
      const reply = await ctx.api.get(`${base}:list`);
      expect(reply.status, reply.text).toBe(200);
      return reply.body.data;
    };

    it(`${COUNT} concurrent creates of different collections are all kept`, async () => {
      const replies = await Promise.all(names.map((name) => ctx.api.post(`${base}:create`, { name, actions: [{ name: 'view' }] })));
      for (const reply of replies) expect(reply.status, reply.text).toBe(201);
      expect((await listed()).map((item) => item.name).sort()).toEqual([...names].sort());
    });

    it(`${COUNT} concurrent updates of different entries are all kept`, async () => {
      const replies = await Promise.all(names.map((name) => ctx.api.post(`${base}:update/${name}`, { actions: [{ name: 'view', fields: ['id', 'title'] }] })));
      for (const reply of replies) expect(reply.status, reply.text).toBe(200);
      const items = await listed();
      expect(items).toHaveLength(COUNT);
      for (const item of items) expect(item.actions, item.name).toEqual([{ name: 'view', fields: ['id', 'title'] }]);
    });

    it('concurrent destroys of half and updates of the other half: exactly the survivors remain, updated', async () => {
      const [gone, kept] = [names.slice(0, COUNT / 2), names.slice(COUNT / 2)];
      const replies = await Promise.all([...gone.map((name) => ctx.api.post(`${base}:destroy/${name}`)), ...kept.map((name) => ctx.api.post(`${base}:update/${name}`, { actions: [{ name: 'create' }] }))]);
      for (const reply of replies) expect(reply.status, reply.text).toBe(200);
      for (const reply of replies.slice(0, gone.length)) expect(reply.body).toEqual({ data: 1 });
      const items = await listed();
      expect(items.map((item) => item.name).sort()).toEqual([...kept].sort());
      for (const item of items) expect(item.actions, item.name).toEqual([{ name: 'create' }]);
    });
  });
}
