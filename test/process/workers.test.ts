import http from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { killAll, sleep, startCorral, waitFor, type CorralProcess } from './support.js';

/**
 * Workers would reload the schema on this poll; it is long on purpose: a worker that is asked
 * for a name it does not know checks the schema version first, so a change made through the
 * other worker is usable at once, without waiting for a poll.
 */
const POLL_MS = 60_000;
/** A generous bound for both workers to answer a new collection (the machine is shared). */
const PROPAGATION_LIMIT_MS = 3000;
/** How long to wait until every worker has answered once. */
const ALL_WORKERS_MS = 20_000;
const WORKERS = 2;
const WRITERS = 50;
/** One request's limit, so a connection lost with a dying worker fails instead of hanging. */
const FRESH_TIMEOUT_MS = 10_000;
const WRITES_PER_WRITER = 4;

afterEach(killAll);
afterAll(killAll);

interface Answer {
  status: number;
  worker: string;
  body: any;
  text: string;
}

/**
 * One request on a new connection (no keep-alive), so the primary hands it to the next worker;
 * `worker` is the pid in the `x-corral-worker` header.
 */
function fresh(proc: CorralProcess, method: string, path: string, body?: unknown, timeoutMs = FRESH_TIMEOUT_MS): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      `${proc.baseUrl}${path}`,
      { method, agent: false, headers: payload === undefined ? {} : { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, worker: String(res.headers['x-corral-worker'] ?? ''), body: parsed, text });
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.end(payload);
  });
}

/** Waits until every worker has answered, and returns their pids. */
async function workerPids(proc: CorralProcess): Promise<string[]> {
  const seen = new Set<string>();
  await waitFor(
    async () => {
      const reply = await fresh(proc, 'GET', '/healthz').catch(() => undefined);
      if (reply?.status === 200 && reply.worker !== '') seen.add(reply.worker);
      return seen.size === WORKERS;
    },
    `${WORKERS} workers answering`,
    ALL_WORKERS_MS,
    20,
  );
  return [...seen];
}

/** A read answered by the given worker: sent on new connections until that one takes it. */
async function readOn(proc: CorralProcess, worker: string, path: string): Promise<Answer> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const reply = await fresh(proc, 'GET', path);
    if (reply.worker === worker) return reply;
  }
  throw new Error(`worker ${worker} never answered GET ${path}`);
}

function isRunning(pid: string): boolean {
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch {
    return false;
  }
}

for (const dialect of DIALECTS) {
  describe(`${WORKERS} workers on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    afterAll(async () => {
      await killAll();
      await database?.drop();
    });

    it('see each other’s writes and schema changes at once; SIGTERM stops them all', async () => {
      database = await createTestDatabase(dialect);
      const proc = await startCorral({ env: { DATABASE_URL: database.url, CORRAL_WORKERS: String(WORKERS), CORRAL_SCHEMA_POLL_MS: String(POLL_MS) } });
      const [a, b] = (await workerPids(proc)) as [string, string];
      expect(a).not.toBe(b);
      expect(a).not.toBe(String(proc.child.pid));

      // Writes go to whichever worker takes the connection; reads go to the other one.
      const other = (reply: Answer): string => (reply.worker === a ? b : a);

      // A collection created on one worker reaches the other.
      const created = await fresh(proc, 'POST', '/api/collections:create', { name: 'notes', fields: [{ name: 'title', type: 'string' }] });
      expect(created.status, created.text).toBe(201);
      const listed = await readOn(proc, other(created), '/api/notes:list');
      expect(listed.status, listed.text).toBe(200);

      // So does a field.
      const field = await fresh(proc, 'POST', '/api/collections/notes/fields:create', { name: 'views', type: 'integer' });
      expect(field.status, field.text).toBe(201);
      const byViews = '/api/notes:list?filter=' + encodeURIComponent('{"views":{"$gte":0}}');
      const filtered = await readOn(proc, other(field), byViews);
      expect(filtered.status, filtered.text).toBe(200);

      // Rows: written on one worker, read on the other right away.
      const row = await fresh(proc, 'POST', '/api/notes:create', { title: 'first', views: 1 });
      expect(row.status, row.text).toBe(201);
      const read = await readOn(proc, other(row), `/api/notes:get/${row.body.data.id}`);
      expect(read.status, read.text).toBe(200);
      expect(read.body.data).toMatchObject({ title: 'first', views: 1 });
      const updated = await fresh(proc, 'POST', `/api/notes:update/${row.body.data.id}`, { views: 2 });
      expect(updated.status, updated.text).toBe(200);
      const reread = await readOn(proc, other(updated), `/api/notes:get/${row.body.data.id}`);
      expect(reread.body.data).toMatchObject({ title: 'first', views: 2 });

      proc.child.kill('SIGTERM');
      const exit = await proc.exited;
      expect(exit, proc.stdout() + proc.stderr()).toEqual({ code: 0, signal: null });
      expect([a, b].filter(isRunning)).toEqual([]);
    });
  });
}

describe(`${WORKERS} workers on one SQLite file`, () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAll();
    await database?.drop();
  });

  it(`${WRITERS} concurrent writers: every write succeeds (writers wait for the lock, no SQLITE_BUSY)`, async () => {
    database = await createTestDatabase('sqlite');
    const proc = await startCorral({ env: { DATABASE_URL: database.url, CORRAL_WORKERS: String(WORKERS) } });
    await workerPids(proc);
    const created = await proc.request('POST', '/api/collections:create', { name: 'tally', fields: [{ name: 'writer', type: 'integer' }, { name: 'n', type: 'integer' }] });
    expect(created.status, created.text).toBe(201);
    await waitFor(async () => (await Promise.all([fresh(proc, 'GET', '/api/tally:list'), fresh(proc, 'GET', '/api/tally:list')])).every((r) => r.status === 200), 'collection on both workers', PROPAGATION_LIMIT_MS);

    const failures: string[] = [];
    const workers = new Set<string>();
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; i < WRITES_PER_WRITER; i++) {
        // A single insert, a transaction (bulk create), and an update, each on a new connection.
        const single = await fresh(proc, 'POST', '/api/tally:create', { writer: w, n: i });
        const bulk = await fresh(proc, 'POST', '/api/tally:create', [{ writer: w, n: i }, { writer: w, n: -i }]);
        const update = single.status === 201 ? await fresh(proc, 'POST', `/api/tally:update/${single.body.data.id}`, { n: i + 1000 }) : single;
        for (const [what, reply, status] of [['create', single, 201], ['bulk create', bulk, 201], ['update', update, 200]] as const) {
          workers.add(reply.worker);
          if (reply.status !== status) failures.push(`${what}: ${reply.status} ${reply.text.slice(0, 200)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    expect(failures).toEqual([]);
    expect(workers.size).toBe(WORKERS);
    const count = await proc.request('GET', '/api/tally:count');
    expect(count.body.data).toBe(WRITERS * WRITES_PER_WRITER * 3);
    expect((await proc.stop()).code).toBe(0);
  });

  it('SIGTERM drains every worker: lists in flight on each arrive whole, then exit 0', async () => {
    const ROWS = 10_000;
    database ??= await createTestDatabase('sqlite');
    const proc = await startCorral({ env: { DATABASE_URL: database.url, CORRAL_WORKERS: String(WORKERS) } });
    const pids = await workerPids(proc);
    const created = await proc.request('POST', '/api/collections:create', { name: 'big', fields: [{ name: 'n', type: 'integer' }, { name: 'body', type: 'text' }] });
    expect(created.status, created.text).toBe(201);
    const filler = 'lorem ipsum '.repeat(20);
    for (let start = 0; start < ROWS; start += 1000) {
      const reply = await proc.request('POST', '/api/big:create', Array.from({ length: 1000 }, (_, i) => ({ n: start + i, body: filler })));
      expect(reply.status, reply.text.slice(0, 300)).toBe(201);
    }
    await waitFor(async () => (await Promise.all([fresh(proc, 'GET', '/api/big:count'), fresh(proc, 'GET', '/api/big:count')])).every((r) => r.status === 200), 'collection on both workers', PROPAGATION_LIMIT_MS);

    // Streams in flight on both workers, read only after the signal.
    const streams: Array<{ worker: string; response: http.IncomingMessage }> = [];
    while (new Set(streams.map((s) => s.worker)).size < WORKERS && streams.length < 10) {
      const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
        http.get(`${proc.baseUrl}/api/big:list?paginate=false&sort=n`, { agent: false }, resolve).on('error', reject);
      });
      expect(response.statusCode).toBe(200);
      streams.push({ worker: String(response.headers['x-corral-worker']), response });
    }
    expect(new Set(streams.map((s) => s.worker))).toEqual(new Set(pids));
    proc.child.kill('SIGTERM');
    await sleep(300);
    expect(proc.hasExited()).toBe(false);
    for (const { response } of streams) {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: Array<{ n: number }> };
      expect(body.data).toHaveLength(ROWS);
      expect(body.data[ROWS - 1]).toMatchObject({ n: ROWS - 1 });
    }
    const exit = await proc.exited;
    expect(exit, proc.stdout() + proc.stderr()).toEqual({ code: 0, signal: null });
    expect(pids.filter(isRunning)).toEqual([]);
  });

  it('the primary starts a worker again when one dies', async () => {
    database ??= await createTestDatabase('sqlite');
    const proc = await startCorral({ env: { DATABASE_URL: database.url, CORRAL_WORKERS: String(WORKERS), LOG_LEVEL: 'warn' } });
    const [a, b] = (await workerPids(proc)) as [string, string];
    process.kill(Number(a), 'SIGKILL');
    const seen = new Set<string>();
    await waitFor(
      async () => {
        // A connection the primary handed to the worker as it died is lost: give up on it soon.
        const reply = await fresh(proc, 'GET', '/healthz', undefined, 1000).catch(() => undefined);
        if (reply?.status === 200) seen.add(reply.worker);
        return [...seen].some((pid) => pid !== a && pid !== b);
      },
      'a new worker',
      ALL_WORKERS_MS,
      20,
    );
    expect(proc.stdout()).toContain('exited unexpectedly (signal SIGKILL), starting it again');
    expect((await proc.stop()).code).toBe(0);
  });
});
