import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';
import { openSse, type SseClient } from '../support/sse-client.js';
import { eventsAfter as eventsAfterOf, type ChangeEvent } from '../support/change-event.js';

/**
 * The lean write path: a flat item is inserted without the nested-write steps, items are
 * decoded without a read unit when nothing is appended, and (PostgreSQL) a node with no
 * subscriber only publishes its events, reading the feed position when a subscriber comes.
 * Answers and events must be exactly those of the general path.
 */
for (const dialect of DIALECTS) {
  describe(`write path on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { changesPollMs: 50 });
    let api: TestApi;
    let base: string;
    let auth: Record<string, string> = {};
    const open: SseClient[] = [];
    const subscribe = (path: string): SseClient => {
      const client = openSse(`${base}${path}`, auth);
      open.push(client);
      return client;
    };
    const eventsAfter = (after: number): Promise<ChangeEvent[]> => eventsAfterOf(api, after, 'notes');
    const lastId = async (): Promise<number> => (await eventsAfter(0)).at(-1)?.id ?? 0;

    beforeAll(async () => {
      api = ctx.api;
      auth = await api.authHeaders();
      await ctx.built.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(ctx.built.app.server.address() as AddressInfo).port}`;
      await api.collection({ name: 'owners', fields: [{ name: 'name', type: 'string' }] });
      await api.collection({
        name: 'notes',
        fields: [
          { name: 'title', type: 'string' },
          { name: 'views', type: 'integer' },
          { name: 'owner', type: 'belongsTo', target: 'owners' },
        ],
      });
    });

    afterAll(() => {
      for (const client of open) client.close();
    });

    it('answers a flat create and update as before: 201 with Location, the whole row, appends embedded', async () => {
      const owner = (await api.post('/api/owners:create', { name: 'ada' })).body.data.id;
      const created = await api.post('/api/notes:create', { title: 'a', views: 1, ownerId: owner });
      expect(created.status, created.text).toBe(201);
      const id = created.body.data.id;
      expect(created.headers.location).toBe(`/api/notes/${id}`);
      expect(Object.keys(created.body.data).sort()).toEqual(['createdAt', 'id', 'ownerId', 'title', 'updatedAt', 'views']);
      expect(created.body.data).toMatchObject({ title: 'a', views: 1, ownerId: owner });
      // With an append the items are read through a read unit (the general path).
      const appended = await api.post('/api/notes:create?appends=owner', { title: 'b', ownerId: owner });
      expect(appended.status, appended.text).toBe(201);
      expect(appended.body.data).toMatchObject({ title: 'b', views: null, owner: { id: owner, name: 'ada' } });
      const updated = await api.post(`/api/notes:update/${id}`, { views: 5 });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.data).toMatchObject({ id, title: 'a', views: 5, ownerId: owner });
      expect(Date.parse(updated.body.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.data.updatedAt));
      const updatedAppended = await api.post(`/api/notes:update/${id}?appends=owner`, { title: 'a2' });
      expect(updatedAppended.body.data).toMatchObject({ id, title: 'a2', owner: { id: owner, name: 'ada' } });
      const missing = await api.post('/api/notes:update/999999', { views: 1 });
      expect(missing.status).toBe(404);
      expect(missing.body.errors[0].code).toBe('RECORD_NOT_FOUND');
    });

    it('a bulk create mixing flat and nested items answers and records them in order', async () => {
      const start = await lastId();
      const reply = await api.post('/api/notes:create', [{ title: 'flat1' }, { title: 'nested', owner: { name: 'bob' } }, { title: 'flat2', views: 3 }]);
      expect(reply.status, reply.text).toBe(201);
      expect(reply.body.data.map((item: { title: string }) => item.title)).toEqual(['flat1', 'nested', 'flat2']);
      const bob = reply.body.data[1].ownerId;
      expect(bob).not.toBeNull();
      const events = (await eventsAfter(start)).filter((event) => event.collection === 'notes');
      expect(events.map((event) => `${event.action}:${String(event.data.title)}`)).toEqual(['create:flat1', 'create:nested', 'create:flat2']);
      expect(events[1]!.data.ownerId).toBe(bob);
    });

    it('a subscriber that comes after writes nobody listened to gets every later event once, from its cursor', async () => {
      const before = await lastId();
      // Nobody subscribed: on PostgreSQL these are only published (numbered) by the node.
      for (let i = 0; i < 12; i++) expect((await api.post('/api/notes:create', { title: `quiet ${i}` })).status).toBe(201);
      const mark = (await eventsAfter(before)).at(-1)!.id;
      // One from the mark (the live position), one resuming from before the quiet writes.
      const live = subscribe(`/api/notes:subscribe?after=${mark}`);
      const resumed = subscribe(`/api/notes:subscribe?after=${before}`);
      expect(await live.status).toBe(200);
      expect(await resumed.status).toBe(200);
      const writers = Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; i < 5; i++) expect((await api.post('/api/notes:create', { title: `loud ${w}.${i}` })).status).toBe(201);
      });
      await Promise.all(writers);
      await live.waitFor(20, 10_000);
      await resumed.waitFor(32, 10_000);
      const listed = await eventsAfter(before);
      expect(listed).toHaveLength(32);
      expect(live.events.map((event) => event.id)).toEqual(listed.slice(12).map((event) => event.id));
      expect(resumed.events.map((event) => event.id)).toEqual(listed.map((event) => event.id));
    });

    it('a subscriber joining while writers run misses and repeats nothing', async () => {
      const before = await lastId();
      let stop = false;
      const writers = Array.from({ length: 3 }, async () => {
        let n = 0;
        while (!stop && n < 40) {
          expect((await api.post('/api/notes:create', { title: 'busy' })).status).toBe(201);
          n++;
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 30));
      const joined = subscribe(`/api/notes:subscribe?after=${before}`);
      expect(await joined.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 30));
      stop = true;
      await Promise.all(writers);
      const listed = await eventsAfter(before);
      await joined.waitFor(listed.length, 10_000);
      const ids = joined.events.map((event) => event.id);
      expect(ids).toEqual(listed.map((event) => event.id));
    });
  });
}
