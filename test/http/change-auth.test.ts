import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseClient } from '../support/sse-client.js';
import { apiFor, useDialectApp, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * The change feed under real roles (auth on): a subscriber and a changes:list reader see only
 * the events of rows their role may view, only the fields it may read; a role without `view`
 * gets 403; webhooks belong to root.
 */
const ROLES = [
  {
    name: 'lowReader',
    strategy: { actions: [] },
    resources: [{ name: 'posts', actions: [{ name: 'view', filter: { views: { $lt: 100 } }, fields: ['id', 'title'] }] }],
  },
  { name: 'nobody', strategy: { actions: [] } },
];

interface FeedEvent {
  collection: string;
  data: Record<string, unknown>;
}

for (const dialect of DIALECTS) {
  describe(`change feed under roles on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { changesPollMs: 50 });
    const open: SseClient[] = [];
    let base: string;
    let low: TestApi;
    let nobody: TestApi;

    beforeAll(async () => {
      const root = ctx.api;
      await ctx.built.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(ctx.built.app.server.address() as AddressInfo).port}`;
      await root.collection({ name: 'posts', fields: [{ name: 'title', type: 'string' }, { name: 'views', type: 'integer' }] });
      await root.collection({ name: 'secrets', fields: [{ name: 'name', type: 'string' }] });
      for (const role of ROLES) expect((await root.post('/api/roles:create', role)).status).toBe(201);
      for (const name of ['lowReader', 'nobody']) {
        const created = await root.post('/api/users:create', { email: `${name}@corral.test`, password: `${name}-password`, roles: [name] });
        expect(created.status, created.text).toBe(201);
      }
      low = apiFor(ctx.built, { account: 'lowReader@corral.test', password: 'lowReader-password' });
      nobody = apiFor(ctx.built, { account: 'nobody@corral.test', password: 'nobody-password' });
    });

    afterAll(() => {
      for (const client of open) client.close();
    });

    it('a subscriber gets only the rows and fields its role may view; a role without view gets 403', async () => {
      const lowClient = openSse(`${base}/api/posts:subscribe`, await low.authHeaders());
      const rootClient = openSse(`${base}/api/posts:subscribe`, await ctx.api.authHeaders());
      const denied = openSse(`${base}/api/posts:subscribe`, await nobody.authHeaders());
      open.push(lowClient, rootClient, denied);
      expect(await lowClient.status).toBe(200);
      expect(await rootClient.status).toBe(200);
      expect(await denied.status).toBe(403);
      for (const [title, views] of [['low', 1], ['high', 500], ['low2', 2]] as const) {
        expect((await ctx.api.post('/api/posts:create', { title, views })).status).toBe(201);
      }
      await rootClient.waitFor(3, 20_000);
      await lowClient.waitFor(2, 20_000);
      const seen = lowClient.events.map((event) => (event.data as FeedEvent).data);
      expect(seen.map((data) => data.title)).toEqual(['low', 'low2']);
      for (const data of seen) expect(Object.keys(data).sort()).toEqual(['id', 'title']);
    });

    it('changes:list shows a role only the collections and rows it may view', async () => {
      expect((await ctx.api.post('/api/secrets:create', { name: 'hidden' })).status).toBe(201);
      expect((await ctx.api.post('/api/posts:create', { title: 'low3', views: 3 })).status).toBe(201);
      expect((await ctx.api.post('/api/posts:create', { title: 'high2', views: 900 })).status).toBe(201);
      const all = await low.get('/api/changes:list?after=0&pageSize=200');
      expect(all.status, all.text).toBe(200);
      const events = all.body.data as FeedEvent[];
      expect(new Set(events.map((event) => event.collection))).toEqual(new Set(['posts']));
      expect(events.map((event) => event.data.title)).toEqual(['low', 'low2', 'low3']);
      for (const event of events) expect(Object.keys(event.data).sort()).toEqual(['id', 'title']);
      // Root sees every collection's events, users and roles included.
      const rootEvents = (await ctx.api.get('/api/changes:list?after=0&pageSize=200')).body.data as FeedEvent[];
      expect(rootEvents.some((event) => event.collection === 'secrets')).toBe(true);
      expect(rootEvents.filter((event) => event.collection === 'posts').map((event) => event.data.title)).toEqual(['low', 'high', 'low2', 'low3', 'high2']);
    });

    it('webhooks are for root only', async () => {
      expect((await ctx.api.get('/api/webhooks:list')).status).toBe(200);
      const reply = await low.get('/api/webhooks:list');
      expect(reply.status, reply.text).toBe(403);
      expect(reply.body.errors[0].code).toBe('FORBIDDEN');
      expect((await low.post('/api/webhooks:create', { url: 'https://example.com/hook', collections: ['posts'] })).status).toBe(403);
    });
  });
}
