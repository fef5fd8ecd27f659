/**
 * kill -9 while clients write concurrently, on every dialect: every write Corral acknowledged
 * (2xx) is present after a restart, and the SQLite file passes `pragma integrity_check`.
 */
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { killAll, sleep, startCorral, type CorralProcess } from './support.js';

/** Concurrent clients writing until the kill. */
const WRITERS = 6;
/** How long the writers run before SIGKILL. */
const WRITE_WINDOW_MS = 1500;
/** Items in each bulk create. */
const BULK_SIZE = 5;
const PAGE_SIZE = 1000;

afterAll(killAll);

/** Writes until the process dies; returns the marks of every acknowledged row. */
async function writer(proc: CorralProcess, id: number, stop: { done: boolean }): Promise<string[]> {
  const acknowledged: string[] = [];
  for (let n = 0; !stop.done; n += 1) {
    const bulk = n % 3 === 2;
    const marks = bulk ? Array.from({ length: BULK_SIZE }, (_, i) => `w${id}-${n}-${i}`) : [`w${id}-${n}`];
    const body = bulk ? marks.map((mark) => ({ mark, n })) : { mark: marks[0], n };
    try {
      const response = await fetch(`${proc.baseUrl}/api/writes:create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(5000),
      });
      await response.arrayBuffer();
      if (response.status === 201) acknowledged.push(...marks);
    } catch {
      // The connection died with the process: this write was never acknowledged.
      return acknowledged;
    }
  }
  return acknowledged;
}

async function storedMarks(proc: CorralProcess): Promise<Set<string>> {
  const marks = new Set<string>();
  for (let page = 1; ; page += 1) {
    const reply = await proc.request('GET', `/api/writes:list?fields=mark&sort=id&pageSize=${PAGE_SIZE}&page=${page}`);
    expect(reply.status, reply.text).toBe(200);
    for (const row of reply.body.data as Array<{ mark: string }>) marks.add(row.mark);
    if (reply.body.data.length < PAGE_SIZE) return marks;
  }
}

for (const dialect of DIALECTS) {
  describe(`kill -9 under concurrent writes on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    afterAll(async () => {
      await killAll();
      await database?.drop();
    });

    it('keeps every acknowledged write and a consistent database', async () => {
      database = await createTestDatabase(dialect);
      const env = { DATABASE_URL: database.url };
      const first = await startCorral({ env });
      const created = await first.request('POST', '/api/collections:create', {
        name: 'writes',
        fields: [{ name: 'mark', type: 'string', unique: true }, { name: 'n', type: 'integer' }],
      });
      expect(created.status, created.text).toBe(201);

      const stop = { done: false };
      const writers = Array.from({ length: WRITERS }, (_, id) => writer(first, id, stop));
      await sleep(WRITE_WINDOW_MS);
      await first.kill();
      stop.done = true;
      const acknowledged = (await Promise.all(writers)).flat();
      expect(acknowledged.length).toBeGreaterThan(0);

      if (database.config.dialect === 'sqlite') {
        const file = new Database(database.config.file);
        try {
          expect(file.pragma('integrity_check', { simple: true })).toBe('ok');
        } finally {
          file.close();
        }
      }

      const second = await startCorral({ env });
      const stored = await storedMarks(second);
      const lost = acknowledged.filter((mark) => !stored.has(mark));
      console.log(`[${dialect}] ${acknowledged.length} acknowledged writes before kill -9, ${stored.size} rows stored, ${lost.length} lost`);
      expect(lost).toEqual([]);
      expect((await second.stop()).code).toBe(0);
    });
  });
}
