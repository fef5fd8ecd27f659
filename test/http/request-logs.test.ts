import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import type { LogLevel } from '../../src/config/config.js';
import { apiFor, testConfig, type TestApi } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

/** Log lines of one app, parsed. */
function parsed(lines: string[]): Array<Record<string, unknown>> {
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

for (const dialect of DIALECTS) {
  // Above `info` the per-request logger is made only when something is logged (request-logger.ts):
  // what is written must be the same as with Fastify's own child logger.
  describe.each<[LogLevel, boolean]>([
    ['warn', false],
    ['info', true],
  ])(`request logs on ${dialect} at level %s`, (level, logsRequests) => {
    let database: TestDatabase;
    let built: BuiltApp;
    let api: TestApi;
    const lines: string[] = [];
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      // Background loops (schema, users, change feed, webhooks) a minute apart: once the database is
      // closed below, their own error lines (no request id) would race the request's on a slow machine.
      built = await buildApp(testConfig(database, { logLevel: level, schemaPollMs: 60_000, changesPollMs: 60_000 }), { logStream: { write: (line) => void lines.push(line) } });
      api = apiFor(built);
      await api.collection({ name: 'notes', fields: [{ name: 'text', type: 'string' }] });
    });
    afterAll(async () => {
      await built?.close();
      await database?.drop();
    });

    it(`writes ${logsRequests ? 'a line per request' : 'nothing'} for a request that succeeds`, async () => {
      lines.length = 0;
      const reply = await api.request('GET', '/api/notes:list', undefined, { 'x-request-id': 'quiet-1' });
      expect(reply.status).toBe(200);
      const mine = parsed(lines).filter((line) => line.reqId === 'quiet-1');
      expect(mine.map((line) => line.msg)).toEqual(logsRequests ? ['request completed'] : []);
    });

    it.runIf(logsRequests)('writes method, URL without query values, status, duration and the error code in that line', async () => {
      lines.length = 0;
      const reply = await api.request('GET', '/api/notes:list?filter=%7B%22text%22%3A%22secret%20words%22%7D&ticket=abc.def&page=x', undefined, { 'x-request-id': 'line-1' });
      expect(reply.status).toBe(400);
      const mine = parsed(lines).filter((line) => line.reqId === 'line-1');
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ level: 30, msg: 'request completed', method: 'GET', url: '/api/notes:list?filter&ticket&page', statusCode: 400, code: 'PARAM_INVALID' });
      expect(typeof mine[0]!.ms).toBe('number');
      expect(lines.join('\n')).not.toMatch(/secret|abc\.def/);
    });

    it('writes a failing request at error level with its request id', async () => {
      lines.length = 0;
      await built.database.close();
      const reply = await api.request('GET', '/api/notes:list', undefined, { 'x-request-id': 'broken-1' });
      expect(reply.status).toBeGreaterThanOrEqual(500);
      const errors = parsed(lines).filter((line) => line.level === 50);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.filter((line) => line.reqId !== 'broken-1'), 'error lines without the request id').toEqual([]);
    });
  });
}
