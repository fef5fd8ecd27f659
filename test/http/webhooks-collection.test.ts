import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { apiFor, testConfig, useDialectApp, type TestApi } from '../support/test-app.js';
import { createTestDatabase, DIALECTS } from '../support/test-database.js';

/**
 * Webhooks and API keys are written through the store like any collection: one transaction
 * per write, with change events, the store's grants (webhooks are root's alone, in the
 * change feed too), and per-collection checks that run before anything is written.
 */
interface FeedEvent {
  id: number;
  collection: string;
  action: string;
  key: unknown;
  data: Record<string, unknown> | null;
}

const SECRET = 'a-long-secret';

for (const dialect of DIALECTS) {
  describe(`webhooks and apiKeys through the store on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { webhookAllowPrivate: false, changesPollMs: 50 });
    let viewer: TestApi;

    const feed = async (api: TestApi, after: number): Promise<FeedEvent[]> => {
      const reply = await api.get(`/api/changes:list?after=${after}&pageSize=200`);
      expect(reply.status, reply.text).toBe(200);
      return reply.body.data as FeedEvent[];
    };
    const last = async (): Promise<number> => (await feed(ctx.api, 0)).at(-1)?.id ?? 0;

    beforeAll(async () => {
      await ctx.api.collection({ name: 'notes', fields: [{ name: 'text', type: 'string' }] });
      // Views every collection its strategy reaches: webhooks are not among them.
      expect((await ctx.api.post('/api/roles:create', { name: 'viewer', strategy: { actions: ['view', 'create', 'update', 'destroy'] } })).status).toBe(201);
      expect((await ctx.api.post('/api/users:create', { email: 'viewer@corral.test', password: 'viewer-password', roles: ['viewer'] })).status).toBe(201);
      viewer = apiFor(ctx.built, { account: 'viewer@corral.test', password: 'viewer-password' });
    });

    it('create, update and destroy each commit one change event, without the secret', async () => {
      const mark = await last();
      const created = await ctx.api.post('/api/webhooks:create', { url: 'https://8.8.8.8/hook', collections: ['notes'], secret: SECRET });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data).toEqual({ id: created.body.data.id, url: 'https://8.8.8.8/hook', collections: ['notes'], actions: null, active: true });
      const id = created.body.data.id as number;
      expect((await ctx.api.put(`/api/webhooks/${id}`, { active: false, secret: 'another-secret' })).body.data.active).toBe(false);
      expect((await ctx.api.post(`/api/webhooks:destroy/${id}`)).body.data).toBe(1);
      const events = (await feed(ctx.api, mark)).filter((event) => event.collection === 'webhooks');
      expect(events.map((event) => [event.action, String(event.key)])).toEqual([['create', String(id)], ['update', String(id)], ['destroy', String(id)]]);
      expect(JSON.stringify(events)).not.toContain('secret');
      expect(events[0]!.data).toMatchObject({ url: 'https://8.8.8.8/hook', collections: ['notes'], active: true });
      expect((await ctx.api.get(`/api/webhooks/${id}`)).status).toBe(404);
      // The secret and delivery state went with the row.
      const state = await sql<{ n: number }>`select count(*) as n from corral_webhook_state where webhook_id = ${id}`.execute(ctx.built.database.db);
      expect(Number(state.rows[0]!.n)).toBe(0);
    });

    it('a refused body changes nothing: no row, no state, no event', async () => {
      const mark = await last();
      const before = (await ctx.api.get('/api/webhooks:list')).body.data;
      for (const body of [
        { url: 'http://127.0.0.1/x', collections: ['notes'], secret: SECRET },
        { url: 'https://8.8.8.8/hook', collections: [], secret: SECRET },
        { url: 'https://8.8.8.8/hook', collections: ['notes'], secret: 'short' },
        { url: 'https://8.8.8.8/hook', collections: ['notes'], secret: SECRET, colour: 'red' },
      ]) {
        expect((await ctx.api.post('/api/webhooks:create', body)).status).toBe(400);
      }
      const id = (await ctx.api.post('/api/webhooks:create', { url: 'https://8.8.8.8/kept', collections: ['notes'], secret: SECRET, active: false })).body.data.id as number;
      const afterCreate = await last();
      const refused = await ctx.api.put(`/api/webhooks/${id}`, { active: true, url: 'http://10.0.0.1/x' });
      expect(refused.body.errors[0].code).toBe('WEBHOOK_URL_FORBIDDEN');
      expect((await ctx.api.get(`/api/webhooks/${id}`)).body.data).toMatchObject({ url: 'https://8.8.8.8/kept', active: false });
      expect(await feed(ctx.api, afterCreate)).toEqual([]);
      expect((await feed(ctx.api, mark)).filter((event) => event.collection === 'webhooks')).toHaveLength(1);
      expect((await ctx.api.get('/api/webhooks:list')).body.data).toHaveLength(before.length + 1);
      await ctx.api.post(`/api/webhooks:destroy/${id}`);
    });

    it('a caller who is not root cannot touch webhooks, nor see their events in the change feed', async () => {
      const mark = await last();
      const id = (await ctx.api.post('/api/webhooks:create', { url: 'https://8.8.8.8/private', collections: ['*'], secret: SECRET, active: false })).body.data.id as number;
      await ctx.api.post('/api/notes:create', { text: 'seen' });
      for (const [method, path, body] of [
        ['GET', '/api/webhooks:list'],
        ['GET', `/api/webhooks/${id}`],
        ['POST', '/api/webhooks:create', { url: 'https://8.8.8.8/x', collections: ['notes'], secret: SECRET }],
        ['PUT', `/api/webhooks/${id}`, { active: true }],
        ['POST', `/api/webhooks:destroy/${id}`],
        ['GET', `/api/webhooks/${id}/deliveries:list`],
      ] as const) {
        const reply = await viewer.request(method, path, body);
        expect(reply.status, `${method} ${path}`).toBe(403);
        expect(reply.body.errors[0].code).toBe('FORBIDDEN');
      }
      const seen = await feed(viewer, mark);
      expect(seen.map((event) => event.collection)).toEqual(['notes']);
      expect((await feed(ctx.api, mark)).map((event) => event.collection)).toEqual(['webhooks', 'notes']);
      await ctx.api.post(`/api/webhooks:destroy/${id}`);
    });

    it('apiKeys:create commits one change event, stores only the token digest and answers the token once', async () => {
      const mark = await last();
      const created = await ctx.api.post('/api/apiKeys:create', { name: 'ci', role: 'root', expiresIn: '1d' });
      expect(created.status, created.text).toBe(201);
      const { id, token } = created.body.data as { id: number; token: string };
      expect(Object.keys(created.body.data).sort()).toEqual(['id', 'token']);
      expect(created.headers.location).toBe(`/api/apiKeys/${id}`);
      const events = (await feed(ctx.api, mark)).filter((event) => event.collection === 'apiKeys');
      expect(events.map((event) => [event.action, String(event.key)])).toEqual([['create', String(id)]]);
      expect(JSON.stringify(events)).not.toContain(token);
      const row = await ctx.built.database.db.selectFrom(ctx.built.schema.snapshot.get('apiKeys')!.table).select(['tokenHash']).where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.tokenHash).toBe(createHash('sha256').update(token).digest('base64url'));
      const read = await ctx.api.get(`/api/apiKeys/${id}`);
      expect(read.status).toBe(200);
      expect(JSON.stringify(read.body.data)).not.toContain(token);
      expect(read.body.data).not.toHaveProperty('tokenHash');
      const withKey = await apiFor(ctx.built, null).request('GET', '/api/notes:list', undefined, { authorization: `Bearer ${token}` });
      expect(withKey.status, withKey.text).toBe(200);
    });
  });

  describe(`webhooks of an earlier version on ${dialect}`, () => {
    it('are moved into the collection at start, ids and secrets kept', async () => {
      const database = await createTestDatabase(dialect);
      try {
        const first = await buildApp(testConfig(database));
        try {
          const { db } = first.database;
          // The earlier layout: definition, secret, cursor and lease in one table.
          await db.schema
            .createTable('corral_webhooks')
            .addColumn('id', 'integer', (c) => c.primaryKey())
            .addColumn('url', 'varchar(2048)', (c) => c.notNull())
            .addColumn('collections', 'text', (c) => c.notNull())
            .addColumn('actions', 'text')
            .addColumn('secret', 'varchar(512)', (c) => c.notNull())
            .addColumn('active', 'integer', (c) => c.notNull())
            .addColumn('cursor', 'bigint', (c) => c.notNull())
            .addColumn('lease_owner', 'varchar(64)')
            .addColumn('lease_until', 'bigint')
            .execute();
          await db.insertInto('corral_webhooks').values({ id: 7, url: 'https://example.com/old', collections: '["notes"]', actions: '["create"]', secret: SECRET, active: 1, cursor: 0 }).execute();
        } finally {
          await first.close();
        }
        const node = await buildApp(testConfig(database));
        try {
          const api = apiFor(node);
          expect((await api.get('/api/webhooks/7')).body.data).toEqual({ id: 7, url: 'https://example.com/old', collections: ['notes'], actions: ['create'], active: true });
          const next = await api.post('/api/webhooks:create', { url: 'https://8.8.8.8/new', collections: ['notes'], secret: SECRET, active: false });
          expect(next.body.data.id).toBeGreaterThan(7);
          const state = await node.database.db.selectFrom('corral_webhook_state').select(['secret']).where('webhook_id', '=', 7).executeTakeFirstOrThrow();
          expect(state.secret).toBe(SECRET);
          await api.put('/api/webhooks/7', { active: false });
        } finally {
          await node.close();
        }
      } finally {
        await database.drop();
      }
    });
  });
}
