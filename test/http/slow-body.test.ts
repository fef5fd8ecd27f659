import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { apiFor, TEST_ROOT, testConfig } from '../support/test-app.js';

/** Tiny, so the test waits on Node's own timer for a fraction of a second. */
const BODY_TIMEOUT_MS = 200;
/** Far above the timeout and its checking interval: reaching it means the server never cut the request. */
const GIVE_UP_MS = 10_000;

/** Writes `text`, then sends nothing more; resolves with what the server answered and who closed. */
function stall(port: number, text: string): Promise<{ answer: string; closedByServer: boolean }> {
  return new Promise((resolve) => {
    let answer = '';
    let closedByServer = true;
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    const timer = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, GIVE_UP_MS);
    socket.on('data', (chunk) => (answer += chunk.toString('utf8')));
    socket.on('error', () => undefined); // a reset is one way the server may close; `close` follows
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closedByServer });
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`request timeouts on ${dialect}`, () => {
    let database: TestDatabase;
    let built: BuiltApp;
    let port: number;
    let token: string;
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      built = await buildApp(testConfig(database, { bodyTimeoutMs: BODY_TIMEOUT_MS }));
      await built.app.listen({ port: 0, host: '127.0.0.1' });
      port = (built.app.server.address() as { port: number }).port;
      const api = apiFor(built);
      await api.collection({ name: 'posts', fields: [{ name: 'title', type: 'string' }] });
      token = (await api.post('/api/auth:signIn', { account: TEST_ROOT.email, password: TEST_ROOT.password })).body.data.token as string;
    });
    afterAll(async () => {
      await built?.close();
      await database?.drop();
    });

    const head = (length: number) => `POST /api/posts HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

    it.each([
      ['a request body that trickles in', () => `${head(64)}{"title":"never fin`],
      ['a request head that trickles in', () => 'POST /api/posts HTTP/1.1\r\nHost: localhost\r\nContent-Ty'],
    ])('%s is cut after the body timeout with 408 REQUEST_TIMEOUT', async (_what, text) => {
      // The 408 and its code say the body timeout cut it (how long it took is not asserted).
      const { answer, closedByServer } = await stall(port, text());
      expect(closedByServer).toBe(true);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).errors[0].code).toBe('REQUEST_TIMEOUT');
    });

    it('keeps serving a whole request sent in time after cutting a slow one', async () => {
      await stall(port, `${head(64)}{"title":`);
      const body = JSON.stringify({ title: 'in time' });
      const { answer } = await stall(port, `${head(Buffer.byteLength(body)).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n')}${body}`);
      expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    });
  });
}
