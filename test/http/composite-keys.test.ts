import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import type { Dialect } from '../../src/schema/types.js';
import { CHINOOK_SQL } from '../fixtures/existing/chinook.js';
import { loadFixture } from '../fixtures/existing/load-fixture.js';
import { SHOP_SQL } from '../fixtures/existing/shop.js';
import { apiFor, testConfig, type TestApi } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

/**
 * Tables with a composite primary key (the shop's order_lines, Chinook's PlaylistTrack), served
 * with CORRAL_INTROSPECT=on: filterTargetKey lists the key fields and filterByTk is an object of
 * every one (`filterByTk[order_id]=1&filterByTk[line_no]=2`, NocoBase's form). Writes are read
 * back by plain SQL (docs/existing-databases.md, "Keys").
 */

const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

interface Served {
  api: TestApi;
  built: BuiltApp;
  database: TestDatabase;
}

function useExisting(dialect: Dialect, fixture: Record<Dialect, readonly string[]>): Served {
  const state = {} as Served;
  beforeAll(async () => {
    state.database = await createTestDatabase(dialect);
    const loader = await openDatabase(state.database.config);
    try {
      await loadFixture(loader.db, fixture[dialect]);
    } finally {
      await loader.close();
    }
    state.built = await buildApp(testConfig(state.database, { introspect: { include: [], exclude: [] }, logLevel: 'error' }));
    state.api = apiFor(state.built);
  });
  afterAll(async () => {
    await state.built?.close();
    await state.database?.drop();
  });
  return state;
}

/** Plain SQL, integers as numbers (`"` quotes written, backticks on MySQL). */
async function numbers(served: Served, dialect: Dialect, text: string): Promise<Record<string, number>[]> {
  const result = await sql.raw(dialect === 'mysql' ? text.replaceAll('"', '`') : text).execute(served.built.database.db);
  return (result.rows as Record<string, unknown>[]).map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value)])));
}

const line = (orderId: number | string, lineNo: number | string) => `filterByTk[order_id]=${orderId}&filterByTk[line_no]=${lineNo}`;

for (const dialect of DIALECTS) {
  describe(`composite keys of an existing shop database on ${dialect}`, () => {
    const served = useExisting(dialect, SHOP_SQL);

    it('describes the key as the list of its fields', async () => {
      const collection = await served.api.get('/api/collections:get?filterByTk=order_lines');
      expect(collection.status, collection.text).toBe(200);
      expect(collection.body.data.filterTargetKey).toEqual(['order_id', 'line_no']);
    });

    it('gets one row by every key part, in the query-string or the JSON form', async () => {
      const one = await served.api.get(`/api/order_lines:get?${line(1, 2)}&fields=order_id,line_no,quantity`);
      expect(one.status, one.text).toBe(200);
      expect(one.body.data).toEqual({ order_id: 1, line_no: 2, quantity: 1 });
      const json = await served.api.get(`/api/order_lines:get?filterByTk=${q({ order_id: 2, line_no: 1 })}&fields=quantity`);
      expect(json.status, json.text).toBe(200);
      expect(json.body.data).toEqual({ quantity: 3 });
      const missing = await served.api.get(`/api/order_lines:get?${line(1, 9)}`);
      expect(missing.status, missing.text).toBe(404);
      expect(missing.body.errors[0].code).toBe('RECORD_NOT_FOUND');
    });

    it.each([
      ['a missing part', '/api/order_lines:get?filterByTk[order_id]=1', 'misses line_no'],
      ['an extra part', `/api/order_lines:get?${line(1, 1)}&filterByTk[quantity]=2`, 'names quantity'],
      ['one scalar key', '/api/order_lines:get?filterByTk=1', 'filterByTk[order_id]=…&filterByTk[line_no]=…'],
      ['a list of keys', '/api/order_lines:get?filterByTk[0]=1&filterByTk[1]=2', 'composite'],
      ['a key in the path', '/api/order_lines/1', 'filterByTk[order_id]'],
      ['a key in the action path', '/api/order_lines:get/1', 'filterByTk[order_id]'],
      ['an association path below it', '/api/order_lines/1/product:get', 'composite'],
    ])('refuses %s with 400 PARAM_INVALID', async (_name, url, message) => {
      const reply = await served.api.get(url);
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.errors[0].code).toBe('PARAM_INVALID');
      expect(reply.body.errors[0].message).toContain(message);
    });

    it('refuses a part that does not parse with the field type (400 KEY_INVALID)', async () => {
      const reply = await served.api.get(`/api/order_lines:get?${line('x', 1)}`);
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.errors[0].code).toBe('KEY_INVALID');
    });

    it('updates one row by its composite key, and the write lands', async () => {
      const updated = await served.api.request('POST', `/api/order_lines:update?${line(1, 2)}`, { quantity: 5 });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.data).toMatchObject({ order_id: 1, line_no: 2, quantity: 5 });
      expect(await numbers(served, dialect, 'select order_id, line_no, quantity from order_lines order by order_id, line_no')).toEqual([
        { order_id: 1, line_no: 1, quantity: 2 },
        { order_id: 1, line_no: 2, quantity: 5 },
        { order_id: 2, line_no: 1, quantity: 3 },
      ]);
      const missing = await served.api.request('POST', `/api/order_lines:update?${line(2, 7)}`, { quantity: 5 });
      expect(missing.status, missing.text).toBe(404);
    });

    it('lists and filters as before', async () => {
      const lines = await served.api.get(`/api/order_lines:list?filter=${q({ order_id: 1 })}&sort=line_no&fields=line_no,quantity`);
      expect(lines.status, lines.text).toBe(200);
      expect(lines.body.data).toEqual([{ line_no: 1, quantity: 2 }, { line_no: 2, quantity: 5 }]);
    });

    it('destroys one row by its composite key, and only that row', async () => {
      const destroyed = await served.api.request('POST', `/api/order_lines:destroy?${line(2, 1)}`);
      expect(destroyed.status, destroyed.text).toBe(200);
      expect(destroyed.body.data).toBe(1);
      expect(await numbers(served, dialect, 'select order_id, line_no from order_lines order by order_id, line_no')).toEqual([
        { order_id: 1, line_no: 1 },
        { order_id: 1, line_no: 2 },
      ]);
      const again = await served.api.request('POST', `/api/order_lines:destroy?${line(2, 1)}`);
      expect(again.status, again.text).toBe(404);
    });

    it('keys the change events of its rows by the composite key (an object)', async () => {
      const changes = await served.api.get('/api/changes:list?after=0&pageSize=200&collection=order_lines');
      expect(changes.status, changes.text).toBe(200);
      const events = (changes.body.data as { action: string; key: unknown; data: Record<string, unknown> }[]).map((event) => ({ action: event.action, key: event.key, data: event.data }));
      expect(events).toMatchObject([
        { action: 'update', key: { order_id: 1, line_no: 2 }, data: { order_id: 1, line_no: 2, quantity: 5 } },
        { action: 'destroy', key: { order_id: 2, line_no: 1 }, data: { order_id: 2, line_no: 1 } },
      ]);
    });
  });

  describe(`composite keys of the Chinook sample database on ${dialect}`, () => {
    const served = useExisting(dialect, CHINOOK_SQL);

    it('gets and destroys a PlaylistTrack row by both keys', async () => {
      const key = 'filterByTk[PlaylistId]=1&filterByTk[TrackId]=2';
      const one = await served.api.get(`/api/PlaylistTrack:get?${key}`);
      expect(one.status, one.text).toBe(200);
      expect(one.body.data).toEqual({ PlaylistId: 1, TrackId: 2 });
      const destroyed = await served.api.request('POST', `/api/PlaylistTrack:destroy?${key}`);
      expect(destroyed.status, destroyed.text).toBe(200);
      expect(destroyed.body.data).toBe(1);
      expect(await numbers(served, dialect, 'select "TrackId" from "PlaylistTrack" where "PlaylistId" = 1 order by "TrackId"')).toEqual([{ TrackId: 1 }, { TrackId: 4 }]);
      const tracks = await served.api.get('/api/Playlist/1/tracks:list?sort=TrackId&fields=TrackId');
      expect(tracks.body.data).toEqual([{ TrackId: 1 }, { TrackId: 4 }]);
    });
  });
}
