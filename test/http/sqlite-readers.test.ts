import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { SqliteReadPool } from '../../src/db/sqlite-read-pool.js';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { apiFor, testConfig, useDialectApp, type DialectApp, type Reply } from '../support/test-app.js';

/**
 * SQLite's reader threads (src/db/sqlite-read-pool.ts): reads that may be heavy run off the
 * event loop, so `/healthz` and a get by key answer while heavy filters run, and a read past
 * CORRAL_DB_STATEMENT_TIMEOUT_MS ends with 503 while the threads keep serving.
 */

const ROWS = 40_000;

/** Every row is tested against 20 substrings (none matches): a scan of every row, several times the cost of a plain scan. */
const HEAVY_FILTER = encodeURIComponent(JSON.stringify({ $or: Array.from({ length: 20 }, (_, i) => ({ title: { $includes: `absent-${i}` } })) }));
const HEAVY = `/api/posts:list?pageSize=20&filter=${HEAVY_FILTER}`;

async function seed(state: DialectApp): Promise<void> {
  await state.api.collection({ name: 'posts', timestamps: false, fields: [{ name: 'title', type: 'string' }, { name: 'views', type: 'integer' }] });
  await state.api.collection({ name: 'tags', timestamps: false, fields: [{ name: 'name', type: 'string' }] });
  await sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < ${sql.lit(ROWS)})
    insert into posts (title, views) select 'a post about the weather on day ' || i || ' of a long and uneventful year', i % 1000 from s`.execute(state.built.database.db);
  for (const name of ['red', 'green', 'blue']) expect((await state.api.post('/api/tags:create', { name })).status).toBe(201);
}

function pool(built: BuiltApp): SqliteReadPool {
  const readers = built.database.executor.readers as SqliteReadPool | undefined;
  if (readers === undefined) throw new Error('the app has no SQLite reader threads');
  return readers;
}

const timed = async (request: () => Promise<Reply>): Promise<{ reply: Reply; ms: number; at: number }> => {
  const started = performance.now();
  const reply = await request();
  const at = performance.now();
  return { reply, ms: at - started, at };
};

describe.runIf(DIALECTS.includes('sqlite'))('SQLite reader threads', () => {
  describe('heavy reads beside light ones', () => {
    const state = useDialectApp('sqlite');

    it('answers /healthz and a get by key while two heavy filters run, before either ends', async () => {
      await seed(state);
      const { api } = state;
      // Warm up: threads started, statements prepared, sign-in done.
      const alone = await timed(() => api.get(HEAVY));
      expect(alone.reply.status).toBe(200);
      expect(alone.reply.body.meta.count).toBe(0);
      for (let i = 0; i < 5; i++) expect((await api.get(`/api/posts:get/${1 + i}`)).status).toBe(200);
      expect(pool(state.built).threads.live).toBeGreaterThan(0);

      const heavy = [timed(() => api.get(HEAVY)), timed(() => api.get(HEAVY))];
      const light: { ms: number; at: number }[] = [];
      for (let i = 0; i < 10; i++) {
        const health = await timed(() => api.get('/healthz'));
        expect(health.reply.status).toBe(200);
        const get = await timed(() => api.get(`/api/posts:get/${100 + i}`));
        expect(get.reply.status).toBe(200);
        expect(get.reply.body.data.views).toBe((100 + i) % 1000);
        light.push(health, get);
      }
      const heavyDone = await Promise.all(heavy);
      for (const done of heavyDone) expect(done.reply.status).toBe(200);
      const lastLight = Math.max(...light.map((entry) => entry.at));
      // Twenty light requests ran one after the other and all finished before either heavy
      // filter did: none waited for them. On the event loop they would all have waited for both.
      // (The order is asserted, not milliseconds: a loaded machine stretches every request.)
      expect(lastLight).toBeLessThan(Math.min(...heavyDone.map((done) => done.at)));
    });

    it('sees rows written and columns added on the main connection at once', async () => {
      const { api } = state;
      const filter = (where: object) => `/api/posts:list?pageSize=5&filter=${encodeURIComponent(JSON.stringify(where))}`;
      expect((await api.post('/api/posts:create', { title: 'fresh and unique', views: 5 })).status).toBe(201);
      const found = await api.get(filter({ title: { $includes: 'fresh and unique' } }));
      expect(found.body.data.map((post: { title: string }) => post.title)).toEqual(['fresh and unique']);
      const field = await api.post('/api/collections/posts/fields:create', { name: 'rating', type: 'integer' });
      expect(field.status).toBe(201);
      expect((await api.put('/api/posts:update/1', { rating: 7 })).status).toBe(200);
      const rated = await api.get(filter({ rating: { $eq: 7 } }));
      expect(rated.status).toBe(200);
      expect(rated.body.data.map((post: { id: number; rating: number }) => [post.id, post.rating])).toEqual([[1, 7]]);
    });

    it('runs aggregates on the threads with the same answers', async () => {
      const reply = await state.api.post('/api/posts:query', { measures: [{ aggregation: 'count', alias: 'n' }], filter: { views: { $lt: 10 } } });
      expect(reply.status).toBe(200);
      // Views 0–9 in every thousand rows, and the post created above (views 5).
      expect(Number(reply.body.data[0].n)).toBe(ROWS / 100 + 1);
    });
  });

  describe('a read past the statement timeout', () => {
    // A test-only limit below the setting's minimum (100 ms): the heavy filter takes far longer.
    const state = useDialectApp('sqlite', { dbStatementTimeoutMs: 20 });

    it('ends with 503 DATABASE_UNAVAILABLE, and the next reads answer', async () => {
      await seed(state);
      const { api } = state;
      const slow = await api.get(HEAVY);
      expect(slow.status).toBe(503);
      expect(slow.body.errors[0].code, slow.text).toBe('DATABASE_UNAVAILABLE');
      // The abandoned thread was replaced: a filtered read (on a thread) and a get (main connection) answer.
      // (posts: a table of READER_MIN_ROWS or more; the 3 tags are read on the main connection.)
      const tags = await api.get(`/api/tags:list?filter=${encodeURIComponent(JSON.stringify({ name: { $includes: 'e' } }))}`);
      expect(tags.status).toBe(200);
      expect(tags.body.data.map((tag: { name: string }) => tag.name)).toEqual(['red', 'green', 'blue']);
      const posts = await api.get(`/api/posts:list?pageSize=3&count=none&sort=id&filter=${encodeURIComponent(JSON.stringify({ views: 5 }))}`);
      expect(posts.status, posts.text).toBe(200);
      expect(posts.body.data.map((post: { id: number }) => post.id)).toEqual([5, 1005, 2005]);
      expect((await api.get('/api/posts:get/3')).status).toBe(200);
      expect(pool(state.built).threads.live).toBeGreaterThan(0);
    });
  });

  it('runs every read on the main connection with CORRAL_SQLITE_READERS=0', async () => {
    const database = await createTestDatabase('sqlite');
    const built = await buildApp(testConfig({ ...database, config: { ...database.config, readers: 0 } as TestDatabase['config'] }));
    try {
      expect(built.database.executor.readers).toBeUndefined();
      const api = apiFor(built);
      await api.collection({ name: 'notes', timestamps: false, fields: [{ name: 'text', type: 'string' }] });
      expect((await api.post('/api/notes:create', { text: 'kept' })).status).toBe(201);
      const found = await api.get(`/api/notes:list?filter=${encodeURIComponent(JSON.stringify({ text: { $includes: 'ep' } }))}`);
      expect(found.body.data.map((note: { text: string }) => note.text)).toEqual(['kept']);
    } finally {
      await built.close();
      await database.drop();
    }
  });
});
