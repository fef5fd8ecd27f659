import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

for (const dialect of DIALECTS) {
  describe(`firstOrCreate and updateOrCreate on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    beforeAll(async () => {
      await ctx.api.collection({ name: 'owners', fields: [{ name: 'name', type: 'string' }] });
      await ctx.api.collection({
        name: 'accounts',
        fields: [
          { name: 'email', type: 'string', unique: true },
          { name: 'team', type: 'string' },
          { name: 'visits', type: 'integer', defaultValue: 0 },
          { name: 'owner', type: 'belongsTo', target: 'owners' },
        ],
      });
    });

    it('firstOrCreate creates once, then answers the existing record unchanged', async () => {
      const created = await ctx.api.post('/api/accounts:firstOrCreate?filterKeys=email', { email: 'a@x', team: 'red', visits: 1 });
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe(`/api/accounts/${created.body.data.id}`);
      expect(created.body.data).toMatchObject({ email: 'a@x', team: 'red', visits: 1 });
      const again = await ctx.api.post('/api/accounts:firstOrCreate?filterKeys=email', { email: 'a@x', team: 'blue', visits: 9 });
      expect(again.status).toBe(200);
      expect(again.body.data).toMatchObject({ id: created.body.data.id, team: 'red', visits: 1 });
      expect((await ctx.api.get('/api/accounts:count?filter={"email":"a@x"}')).body.data).toBe(1);
    });

    it('firstOrCreate matches on several keys and on null, and embeds appends', async () => {
      const owner = (await ctx.api.post('/api/owners:create', { name: 'olga' })).body.data;
      const first = await ctx.api.post('/api/accounts:firstOrCreate?filterKeys[]=team&filterKeys[]=email&appends=owner', { email: null, team: 'green', ownerId: owner.id });
      expect(first.status).toBe(201);
      expect(first.body.data.owner).toMatchObject({ name: 'olga' });
      const second = await ctx.api.post('/api/accounts:firstOrCreate?filterKeys=team,email&appends=owner', { email: null, team: 'green' });
      expect(second.status).toBe(200);
      expect(second.body.data).toMatchObject({ id: first.body.data.id, owner: { name: 'olga' } });
      const other = await ctx.api.post('/api/accounts:firstOrCreate?filterKeys=team,email', { email: 'g@x', team: 'green' });
      expect(other.status).toBe(201);
    });

    it('updateOrCreate creates when nothing matches, then updates the match', async () => {
      const created = await ctx.api.post('/api/accounts:updateOrCreate?filterKeys=email', { email: 'u@x', team: 'red' });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({ email: 'u@x', team: 'red', visits: 0 });
      const updated = await ctx.api.post('/api/accounts:updateOrCreate?filterKeys=email', { email: 'u@x', team: 'blue', visits: 5 });
      expect(updated.status).toBe(200);
      expect(updated.body.data).toMatchObject({ id: created.body.data.id, email: 'u@x', team: 'blue', visits: 5 });
      const read = await ctx.api.get(`/api/accounts/${created.body.data.id}`);
      expect(read.body.data).toMatchObject({ team: 'blue', visits: 5 });
    });

    it('refuses bad filterKeys, bodies and methods with their codes, writing nothing', async () => {
      const before = (await ctx.api.get('/api/accounts:count')).body.data;
      const cases: [string, string, unknown, number, string][] = [
        ['POST', '/api/accounts:firstOrCreate', { email: 'n@x' }, 400, 'PARAM_INVALID'],
        ['POST', '/api/accounts:firstOrCreate?filterKeys=nope', { email: 'n@x' }, 400, 'PARAM_INVALID'],
        ['POST', '/api/accounts:updateOrCreate?filterKeys=email', [{ email: 'n@x' }], 400, 'BODY_INVALID'],
        ['POST', '/api/accounts:updateOrCreate?filterKeys=email', { email: 'n@x', bogus: 1 }, 400, 'VALUE_UNKNOWN_FIELD'],
        ['POST', '/api/accounts:firstOrCreate?filterKeys=email', { email: 'n@x', visits: 'many' }, 400, 'VALIDATION_FAILED'],
        ['GET', '/api/accounts:firstOrCreate?filterKeys=email', undefined, 405, 'METHOD_NOT_ALLOWED'],
      ];
      for (const [method, url, body, status, code] of cases) {
        const reply = await ctx.api.request(method, url, body);
        expect(reply.status, `${method} ${url}`).toBe(status);
        expect(reply.body.errors[0].code, `${method} ${url}`).toBe(code);
      }
      expect((await ctx.api.get('/api/accounts:count')).body.data).toBe(before);
    });

    it('concurrent firstOrCreate on a unique key yields one record', async () => {
      const replies = await Promise.all(Array.from({ length: 4 }, () => ctx.api.post('/api/accounts:firstOrCreate?filterKeys=email', { email: 'race@x' })));
      for (const reply of replies) expect([200, 201]).toContain(reply.status);
      expect(new Set(replies.map((reply) => reply.body.data.id)).size).toBe(1);
      expect((await ctx.api.get('/api/accounts:count?filter={"email":"race@x"}')).body.data).toBe(1);
    });
  });
}
