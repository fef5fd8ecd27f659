import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHANGES_RETENTION_MS } from '../../src/changes/change-feed.js';
import { directWritesCommitted } from '../../src/write-paths/sqlite-direct.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';
import { eventsAfter, inTransaction as inTransactionOf, type ChangeEvent } from '../support/change-event.js';
import { TYPED_FIELDS } from '../support/typed-fields.js';

/**
 * A flat create and an update by key record the same event, and fail the same way, whether
 * they take SQLite's synchronous unit (write-paths/sqlite-direct.ts: the outbox is the only
 * beforeCommit hook) or the transaction path (forced here by a second, empty hook). On the
 * other databases both runs take the transaction path and must agree too.
 */
const FIELDS = [{ name: 'code', type: 'string', unique: true, allowNull: false }, ...TYPED_FIELDS];

const VALUES = {
  s: 'short',
  t: 'a longer text with ünïcode ✓',
  i: -42,
  b: '9007199254740993',
  f: 1.5,
  d: 2.25,
  dec: '123.456',
  bool: true,
  dt: '2026-11-22T10:11:12.345Z',
  day: '2026-11-22',
  tm: '10:11:12',
  j: { nested: [1, 'two', null, { x: true }] },
  arr: [1, 2, 3],
  u: '0b6c3a9e-5f0e-4c8e-9d5b-7a1f2e3d4c5b',
  n: 'V1StGXR8_Z5jdHi6B-myT',
  pw: 'secret-password',
};

const CHANGED = { s: 'other', i: 7, b: '-5', bool: false, j: [], dec: '0.5', dt: '2027-01-01T00:00:00.000Z', pw: 'another-secret' };

/** Values whose JSON text is easy to get wrong: escapes, astral characters, 64-bit and float extremes. */
const EDGE = {
  s: 'q"b\\/\u0001\u001f\u007f',
  t: 'ünïcode ✓ 😀 \u2028\u2029 \n\t\r\b\f </script>',
  i: -2147483648,
  b: '-9223372036854775808',
  f: 0.1 + 0.2,
  d: 1e-7,
  dec: '-0.001',
  bool: false,
  dt: '1999-12-31T23:59:59.999Z',
  day: '2000-02-29',
  tm: '00:00:00',
  j: { 'quote"': ['\u0001', -0, 1e21, 12345678901234567890, {}], back: 'sl\\ash', none: null },
  arr: [],
  u: 'ffffffff-ffff-4fff-bfff-ffffffffffff',
  n: '___________________-_',
  pw: 'edge-password',
};

const EDGE_CHANGED = { i: 2147483647, b: '9007199254740992', f: -1.5e300, d: 5e-324, bool: true, dec: '99999999.999', j: '"a string"', arr: [[[]]], t: '' };

/** What must be equal between the two paths: everything but the row's own key and timestamps. */
function comparable(event: ChangeEvent): Record<string, unknown> {
  const { id: _id, createdAt: _created, updatedAt: _updated, code: _code, ...data } = event.data;
  return { collection: event.collection, action: event.action, data };
}

for (const dialect of DIALECTS) {
  describe(`flat writes and their events on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let api: TestApi;

    const events = (): Promise<ChangeEvent[]> => eventsAfter(api, 0, 'kinds');
    const inTransaction = <T>(write: () => Promise<T>): Promise<T> => inTransactionOf(ctx.built, write);
    /** The writes a request committed through SQLite's synchronous unit. */
    const directOf = async <T>(write: () => Promise<T>): Promise<{ value: T; direct: number }> => {
      const before = directWritesCommitted();
      const value = await write();
      return { value, direct: directWritesCommitted() - before };
    };

    beforeAll(async () => {
      api = ctx.api;
      await api.collection({ name: 'kinds', fields: FIELDS });
      // Signed in before any statement is counted.
      expect((await api.get('/api/kinds:count')).status).toBe(200);
    });

    it('a flat create and an update by key record the same event data on both paths, for every field type', async () => {
      const fast = await directOf(() => api.post('/api/kinds:create', { code: 'fast', ...VALUES }));
      const slow = await directOf(() => inTransaction(() => api.post('/api/kinds:create', { code: 'slow', ...VALUES })));
      expect(fast.value.status, fast.value.text).toBe(201);
      expect(slow.value.status, slow.value.text).toBe(201);
      expect(fast.direct).toBe(dialect === 'sqlite' ? 1 : 0);
      expect(slow.direct).toBe(0);
      const fastId = fast.value.body.data.id;
      const slowId = slow.value.body.data.id;
      const { value: fastUpdate, direct } = await directOf(() => api.put(`/api/kinds/${fastId}`, CHANGED));
      expect(direct).toBe(dialect === 'sqlite' ? 1 : 0);
      const slowUpdate = await inTransaction(() => api.put(`/api/kinds/${slowId}`, CHANGED));
      expect(fastUpdate.status, fastUpdate.text).toBe(200);
      expect(slowUpdate.status, slowUpdate.text).toBe(200);
      const { id: _a, createdAt: _b, updatedAt: _c, code: _d, ...answered } = fastUpdate.body.data;
      const { id: _e, createdAt: _f, updatedAt: _g, code: _h, ...answeredSlow } = slowUpdate.body.data;
      expect(answered).toEqual(answeredSlow);

      const all = await events();
      expect(all.map((event) => `${event.action}:${String(event.key)}`)).toEqual([`create:${fastId}`, `create:${slowId}`, `update:${fastId}`, `update:${slowId}`]);
      const [fastCreate, slowCreate, fastUpdated, slowUpdated] = all as [ChangeEvent, ChangeEvent, ChangeEvent, ChangeEvent];
      expect(comparable(fastCreate)).toEqual(comparable(slowCreate));
      expect(comparable(fastUpdated)).toEqual(comparable(slowUpdated));
      expect(fastCreate.data.code).toBe('fast');
      expect(fastCreate.data.id).toBe(fastId);
      expect(fastUpdated.data).toEqual(fastUpdate.body.data);
      expect(all.map((event) => event.id)).toEqual([...all.map((event) => event.id)].sort((a, b) => a - b));
    });

    it('writes the same key and data texts, byte for byte, on both paths, edge values and nulls included', async () => {
      /** The stored texts of the `kinds` events, by action and code. */
      const stored = async (): Promise<Map<string, { key: string; data: string }>> => {
        // PostgreSQL numbers (and moves into corral_changes) at publication: read it through the API.
        if (dialect === 'postgres') return new Map((await events()).map((event) => [`${event.action}:${String(event.data.code)}`, { key: JSON.stringify(event.key), data: JSON.stringify(event.data) }]));
        const rows = (await ctx.built.database.db.selectFrom('corral_changes').select(['action', 'key', 'data']).where('collection', '=', 'kinds').execute()) as {
          action: string;
          key: string;
          data: string;
        }[];
        return new Map(rows.map((row) => [`${row.action}:${String((JSON.parse(row.data) as { code: unknown }).code)}`, { key: String(row.key), data: String(row.data) }]));
      };
      /** The fast event's data text with the row's own id, code and timestamps swapped for the slow one's. */
      const asSlow = (fast: string, slow: string, fastCode: string, slowCode: string): string => {
        const f = JSON.parse(fast) as Record<string, unknown>;
        const t = JSON.parse(slow) as Record<string, unknown>;
        let text = fast.replace(`{"id":${JSON.stringify(f.id)},`, `{"id":${JSON.stringify(t.id)},`).replace(`"code":"${fastCode}"`, `"code":"${slowCode}"`);
        for (const name of ['createdAt', 'updatedAt']) text = text.replace(`"${name}":${JSON.stringify(f[name])}`, `"${name}":${JSON.stringify(t[name])}`);
        return text;
      };
      const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
        ['edge', EDGE, EDGE_CHANGED],
        ['nulls', {}, { s: null, b: null, j: null, dt: null }],
        ['plain', VALUES, CHANGED],
      ];
      for (const [name, values, changed] of cases) {
        const fast = await directOf(() => api.post('/api/kinds:create', { code: `${name}-fast`, ...values }));
        const slow = await inTransaction(() => api.post('/api/kinds:create', { code: `${name}-slow`, ...values }));
        expect(fast.value.status, fast.value.text).toBe(201);
        expect(slow.status, slow.text).toBe(201);
        expect(fast.direct).toBe(dialect === 'sqlite' ? 1 : 0);
        const fastUpdate = await directOf(() => api.put(`/api/kinds/${fast.value.body.data.id}`, changed));
        const slowUpdate = await inTransaction(() => api.put(`/api/kinds/${slow.body.data.id}`, changed));
        expect(fastUpdate.value.status, fastUpdate.value.text).toBe(200);
        expect(slowUpdate.status, slowUpdate.text).toBe(200);
        expect(fastUpdate.direct).toBe(dialect === 'sqlite' ? 1 : 0);
        const texts = await stored();
        for (const action of ['create', 'update']) {
          const f = texts.get(`${action}:${name}-fast`)!;
          const t = texts.get(`${action}:${name}-slow`)!;
          expect(f.key).toBe(JSON.stringify(JSON.parse(f.data).id));
          expect(t.key).toBe(JSON.stringify(JSON.parse(t.data).id));
          // PostgreSQL's fast path is the fused statement, whose texts parse the same but may differ in floats' exponents and json spacing (write-paths/postgres-fused.ts).
          if (dialect === 'postgres') expect(JSON.parse(asSlow(f.data, t.data, `${name}-fast`, `${name}-slow`))).toEqual(JSON.parse(t.data));
          else expect(asSlow(f.data, t.data, `${name}-fast`, `${name}-slow`)).toBe(t.data);
        }
      }
    });

    it('a failing flat write answers the same 4xx on both paths and leaves no row and no event', async () => {
      const seen = (await events()).length;
      const count = async (): Promise<number> => (await api.get('/api/kinds:count')).body.data;
      const rows = await count();
      const taken = { code: 'fast', ...VALUES };
      const duplicate = await api.post('/api/kinds:create', taken);
      const duplicateSlow = await inTransaction(() => api.post('/api/kinds:create', taken));
      expect(duplicate.status).toBe(409);
      expect(duplicate.body).toEqual(duplicateSlow.body);
      expect(duplicate.body.errors[0].code).toBe('UNIQUE_VIOLATION');

      const missing = await api.post('/api/kinds:create', { code: null, s: 'x' });
      const missingSlow = await inTransaction(() => api.post('/api/kinds:create', { code: null, s: 'x' }));
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual(missingSlow.body);

      const slowId = (await api.get('/api/kinds:list?filter=' + encodeURIComponent(JSON.stringify({ code: 'slow' })))).body.data[0].id;
      const before = (await api.get(`/api/kinds/${slowId}`)).body.data;
      const clash = await api.put(`/api/kinds/${slowId}`, { code: 'fast', s: 'changed' });
      const clashSlow = await inTransaction(() => api.put(`/api/kinds/${slowId}`, { code: 'fast', s: 'changed' }));
      expect(clash.status).toBe(409);
      expect(clash.body).toEqual(clashSlow.body);
      expect((await api.get(`/api/kinds/${slowId}`)).body.data).toEqual(before);

      expect(await count()).toBe(rows);
      expect((await events()).length).toBe(seen);
      // The counter gave nothing away: the next event follows the last one.
      const last = (await events()).at(-1)!.id;
      const next = await api.post('/api/kinds:create', { code: 'after-failures', ...VALUES });
      expect(next.status, next.text).toBe(201);
      const after = (await events()).at(-1)!;
      expect(after.key).toBe(next.body.data.id);
      expect(after.id).toBeGreaterThan(last);
      if (dialect !== 'postgres') expect(after.id).toBe(last + 1);
    });

    it('ids keep increasing after retention pruned every event (none is handed out twice)', async () => {
      const last = (await events()).at(-1)!.id;
      expect(await ctx.built.changes.prune(Date.now() + 365 * 24 * 3600 * 1000)).toBeGreaterThan(0);
      expect(await events()).toEqual([]);
      const fast = await api.post('/api/kinds:create', { code: 'after-prune', ...VALUES });
      const slow = await inTransaction(() => api.post('/api/kinds:create', { code: 'after-prune-2', ...VALUES }));
      expect(fast.status, fast.text).toBe(201);
      expect(slow.status, slow.text).toBe(201);
      const ids = (await events()).map((event) => event.id);
      expect(ids).toHaveLength(2);
      expect(ids[0]).toBeGreaterThan(last);
      expect(ids[1]).toBeGreaterThan(ids[0]!);
      if (dialect !== 'postgres') expect(ids).toEqual([last + 1, last + 2]);
    });

    it('after a partial prune, ids follow the highest remaining one on both paths (the pruned mark is not consulted)', async () => {
      const write = async (code: string, slow: boolean) => {
        const send = () => api.post('/api/kinds:create', { code, ...VALUES });
        const reply = slow ? await inTransaction(send) : await send();
        expect(reply.status, reply.text).toBe(201);
      };
      await write('old-fast', false);
      await write('old-slow', true);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const cutoff = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await write('kept-fast', false);
      await write('kept-slow', true);
      // Everything before `cutoff` goes: the two old events (and any left by earlier tests).
      expect(await ctx.built.changes.prune(cutoff + DEFAULT_CHANGES_RETENTION_MS)).toBeGreaterThanOrEqual(2);
      const kept = await events();
      expect(kept.map((event) => event.data.code)).toEqual(['kept-fast', 'kept-slow']);
      const last = kept.at(-1)!.id;
      await write('next-fast', false);
      await write('next-slow', true);
      const ids = (await events()).map((event) => event.id);
      expect(ids.slice(0, 2)).toEqual(kept.map((event) => event.id));
      expect(ids).toHaveLength(4);
      expect(ids[2]).toBeGreaterThan(last);
      expect(ids[3]).toBeGreaterThan(ids[2]!);
      if (dialect !== 'postgres') expect(ids.slice(2)).toEqual([last + 1, last + 2]);
    });

    it('flat writes concurrent with transactions all commit, each with one event, ids in order', async () => {
      const seen = (await events()).length;
      const singles = Array.from({ length: 24 }, (_, i) => api.post('/api/kinds:create', { code: `c${i}`, i }));
      const bulks = Array.from({ length: 6 }, (_, i) => api.post('/api/kinds:create', [{ code: `b${i}a` }, { code: `b${i}b` }]));
      const replies = await Promise.all([...singles, ...bulks]);
      for (const reply of replies) expect(reply.status, reply.text).toBe(201);
      const updates = await Promise.all(replies.slice(0, 24).map((reply, i) => api.put(`/api/kinds/${reply.body.data.id}`, { i: i + 100 })));
      for (const reply of updates) expect(reply.status, reply.text).toBe(200);
      const all = (await events()).slice(seen);
      expect(all).toHaveLength(24 + 12 + 24);
      const ids = all.map((event) => event.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    });
  });
}
