import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

for (const dialect of DIALECTS) {
  describe(`safety rails on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it('runs a catastrophic pattern in linear time (30 and 255 characters answer at once)', async () => {
      await ctx.api.collection({ name: 'codes', fields: [{ name: 'code', type: 'string', pattern: '^(a+)+$' }] });
      for (const length of [30, 255]) {
        // CPU time of this process (the app runs in it), not wall time: a loaded machine does not
        // inflate it, and backtracking over 255 characters would burn it for ages.
        const started = process.cpuUsage();
        const reply = await ctx.api.post('/api/codes:create', { code: `${'a'.repeat(length - 1)}b` });
        const used = process.cpuUsage(started);
        expect((used.user + used.system) / 1000).toBeLessThan(1000);
        expect(reply.status).toBe(400);
        expect(reply.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'code' });
      }
      expect((await ctx.api.post('/api/codes:create', { code: 'aaaa' })).status).toBe(201);
    });

    it('refuses a pattern RE2 cannot run (backreference, lookahead) with 400 SCHEMA_INVALID', async () => {
      for (const pattern of ['^(a)\\1$', '^(?=a)a$']) {
        const reply = await ctx.api.post('/api/collections:create', { name: 'refs', fields: [{ name: 'code', type: 'string', pattern }] });
        expect(reply.status, pattern).toBe(400);
        expect(reply.body.errors[0].code).toBe('SCHEMA_INVALID');
      }
    });

    it.each([
      ['a plain id', 'abc-123.X:y_z', true],
      ['128 characters', 'a'.repeat(128), true],
      ['129 characters', 'a'.repeat(129), false],
      ['8000 characters', 'x'.repeat(8000), false],
      ['markup', '<script>alert(1)</script>', false],
      ['spaces', 'a b', false],
    ])('keeps a client x-request-id only when it is plain: %s', async (_label, id, kept) => {
      const reply = await ctx.api.request('GET', '/api/collections', undefined, { 'x-request-id': id });
      expect(reply.status).toBe(200);
      const echoed = String(reply.headers['x-request-id']);
      if (kept) expect(echoed).toBe(id);
      else expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
    });
  });
}
