import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { SCHEMA_POLL_MS_MAX } from '../../src/config/load-config.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { apiFor, testConfig, type TestApi } from '../support/test-app.js';

/**
 * Two nodes over one database; node B never polls and is never told, so every change node A
 * makes reaches B only through a statement that finds the schema moved.
 */
for (const dialect of DIALECTS) {
  describe(`schema changed by another node on ${dialect}`, () => {
    let database: TestDatabase;
    let nodeA: BuiltApp;
    let nodeB: BuiltApp;
    let a: TestApi;
    let b: TestApi;
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      nodeA = await buildApp(testConfig(database));
      nodeB = await buildApp(testConfig(database, { schemaPollMs: SCHEMA_POLL_MS_MAX }));
      nodeB.schema.stopPolling();
      // Nor is it told (PostgreSQL's NOTIFY, the change counter's poll).
      await nodeB.propagation.close();
      a = apiFor(nodeA);
      b = apiFor(nodeB);
    });
    afterAll(async () => {
      await nodeA?.close();
      await nodeB?.close();
      await database?.drop();
    });

    it('answers a read after a rename on another node from the new schema, not 500', async () => {
      await a.collection({ name: 'notes', fields: [{ name: 'body', type: 'string' }, { name: 'rank', type: 'integer' }] });
      await nodeB.schema.refresh();
      expect((await b.post('/api/notes:create', { body: 'one', rank: 1 })).status).toBe(201);
      expect((await b.get('/api/notes:list')).status).toBe(200);
      expect((await a.put('/api/collections/notes/fields/rank', { name: 'priority' })).status).toBe(200);
      const list = await b.get('/api/notes:list');
      expect(list.status, list.text).toBe(200);
      expect(list.body.data[0]).toMatchObject({ body: 'one', priority: 1 });
      expect(list.body.data[0]).not.toHaveProperty('rank');
    });

    it('retries a write after a field was dropped on another node, or answers 400 for the gone field', async () => {
      expect((await a.del('/api/collections/notes/fields/priority')).status).toBe(200);
      const created = await b.post('/api/notes:create', { body: 'two' });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data).not.toHaveProperty('priority');
      expect((await a.post('/api/collections/notes/fields', { name: 'score', type: 'integer' })).status).toBe(201);
      await nodeB.schema.refresh();
      expect((await a.del('/api/collections/notes/fields/score')).status).toBe(200);
      const filtered = await b.get(`/api/notes:list?filter=${encodeURIComponent('{"score":{"$gt":0}}')}`);
      expect(filtered.status, filtered.text).toBe(400);
      expect(filtered.body.errors[0].code).toBe('FILTER_UNKNOWN_FIELD');
    });

    it('answers a widened field with the new type', async () => {
      await a.collection({ name: 'counters', fields: [{ name: 'label', type: 'string', length: 10 }, { name: 'n', type: 'integer' }] });
      await nodeB.schema.refresh();
      expect((await b.post('/api/counters:create', { label: 'x', n: 1 })).status).toBe(201);
      for (let i = 0; i < 3; i++) expect((await b.get('/api/counters:list')).status).toBe(200);
      expect((await a.put('/api/collections/counters/fields/n', { type: 'bigInt' })).status).toBe(200);
      expect((await a.put('/api/collections/counters/fields/label', { length: 100 })).status).toBe(200);
      for (let i = 0; i < 3; i++) {
        const list = await b.get('/api/counters:list');
        expect(list.status, list.text).toBe(200);
      }
      expect((await b.post('/api/counters:create', { label: 'y', n: 2 })).status).toBe(201);
    });

    it('answers 404 COLLECTION_NOT_FOUND for a collection dropped on another node', async () => {
      expect((await a.del('/api/collections/counters')).status).toBe(200);
      for (const reply of [await b.get('/api/counters:list'), await b.post('/api/counters:create', { label: 'z' })]) {
        expect(reply.status, reply.text).toBe(404);
        expect(reply.body.errors[0].code).toBe('COLLECTION_NOT_FOUND');
      }
    });

    it('answers every one of 40 parallel creates into a collection another node just created (none 404 COLLECTION_NOT_FOUND)', async () => {
      await a.collection({ name: 'burst', fields: [{ name: 'n', type: 'integer' }] });
      const replies = await Promise.all(Array.from({ length: 40 }, (_, n) => b.post('/api/burst:create', { n })));
      expect(replies.filter((reply) => reply.status !== 201).map((reply) => `${reply.status} ${reply.text}`)).toEqual([]);
    });
  });
}
