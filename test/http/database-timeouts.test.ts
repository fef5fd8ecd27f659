import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { READYZ_TIMEOUT_MS } from '../../src/http/health-routes.js';
import { toApiError } from '../../src/http/error-body.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { apiFor, testConfig, type TestApi } from '../support/test-app.js';
import { startPauseProxy, type PauseProxy } from '../support/pause-proxy.js';

const STATEMENT_TIMEOUT_MS = 400;
const CONNECT_TIMEOUT_MS = 400;

const DIALECTS_HERE = DIALECTS.filter((name) => name !== 'sqlite');

// describe.runIf keeps one (skipped) suite in the file when no dialect applies, so vitest does not fail it.
describe.runIf(DIALECTS_HERE.length > 0)('database timeouts (PostgreSQL and MariaDB only)', () => {
  for (const dialect of DIALECTS_HERE) {
    describe(`database timeouts on ${dialect}`, () => {
      let database: TestDatabase;
      let proxy: PauseProxy;
      let built: BuiltApp;
      let api: TestApi;
      beforeAll(async () => {
        database = await createTestDatabase(dialect);
        const url = new URL(database.url);
        proxy = await startPauseProxy(url.hostname, Number(url.port || (dialect === 'postgres' ? 5432 : 3306)));
        url.port = String(proxy.port);
        const config = { ...database.config, url: url.toString() } as TestDatabase['config'];
        built = await buildApp(testConfig({ ...database, config }, { dbConnectTimeoutMs: CONNECT_TIMEOUT_MS, dbStatementTimeoutMs: STATEMENT_TIMEOUT_MS }));
        api = apiFor(built);
        await api.collection({ name: 'items', fields: [{ name: 'n', type: 'integer' }] });
      });
      afterAll(async () => {
        proxy?.thaw();
        await built?.close();
        await proxy?.close();
        await database?.drop();
      });

      it('ends a statement that runs past CORRAL_DB_STATEMENT_TIMEOUT_MS as 503 DATABASE_UNAVAILABLE', async () => {
        // 30 s of sleep against a 400 ms timeout: a finished sleep answers a row, a timed-out one
        // an error, so the error itself says the timeout ended it (no clock is read).
        const slow = dialect === 'postgres' ? sql`select pg_sleep(30)` : sql`select sleep(30)`;
        const error = await slow.execute(built.database.db).then(() => undefined, (caught: unknown) => caught);
        expect(error).toBeDefined();
        expect(toApiError(error, dialect, 'r1').code).toBe('DATABASE_UNAVAILABLE');
        // The pool is still usable afterwards.
        expect((await api.get('/api/items:list')).status).toBe(200);
      });

      // PostgreSQL only: node-postgres reports messages it did not expect as an 'error' event,
      // which crashed the process when it hit a client in use. (A duplicating network is not a
      // real condition; mysql2 cannot even tell, it reads the duplicate as the next answer.)
      it.runIf(dialect === 'postgres')('survives a connection that breaks the protocol: the request answers, the connection is dropped, the next requests succeed', async () => {
        // Byte-duplicated answers make the driver see messages it did not expect (or the server
        // a malformed stream): an 'error' on a client in use must not crash the process.
        const headers = await api.authHeaders();
        for (let round = 0; round < 3; round++) {
          proxy.garbleNext();
          // Not through the contract check: a garbled stream may answer anything but a crash.
          const reply = await built.app.inject({ method: 'GET', url: '/api/items:list', headers });
          expect(reply.statusCode).toBeLessThan(600);
        }
        // A duplicate may still be read as the next statement's answer on that connection (the
        // driver cannot tell): the test asks only that sound answers come back, and no crash.
        let ok = false;
        for (let attempt = 0; attempt < 40 && !ok; attempt++) {
          const reply = await built.app.inject({ method: 'GET', url: '/api/items:list', headers });
          const body = reply.statusCode === 200 ? (JSON.parse(reply.body) as { data: Array<{ id: unknown }> }) : undefined;
          ok = body !== undefined && body.data.every((item) => Number.isInteger(item.id));
          if (!ok) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(ok).toBe(true);
      });

      it('answers 503 within the timeouts while the database is frozen, /readyz within 2 s, then recovers', async () => {
        expect((await api.get('/readyz')).status).toBe(200);
        proxy.freeze();
        try {
          // Every answer below arrives while the database is still frozen (it thaws only in `finally`):
          // the timeouts answered, not the database. No clock is read.
          const ready = await api.get('/readyz');
          expect(READYZ_TIMEOUT_MS).toBeLessThan(2000);
          expect(ready.status).toBe(503);
          expect(ready.body.errors[0].code).toBe('DATABASE_UNAVAILABLE');
          const replies = await Promise.all([api.get('/api/items:list'), api.post('/api/items:create', { n: 1 })]);
          for (const reply of replies) {
            expect(reply.status, reply.text).toBe(503);
            expect(reply.body.errors[0].code).toBe('DATABASE_UNAVAILABLE');
          }
        } finally {
          proxy.thaw();
        }
        let recovered = false;
        for (let attempt = 0; attempt < 40 && !recovered; attempt++) {
          recovered = (await api.get('/api/items:list')).status === 200;
          if (!recovered) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(recovered).toBe(true);
        expect((await api.get('/readyz')).status).toBe(200);
      });
    });
  }
});
