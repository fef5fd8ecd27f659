import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { killAll, startCorral, waitFor, type CorralProcess } from './support.js';

/**
 * Schema changes must reach another node within this time. The default poll is 500 ms and
 * the delay is usually below a second (it is logged), but on a loaded machine two processes
 * can take longer; without the poll the change would never arrive, which the bound still catches.
 */
const PROPAGATION_LIMIT_MS = 10_000;

afterEach(killAll);
afterAll(killAll);

function rows(count: number, prefix: string): Array<{ title: string; views: number }> {
  return Array.from({ length: count }, (_, i) => ({ title: `${prefix}${i}`, views: i }));
}

for (const dialect of DIALECTS.filter((d) => d !== 'sqlite')) {
  describe(`two processes on one ${dialect} database`, () => {
    let database: TestDatabase | undefined;
    let a: CorralProcess;
    let b: CorralProcess;

    afterAll(async () => {
      await killAll();
      await database?.drop();
    });

    it('share schema changes and rows', async () => {
      database = await createTestDatabase(dialect);
      [a, b] = await Promise.all([
        startCorral({ env: { DATABASE_URL: database.url } }),
        startCorral({ env: { DATABASE_URL: database.url } }),
      ]);

      // B has already loaded the (empty) schema: the collection does not exist there yet.
      expect((await b.request('GET', '/api/shared_posts:list')).status).toBe(404);

      // A collection created through A is served by B within a second.
      const created = await a.request('POST', '/api/collections:create', {
        name: 'shared_posts',
        fields: [{ name: 'title', type: 'string' }],
      });
      expect(created.status, created.text).toBe(201);
      const collectionDelay = await waitFor(
        async () => (await b.request('GET', '/api/shared_posts:list')).status === 200,
        'collection created on A, listed on B',
        PROPAGATION_LIMIT_MS,
      );
      console.log(`[${dialect}] collection created on A served by B after ${collectionDelay.toFixed(0)} ms`);

      // A field created through B is seen by A.
      const field = await b.request('POST', '/api/collections/shared_posts/fields:create', { name: 'views', type: 'integer' });
      expect(field.status, field.text).toBe(201);
      const fieldDelay = await waitFor(
        async () => {
          const reply = await a.request('GET', '/api/shared_posts:list?filter=' + encodeURIComponent('{"views":{"$gte":0}}'));
          return reply.status === 200;
        },
        'field created on B, filtered on A',
        PROPAGATION_LIMIT_MS,
      );
      console.log(`[${dialect}] field created on B usable on A after ${fieldDelay.toFixed(0)} ms`);
      const fields = await a.request('GET', '/api/collections/shared_posts/fields:list');
      expect(fields.status, fields.text).toBe(200);
      expect(fields.body.data.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['id', 'title', 'views']));

      // Rows written through A are read through B.
      const bulk = await a.request('POST', '/api/shared_posts:create', rows(5, 'row'));
      expect(bulk.status, bulk.text).toBe(201);
      const single = await a.request('POST', '/api/shared_posts:create', { title: 'single', views: 99 });
      expect(single.status, single.text).toBe(201);
      const list = await b.request('GET', '/api/shared_posts:list?sort=id&pageSize=100');
      expect(list.status, list.text).toBe(200);
      expect(list.body.data.map((row: { title: string; views: number }) => [row.title, row.views])).toEqual([
        ...rows(5, 'row').map((row) => [row.title, row.views]),
        ['single', 99],
      ]);
      expect(list.body.meta.count).toBe(6);
      const one = await b.request('GET', `/api/shared_posts/${single.body.data.id}`);
      expect(one.status, one.text).toBe(200);
      expect(one.body.data).toMatchObject({ id: single.body.data.id, title: 'single', views: 99 });

      // A row written through B is read through A.
      const fromB = await b.request('POST', '/api/shared_posts:create', { title: 'from b', views: 7 });
      expect(fromB.status, fromB.text).toBe(201);
      const readOnA = await a.request('GET', `/api/shared_posts:get/${fromB.body.data.id}`);
      expect(readOnA.body.data).toMatchObject({ title: 'from b', views: 7 });

      const exits = await Promise.all([a.stop(), b.stop()]);
      expect(exits.map((exit) => exit.code)).toEqual([0, 0]);
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`restart persistence on ${dialect}`, () => {
    let database: TestDatabase | undefined;

    afterAll(async () => {
      await killAll();
      await database?.drop();
    });

    it('keeps collections, fields and rows across a restart', async () => {
      database = await createTestDatabase(dialect);
      const env = { DATABASE_URL: database.url };

      const first = await startCorral({ env });
      const created = await first.request('POST', '/api/collections:create', {
        name: 'notes',
        fields: [{ name: 'title', type: 'string' }],
      });
      expect(created.status, created.text).toBe(201);
      const field = await first.request('POST', '/api/collections/notes/fields:create', { name: 'views', type: 'integer', defaultValue: 3 });
      expect(field.status, field.text).toBe(201);
      const bulk = await first.request('POST', '/api/notes:create', [
        { title: 'one', views: 1 },
        { title: 'two' },
        { title: 'three', views: 30 },
      ]);
      expect(bulk.status, bulk.text).toBe(201);
      const exit = await first.stop();
      expect(exit, first.stderr()).toEqual({ code: 0, signal: null });

      const second = await startCorral({ env });
      const collection = await second.request('GET', '/api/collections:get/notes');
      expect(collection.status, collection.text).toBe(200);
      expect(collection.body.data.name).toBe('notes');
      const fields = await second.request('GET', '/api/collections/notes/fields:list');
      expect(fields.status, fields.text).toBe(200);
      const views = fields.body.data.find((f: { name: string }) => f.name === 'views');
      expect(views).toMatchObject({ name: 'views', type: 'integer', defaultValue: 3 });
      const list = await second.request('GET', '/api/notes:list?sort=id');
      expect(list.status, list.text).toBe(200);
      expect(list.body.data.map((row: { title: string; views: number }) => [row.title, row.views])).toEqual([
        ['one', 1],
        ['two', 3],
        ['three', 30],
      ]);
      // The restarted process can still write with the field's default.
      const more = await second.request('POST', '/api/notes:create', { title: 'four' });
      expect(more.status, more.text).toBe(201);
      expect(more.body.data).toMatchObject({ title: 'four', views: 3 });
      expect((await second.stop()).code).toBe(0);
    });
  });
}
