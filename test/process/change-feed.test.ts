import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openSse, type SseClient } from '../support/sse-client.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { killAll, startCorral } from './support.js';

afterEach(killAll);
afterAll(killAll);

/**
 * Two real Corral processes over one database: a write through A reaches a subscriber on B.
 * On PostgreSQL the poll is set to a minute, so only LISTEN/NOTIFY can wake B in time.
 */
for (const dialect of DIALECTS.filter((d) => d !== 'sqlite')) {
  describe(`change feed across two processes on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    afterAll(async () => {
      await killAll();
      await database?.drop();
    });

    it('a write on one node reaches a subscriber on the other', async () => {
      database = await createTestDatabase(dialect);
      const env = { DATABASE_URL: database.url, CORRAL_CHANGES_POLL_MS: dialect === 'postgres' ? '60000' : '100' };
      const [a, b] = await Promise.all([startCorral({ env }), startCorral({ env })]);
      const created = await a.request('POST', '/api/collections:create', { name: 'feed_items', fields: [{ name: 'title', type: 'string' }] });
      expect(created.status, created.text).toBe(201);
      // B learns the collection from the schema poll.
      const deadline = Date.now() + 5000;
      while ((await b.request('GET', '/api/feed_items:list')).status !== 200) {
        if (Date.now() > deadline) throw new Error('B never served feed_items');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const client = openSse(`${b.baseUrl}/api/feed_items:subscribe`, await b.authHeaders());
      try {
        expect(await client.status).toBe(200);
        const started = performance.now();
        for (let i = 0; i < 5; i++) expect((await a.request('POST', '/api/feed_items:create', { title: `t${i}` })).status).toBe(201);
        // Waits on the events, bounded far below the one-minute poll: only NOTIFY can be in time.
        await client.waitFor(5, 20_000);
        console.log(`[${dialect}] 5 events written on A reached B's subscriber after ${(performance.now() - started).toFixed(0)} ms`);
        expect(client.events.map((event) => event.data.data.title)).toEqual(['t0', 't1', 't2', 't3', 't4']);
        const listed = await b.request('GET', '/api/changes:list?collection=feed_items');
        expect(listed.body.data.map((event: { id: number }) => event.id)).toEqual(client.events.map((event) => event.id));
      } finally {
        client.close();
      }
    });
  });
}

/**
 * CORRAL_WORKERS=2: the workers are nodes of one database, so a write served by one worker
 * reaches subscribers on the other through the same mechanism (NOTIFY on PostgreSQL, the
 * poll elsewhere). Subscribers are opened until both workers serve some.
 */
for (const dialect of DIALECTS) {
  describe(`change feed across workers on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    afterAll(async () => {
      await killAll();
      await database?.drop();
    });

    it('a write served by one worker reaches subscribers on both', async () => {
      database = await createTestDatabase(dialect);
      const proc = await startCorral({ env: { DATABASE_URL: database.url, CORRAL_WORKERS: '2', CORRAL_CHANGES_POLL_MS: '100' } });
      const created = await proc.request('POST', '/api/collections:create', { name: 'feed_items', fields: [{ name: 'title', type: 'string' }] });
      expect(created.status, created.text).toBe(201);
      const clients: SseClient[] = [];
      const workers = new Set<string>();
      try {
        // Worker 2 starts after worker 1 answers: keep opening until both serve one.
        const deadline = Date.now() + 20_000;
        while ((workers.size < 2 || clients.length < 4) && Date.now() < deadline) {
          const client = openSse(`${proc.baseUrl}/api/feed_items:subscribe`, { ...(await proc.authHeaders()), connection: 'close' });
          clients.push(client);
          expect(await client.status).toBe(200);
          const worker = await client.worker;
          if (workers.has(worker)) await new Promise((resolve) => setTimeout(resolve, 100));
          workers.add(worker);
        }
        expect(workers.size, 'both workers serve a subscriber').toBe(2);
        // Each write on a new connection: the primary hands them to the workers in turn.
        const auth = await proc.authHeaders();
        for (let i = 0; i < 6; i++) {
          const reply = await fetch(`${proc.baseUrl}/api/feed_items:create`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', connection: 'close' }, body: JSON.stringify({ title: `t${i}` }) });
          expect(reply.status).toBe(201);
        }
        for (const client of clients) {
          // Usually well under a second; the bound only has to be finite on a loaded machine.
          await client.waitFor(6, 20_000);
          expect(client.events.map((event) => event.data.data.title)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
        }
      } finally {
        for (const client of clients) client.close();
      }
    });
  });
}
