import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createTestDatabase, DIALECTS } from '../support/test-database.js';
import { apiFor, testConfig, useDialectApp, type TestApi } from '../support/test-app.js';

/** A receiver on 127.0.0.1 that answers with `status()` and keeps what it was sent. */
interface Received {
  body: string;
  headers: Record<string, string | string[] | undefined>;
}
async function receiver(status: () => number): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      received.push({ body, headers: request.headers });
      response.statusCode = status();
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function until(probe: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const SECRET = 'a-long-secret';
const FAST = { webhookAllowPrivate: true, webhookRetryBaseMs: 50, changesPollMs: 50 };

for (const dialect of DIALECTS) {
  describe(`webhooks on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, FAST);
    let api: TestApi;
    const closers: (() => Promise<void>)[] = [];

    beforeAll(async () => {
      api = ctx.api;
      await api.collection({ name: 'notes', fields: [{ name: 'text', type: 'string' }] });
      await api.collection({ name: 'other', fields: [{ name: 'text', type: 'string' }] });
    });
    afterAll(async () => {
      for (const close of closers) await close();
    });

    const hook = async (url: string, extra: Record<string, unknown> = {}): Promise<number> => {
      const reply = await api.post('/api/webhooks:create', { url, collections: ['notes'], secret: SECRET, ...extra });
      expect(reply.status, reply.text).toBe(201);
      expect(reply.body.data).not.toHaveProperty('secret');
      return reply.body.data.id;
    };

    it('POSTs each matching event signed with the secret, and never returns the secret', async () => {
      const target = await receiver(() => 200);
      closers.push(target.close);
      const id = await hook(target.url, { actions: ['create'] });
      const note = (await api.post('/api/notes:create', { text: 'hello' })).body.data.id;
      await api.put(`/api/notes/${note}`, { text: 'changed' });
      await api.post('/api/other:create', { text: 'ignored' });
      // Deliveries go out in event order: once a later matching event (the marker) has arrived,
      // the update and the other collection's create had their turn and were not sent.
      await api.post('/api/notes:create', { text: 'marker' });
      await until(() => target.received.some((entry) => entry.body.includes('"marker"')), 'the marker');
      expect(target.received.map((entry) => JSON.parse(entry.body).data.text)).toEqual(['hello', 'marker']);
      const [first] = target.received;
      const event = JSON.parse(first!.body);
      expect(event).toMatchObject({ collection: 'notes', action: 'create', key: note, data: { text: 'hello' } });
      expect(first!.headers['x-corral-event-id']).toBe(String(event.id));
      expect(first!.headers['x-corral-signature']).toBe(`sha256=${createHmac('sha256', SECRET).update(first!.body).digest('hex')}`);
      const listed = await api.get('/api/webhooks:list');
      expect(listed.body.data.every((item: object) => !('secret' in item))).toBe(true);
      expect((await api.get(`/api/webhooks/${id}`)).body.data).toMatchObject({ id, url: target.url, collections: ['notes'], actions: ['create'], active: true });
      await until(async () => (await api.get(`/api/webhooks/${id}/deliveries:list`)).body.data[0]?.status === 'delivered', 'the delivery row');
      await api.put(`/api/webhooks/${id}`, { active: false });
    });

    it('retries a failing receiver with backoff, in event order', async () => {
      let failures = 2;
      const target = await receiver(() => (failures-- > 0 ? 500 : 200));
      closers.push(target.close);
      const id = await hook(target.url);
      await api.post('/api/notes:create', { text: 'a' });
      await api.post('/api/notes:create', { text: 'b' });
      await until(() => target.received.length >= 4, 'two failures and two deliveries');
      const texts = target.received.map((entry) => JSON.parse(entry.body).data.text);
      expect(texts).toEqual(['a', 'a', 'a', 'b']);
      await until(async () => (await api.get(`/api/webhooks/${id}/deliveries:list`)).body.data.every((item: { status: string }) => item.status === 'delivered'), 'delivered rows');
      const rows = (await api.get(`/api/webhooks/${id}/deliveries:list`)).body.data;
      expect(rows.map((row: { attempts: number }) => row.attempts)).toEqual([3, 1]);
      await api.put(`/api/webhooks/${id}`, { active: false });
    });

    it('retry sends a delivery again: a failed one with fresh attempts, a delivered one once more; unknown ones are 404', async () => {
      let up = false;
      const target = await receiver(() => (up ? 200 : 500));
      closers.push(target.close);
      // Its own database and one node whose backoff is an hour: only a retry gets a second attempt.
      const database = await createTestDatabase(dialect);
      const node = await buildApp(testConfig(database, { ...FAST, webhookRetryBaseMs: 3_600_000 }));
      const root = apiFor(node);
      try {
        await root.collection({ name: 'notes', fields: [{ name: 'text', type: 'string' }] });
        const id = (await root.post('/api/webhooks:create', { url: target.url, collections: ['notes'], secret: SECRET })).body.data.id;
        await root.post('/api/notes:create', { text: 'again' });
        await until(async () => (await root.get(`/api/webhooks/${id}/deliveries:list`)).body.data[0]?.attempts === 1, 'the first failed attempt');
        const [delivery] = (await root.get(`/api/webhooks/${id}/deliveries:list`)).body.data;
        expect(delivery).toMatchObject({ status: 'pending', attempts: 1, lastError: 'the receiver answered 500' });
        up = true;
        const retried = await root.post(`/api/webhooks/${id}/deliveries:retry/${delivery.id}`);
        expect(retried.status, retried.text).toBe(200);
        expect(retried.body.data).toMatchObject({ id: delivery.id, status: 'pending', attempts: 0 });
        await until(async () => (await root.get(`/api/webhooks/${id}/deliveries:list`)).body.data[0]?.status === 'delivered', 'the retried delivery');
        expect(target.received.map((entry) => JSON.parse(entry.body).data.text)).toEqual(['again', 'again']);
        // A delivered one is sent once more (redelivery), by the query form too.
        expect((await root.post(`/api/webhooks/${id}/deliveries:retry?filterByTk=${delivery.id}`)).status).toBe(200);
        await until(() => target.received.length === 3, 'the redelivery');
        expect(JSON.parse(target.received[2]!.body).id).toBe(JSON.parse(target.received[0]!.body).id);
        expect((await root.post(`/api/webhooks/${id}/deliveries:retry/987654`)).status).toBe(404);
        expect((await root.post(`/api/webhooks/987654/deliveries:retry/${delivery.id}`)).status).toBe(404);
        expect((await root.get(`/api/webhooks/${id}/deliveries:retry/${delivery.id}`)).status).toBe(405);
      } finally {
        await node.close();
        await database.drop();
      }
    });

    it('redelivers after a restart mid-retry, and two nodes deliver each event once', async () => {
      let up = false;
      const target = await receiver(() => (up ? 200 : 503));
      closers.push(target.close);
      const config = testConfig(ctx.database, { ...FAST, webhookRetryBaseMs: 100 });
      const first = await buildApp(config);
      const id = (await apiFor(first).post('/api/webhooks:create', { url: target.url, collections: ['*'], secret: SECRET })).body.data.id;
      await apiFor(first).post('/api/notes:create', { text: 'survives' });
      await until(() => target.received.length >= 1, 'a failed attempt');
      await first.close();
      const count = target.received.length;
      up = true;
      const second = await buildApp(config);
      const third = await buildApp(config);
      try {
        await until(() => target.received.length > count, 'the redelivery');
        for (let i = 0; i < 10; i++) await apiFor(i % 2 === 0 ? second : third).post('/api/notes:create', { text: `n${i}` });
        await until(() => target.received.filter((entry) => entry.body.includes('"n9"')).length >= 1, 'the last event');
        // Drained when every delivery row says delivered: only the lease holder sends, one
        // delivery at a time, and marks it before taking the next, so nothing more is in flight.
        await until(async () => {
          const rows = (await apiFor(second).get(`/api/webhooks/${id}/deliveries:list?pageSize=100`)).body.data as { status: string }[];
          return rows.length === 11 && rows.every((row) => row.status === 'delivered');
        }, 'every delivery row marked delivered');
        const ids = target.received.slice(count).map((entry) => JSON.parse(entry.body).id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toEqual([...ids].sort((a, b) => a - b));
        expect(ids).toHaveLength(11);
        const rows = (await apiFor(second).get(`/api/webhooks/${id}/deliveries:list?pageSize=100`)).body.data;
        expect(rows).toHaveLength(11);
        expect(rows[0].attempts).toBeGreaterThan(1);
      } finally {
        await apiFor(second).put(`/api/webhooks/${id}`, { active: false });
        await second.close();
        await third.close();
      }
    });

    it('refuses private, loopback and link-local targets unless allowed', async () => {
      const strict = await buildApp(testConfig(ctx.database, { changesPollMs: 50 }));
      try {
        const strictApi = apiFor(strict);
        for (const url of ['http://127.0.0.1:9/x', 'http://10.1.2.3/x', 'http://169.254.169.254/latest', 'http://[::1]/x', 'http://localhost/x', 'ftp://example.com/x']) {
          const reply = await strictApi.post('/api/webhooks:create', { url, collections: ['notes'], secret: SECRET });
          expect(reply.status, url).toBe(400);
          expect(reply.body.errors[0].code).toBe('WEBHOOK_URL_FORBIDDEN');
        }
      } finally {
        await strict.close();
      }
    });

    it('refuses webhook targets in reserved ranges, on create and update, even with private targets allowed', async () => {
      const reserved = ['http://192.0.2.1/', 'http://[::127.0.0.1]/', 'http://[64:ff9b::7f00:1]/', 'http://[2002:7f00:1::]/'];
      const strict = await buildApp(testConfig(ctx.database, { changesPollMs: 50 }));
      try {
        const strictApi = apiFor(strict);
        const existing = (await api.post('/api/webhooks:create', { url: 'http://8.8.8.8/hook', collections: ['notes'], secret: SECRET, active: false })).body.data.id;
        for (const url of reserved) {
          for (const [name, client] of [['strict', strictApi], ['private allowed', api]] as const) {
            const created = await client.post('/api/webhooks:create', { url, collections: ['notes'], secret: SECRET });
            // Documentation addresses are refused even with private targets allowed; the others are private forms.
            const refusedHere = name === 'strict' || url.includes('192.0.2.1');
            expect(created.status, `${name} create ${url}`).toBe(refusedHere ? 400 : 201);
            if (!refusedHere) {
              await client.put(`/api/webhooks/${created.body.data.id}`, { active: false });
              continue;
            }
            expect(created.body.errors[0]).toMatchObject({ code: 'WEBHOOK_URL_FORBIDDEN', field: 'url' });
            const updated = await client.put(`/api/webhooks/${existing}`, { url });
            expect(updated.status, `${name} update ${url}`).toBe(400);
            expect(updated.body.errors[0].code).toBe('WEBHOOK_URL_FORBIDDEN');
          }
        }
        expect((await api.get(`/api/webhooks/${existing}`)).body.data.url).toBe('http://8.8.8.8/hook');
      } finally {
        await strict.close();
      }
    });
  });
}
