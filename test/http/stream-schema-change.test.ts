import { request as httpRequest, type IncomingMessage } from 'node:http';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { SCHEMA_POLL_MS_MAX } from '../../src/config/load-config.js';
import { STREAM_CHUNK_ROWS } from '../../src/store/read-rows.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { apiFor, testConfig, type TestApi } from '../support/test-app.js';

/**
 * Rows big enough that the first batch (STREAM_CHUNK_ROWS rows, about 20 MB) cannot fit in the
 * socket buffers: a client that stops reading holds the server inside the first batch, before
 * the next batch's statement, deterministically.
 */
const ROWS = STREAM_CHUNK_ROWS + 20;
const BLOB = 'x'.repeat(40_000);
const PER_REQUEST = 20;

/** A GET over a real socket whose reading stops after the first chunk until `resume`. */
function slowGet(port: number, path: string, token: string): { started: Promise<IncomingMessage>; resume(): void; done: Promise<{ complete: boolean; body: string }> } {
  let response: IncomingMessage | undefined;
  let resolveStarted!: (value: IncomingMessage) => void;
  const started = new Promise<IncomingMessage>((resolve) => (resolveStarted = resolve));
  const done = new Promise<{ complete: boolean; body: string }>((resolve) => {
    const chunks: Buffer[] = [];
    const request = httpRequest({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
      response = res;
      res.once('data', () => {
        res.pause();
        resolveStarted(res);
      });
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ complete: true, body: Buffer.concat(chunks).toString('utf8') }));
      // An answer cut before the chunked body's end: Node reports it as an aborted response.
      res.on('error', () => resolve({ complete: false, body: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', () => resolve({ complete: false, body: Buffer.concat(chunks).toString('utf8') }));
    request.end();
  });
  return { started, resume: () => response?.resume(), done };
}

/** Whether a DDL statement is waiting for the lock a streamed read holds (PostgreSQL, MySQL). */
async function ddlWaiting(built: BuiltApp): Promise<boolean> {
  const { db, dialect } = built.database;
  if (dialect === 'postgres') {
    const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike 'alter table%'`.execute(db);
    return Number(rows[0]?.n) > 0;
  }
  if (dialect === 'mysql') {
    const { rows } = await sql<{ n: string }>`select count(*) as n from information_schema.processlist where state like 'Waiting for table metadata lock'`.execute(db);
    return Number(rows[0]?.n) > 0;
  }
  return false;
}

for (const dialect of DIALECTS) {
  describe(`a streamed list while another node changes the schema, on ${dialect}`, () => {
    let database: TestDatabase;
    let nodeA: BuiltApp;
    let nodeB: BuiltApp;
    let a: TestApi;
    let b: TestApi;
    let port: number;
    let token: string;
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      nodeA = await buildApp(testConfig(database, { schemaPollMs: SCHEMA_POLL_MS_MAX }));
      nodeA.schema.stopPolling();
      nodeB = await buildApp(testConfig(database));
      await nodeA.app.listen({ port: 0, host: '127.0.0.1' });
      port = (nodeA.app.server.address() as { port: number }).port;
      a = apiFor(nodeA);
      b = apiFor(nodeB);
      token = (await a.authHeaders()).authorization!.slice('Bearer '.length);
      await a.collection({ name: 'owners', fields: [{ name: 'name', type: 'string' }] });
      await a.collection({ name: 'items', fields: [{ name: 'label', type: 'string' }, { name: 'blob', type: 'text' }, { name: 'owner', type: 'belongsTo', target: 'owners' }] });
      const owner = (await a.post('/api/owners:create', { name: 'ann' })).body.data.id;
      for (let made = 0; made < ROWS; made += PER_REQUEST) {
        const batch = Array.from({ length: Math.min(PER_REQUEST, ROWS - made) }, (_, i) => ({ label: `item ${made + i}`, blob: BLOB, owner }));
        const reply = await a.post('/api/items:create', batch);
        expect(reply.status, reply.text).toBe(201);
      }
      await nodeB.schema.refresh();
    }, 120_000);
    afterAll(async () => {
      await nodeA?.close();
      await nodeB?.close();
      await database?.drop();
    });

    it.each([
      ['renames', 'with appends (read a batch at a time)', 'label', 'title', '&appends=owner'],
      ['renames', 'without appends (a cursor where the dialect has one)', 'title', 'name', ''],
      ['drops', 'with appends (read a batch at a time)', 'name', undefined, '&appends=owner'],
    ])('a streamed list finishes from the schema it started with while another node %s the field, %s', async (_change, _what, from, to, appends) => {
      const stream = slowGet(port, `/api/items:list?paginate=false&sort=id&fields=id,blob,${from}${appends}`, token);
      const response = await stream.started;
      expect(response.statusCode).toBe(200);
      // The other node changes the field while this answer is held inside its first batch.
      const changed = to === undefined ? b.del(`/api/collections/items/fields/${from}`) : b.put(`/api/collections/items/fields/${from}`, { name: to });
      let settled = false;
      void changed.then(() => (settled = true));
      // SQLite changes it at once (the stream reads its own snapshot); PostgreSQL and MySQL make
      // the change wait for the stream's lock. Either way the change is under way now.
      const deadline = Date.now() + 20_000;
      while (!settled && !(await ddlWaiting(nodeB))) {
        if (Date.now() > deadline) throw new Error('the schema change neither finished nor waited for the stream');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      stream.resume();
      const { complete, body } = await stream.done;
      expect(complete).toBe(true);
      const items = JSON.parse(body).data as Record<string, unknown>[];
      expect(items).toHaveLength(ROWS);
      expect(items.every((item, i) => item[from] === `item ${i}` && item.blob === BLOB && (to === undefined || !(to in item)))).toBe(true);
      expect((await changed).status).toBe(200);
      // The next answer (a node that learns of the change through the moved statement) follows the new schema.
      const after = await a.get(`/api/items:list?pageSize=1&sort=id&except=blob`);
      expect(after.status, after.text).toBe(200);
      expect(after.body.data[0]).not.toHaveProperty(from);
      if (to !== undefined) expect(after.body.data[0][to]).toBe('item 0');
    });
  });
}
