import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { MAX_BODY_DEPTH } from '../../src/http/body-parsers.js';
import { MAX_JSON_DEPTH } from '../../src/schema/field-types/json-type.js';
import { MAX_IN_VALUES } from '../../src/plan/bind-filter.js';
import { MAX_FILTER_TEXT } from '../../src/request/query-params.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { apiFor, TEST_ROOT, testConfig, type TestApi } from '../support/test-app.js';

/** Sends raw bytes and returns everything the server answered before closing (or 2 s). */
function rawRequest(port: number, text: string, destroyAfterWrite = false): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(text);
      if (destroyAfterWrite) setTimeout(() => socket.destroy(), 50);
    });
    let out = '';
    const timer = setTimeout(() => socket.destroy(), 2000);
    socket.on('data', (chunk) => (out += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

function parse(answer: string): { status: number; body: any } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
  const text = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status, body };
}

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

for (const dialect of DIALECTS) {
  describe(`HTTP edges on ${dialect}`, () => {
    let database: TestDatabase;
    let built: BuiltApp;
    let api: TestApi;
    let port: number;
    const logLines: string[] = [];
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      built = await buildApp(testConfig(database, { logLevel: 'info' }), { logStream: { write: (line) => void logLines.push(line) } });
      await built.app.listen({ port: 0, host: '127.0.0.1' });
      port = (built.app.server.address() as { port: number }).port;
      api = apiFor(built);
      await api.collection({ name: 'posts', fields: [{ name: 'title', type: 'string' }, { name: 'meta', type: 'json' }, { name: 'tags', type: 'belongsToMany', target: 'posts', through: 'post_links', foreignKey: 'fromId', otherKey: 'toId' }] });
    });
    afterAll(async () => {
      await built?.close();
      await database?.drop();
    });

    it.each([
      ['a bad request line', 'GARBAGE\r\n\r\n', 400, 'REQUEST_INVALID'],
      ['a bad header', 'GET /api/posts HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n', 400, 'REQUEST_INVALID'],
      ['no Host header', 'GET /api/posts HTTP/1.1\r\nConnection: close\r\n\r\n', 400, 'REQUEST_INVALID'],
      ['headers over 64 KiB', `GET /api/posts?x=${'a'.repeat(70_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
      ['an unknown method', 'QUERY /api/posts HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n', 405, 'METHOD_NOT_ALLOWED'],
      ['an unknown method with a body', 'QUERY /api/posts HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}', 405, 'METHOD_NOT_ALLOWED'],
      ['a UTF-16 body', 'POST /api/posts HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json; charset=utf-16\r\nContent-Length: 2\r\n\r\n{}', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ])('answers %s in the error envelope', async (_label, text, status, code) => {
      const answer = parse(await rawRequest(port, text));
      expect(answer.status).toBe(status);
      expect(answer.body?.errors?.[0]?.code).toBe(code);
    });

    it('fits a URL carrying a filter of the full 16 KiB limit', async () => {
      const values = Array.from({ length: MAX_IN_VALUES }, (_, i) => `v${String(i).padStart(11, '0')}`);
      const filter = JSON.stringify({ title: { $in: values } });
      expect(filter.length).toBeGreaterThan(14 * 1024);
      expect(filter.length).toBeLessThanOrEqual(MAX_FILTER_TEXT);
      const url = `/api/posts:list?filter=${encodeURIComponent(filter)}`;
      expect(url.length).toBeGreaterThan(16 * 1024);
      const token = (await api.post('/api/auth:signIn', { account: TEST_ROOT.email, password: TEST_ROOT.password })).body.data.token as string;
      const answer = parse(await rawRequest(port, `GET ${url} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`));
      expect(answer.status).toBe(200);
    });

    it('accepts a body in UTF-8 declared either way', async () => {
      for (const charset of ['utf-8', 'UTF8', '"utf-8"']) {
        const reply = await api.request('POST', '/api/posts', { title: 'é' }, { 'content-type': `application/json; charset=${charset}` });
        expect(reply.status, charset).toBe(201);
      }
    });

    it('refuses a null body with 400 BODY_INVALID instead of an empty update', async () => {
      const id = (await api.post('/api/posts', { title: 'kept' })).body.data.id;
      for (const [method, url] of [['PUT', `/api/posts/${id}`], ['POST', '/api/posts'], ['POST', `/api/posts:update/${id}`]] as const) {
        const reply = await api.request(method, url, 'null');
        expect(reply.status, `${method} ${url}`).toBe(400);
        expect(reply.body.errors[0].code).toBe('BODY_INVALID');
      }
      expect((await api.get(`/api/posts/${id}`)).body.data.title).toBe('kept');
    });

    it('refuses add, remove and toggle with {} but keeps set with {} as "no keys"', async () => {
      const id = (await api.post('/api/posts', { title: 'source' })).body.data.id;
      const other = (await api.post('/api/posts', { title: 'target' })).body.data.id;
      for (const action of ['add', 'remove', 'toggle']) {
        const reply = await api.post(`/api/posts/${id}/tags:${action}`, {});
        expect(reply.status, action).toBe(400);
        expect(reply.body.errors[0].code).toBe('BODY_INVALID');
      }
      expect((await api.post(`/api/posts/${id}/tags:add`, [other])).status).toBe(200);
      expect((await api.post(`/api/posts/${id}/tags:set`, {})).status).toBe(200);
      expect((await api.get(`/api/posts/${id}/tags`)).body.meta.count).toBe(0);
    });

    it('refuses JSON nested 20,000 deep with 400, not a 500 from a stack overflow', async () => {
      const text = `{"title":"deep","meta":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
      const reply = await api.request('POST', '/api/posts', text);
      expect(reply.status, reply.text.slice(0, 200)).toBe(400);
      expect(reply.body.errors[0].code).toBe('BODY_INVALID');
      expect((await api.request('POST', '/api/posts', { title: 'x', meta: nested(MAX_BODY_DEPTH) })).body.errors[0].code).toBe('BODY_INVALID');
    });

    it(`stores JSON up to ${MAX_JSON_DEPTH} levels and refuses deeper with 400 VALIDATION_FAILED`, async () => {
      const ok = await api.post('/api/posts', { title: 'ok', meta: nested(MAX_JSON_DEPTH) });
      expect(ok.status, ok.text).toBe(201);
      expect((await api.get(`/api/posts/${ok.body.data.id}`)).body.data.meta).toEqual(nested(MAX_JSON_DEPTH));
      const deep = await api.post('/api/posts', { title: 'deep', meta: nested(MAX_JSON_DEPTH + 1) });
      expect(deep.status).toBe(400);
      expect(deep.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'meta' });
    });

    it('logs a client that disconnects mid-body as an abort at info level, not as a database outage', async () => {
      logLines.length = 0;
      await rawRequest(port, 'POST /api/posts HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":"', true);
      // Wait for the abort's own line (bounded), not a fixed 200 ms: a loaded machine may log it later.
      const deadline = Date.now() + 10_000;
      while (!logLines.some((line) => line.includes('closed the connection')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const entries = logLines.map((line) => JSON.parse(line) as { level: number; msg?: string });
      expect(entries.filter((entry) => entry.level >= 50)).toEqual([]);
      expect(entries.some((entry) => entry.msg?.includes('closed the connection'))).toBe(true);
      expect(logLines.join('\n')).not.toContain('The database is not reachable');
    });
  });
}
