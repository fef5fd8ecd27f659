import http from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, ONCE_DIALECT, type TestDatabase } from '../support/test-database.js';
import { freshRequest, killAll, sleep, startCorral, waitFor, workerPids, type CorralProcess, type FreshAnswer } from './support.js';

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

type Answer = FreshAnswer;

/** One request on a new connection (so the primary hands it to the next worker), signed in as root unless `headers` are given. */
function fresh(proc: CorralProcess, method: string, path: string, body?: unknown, timeoutMs = FRESH_TIMEOUT_MS, headers?: Record<string, string>): Promise<Answer> {
  return freshRequest(proc, method, path, body, headers, timeoutMs);
}

/** One request on new connections until the given worker takes it (only for requests that change nothing when another one does). */
async function freshOn(proc: CorralProcess, worker: string, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const reply = await fresh(proc, method, path, body, FRESH_TIMEOUT_MS, headers);
    if (reply.worker === worker) return reply;
  }
  throw new Error(`no suitable worker answered ${method} ${path}`);
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
      const [a, b] = (await workerPids(proc, WORKERS, ALL_WORKERS_MS)) as [string, string];
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

describe.runIf(ONCE_DIALECT !== undefined)(`${WORKERS} workers sharing authentication (${ONCE_DIALECT})`, () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAll();
    await database?.drop();
  });

  it('create the root user and the secret once, accept each other\'s tokens, and revoke a signed-out token on all of them at once', async () => {
    database = await createTestDatabase(ONCE_DIALECT ?? 'sqlite');
    // No root password configured: the first start generates one and prints it once.
    const proc = await startCorral({ env: { DATABASE_URL: database.url, CORRAL_WORKERS: String(WORKERS), CORRAL_SCHEMA_POLL_MS: String(POLL_MS), CORRAL_ROOT_PASSWORD: '' } });
    const [a, b] = (await workerPids(proc, WORKERS, ALL_WORKERS_MS)) as [string, string];
    const printed = [...proc.stderr().matchAll(/created the root user (\S+) with the generated password (\S+)/g)];
    expect(printed.length, proc.stderr()).toBe(1);
    const [, account, password] = printed[0]!;

    const signIn = await freshOn(proc, a, 'POST', '/api/auth:signIn', { account, password }, {});
    expect(signIn.status, signIn.text).toBe(200);
    const bearer = { authorization: `Bearer ${signIn.body.data.token as string}` };
    // Signed by worker a, accepted by worker b: one secret, stored once.
    const onB = await freshOn(proc, b, 'GET', '/api/users:list', undefined, bearer);
    expect(onB.status, onB.text).toBe(200);
    expect(onB.body.data.map((user: { email: string }) => user.email)).toEqual([account]);

    // Signed out on one worker (the poll is a minute long): refused by both right away.
    const out = await fresh(proc, 'POST', '/api/auth:signOut', undefined, FRESH_TIMEOUT_MS, bearer);
    expect(out.status, out.text).toBe(200);
    for (const worker of [a, b]) {
      const refused = await freshOn(proc, worker, 'GET', '/api/auth:check', undefined, bearer);
      expect(refused.status, `${worker}: ${refused.text}`).toBe(401);
      expect(refused.body.errors[0].code).toBe('AUTH_INVALID_TOKEN');
    }
  });
});

describe.runIf(DIALECTS.includes('sqlite'))(`${WORKERS} workers on one SQLite file`, () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAll();
    await database?.drop();
  });

  it(`${WRITERS} concurrent writers: every write succeeds (writers wait for the lock, no SQLITE_BUSY), one event each with increasing ids`, async () => {
    database = await createTestDatabase('sqlite');
    const proc = await startCorral({ env: { DATABASE_URL: database.url, CORRAL_WORKERS: String(WORKERS) } });
    await workerPids(proc, WORKERS, ALL_WORKERS_MS);
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
    // One event per row written (create 1, bulk 2, update 1), ids unique and increasing across both workers.
    const ids: number[] = [];
    for (let after = 0; ; ) {
      const page = await proc.request('GET', `/api/changes:list?collection=tally&pageSize=500${after === 0 ? '' : `&after=${after}`}`);
      expect(page.status, page.text).toBe(200);
      ids.push(...page.body.data.map((event: { id: number }) => event.id));
      if (!page.body.meta.hasNext) break;
      after = ids.at(-1)!;
    }
    expect(ids).toHaveLength(WRITERS * WRITES_PER_WRITER * 4);
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
    expect((await proc.stop()).code).toBe(0);
  });

  it('SIGTERM drains every worker: lists in flight on each arrive whole, then exit 0', async () => {
    const ROWS = 10_000;
    database ??= await createTestDatabase('sqlite');
    const proc = await startCorral({ env: { DATABASE_URL: database.url, CORRAL_WORKERS: String(WORKERS) } });
    const pids = await workerPids(proc, WORKERS, ALL_WORKERS_MS);
    const created = await proc.request('POST', '/api/collections:create', { name: 'big', fields: [{ name: 'n', type: 'integer' }, { name: 'body', type: 'text' }] });
    expect(created.status, created.text).toBe(201);
    // About 12 MB per list: more than the kernel's socket buffers hold, so a worker cannot
    // finish writing before the test reads (on a quiet machine 2.6 MB could, and it exited early).
    const filler = 'lorem ipsum '.repeat(100);
    for (let start = 0; start < ROWS; start += 500) {
      const reply = await proc.request('POST', '/api/big:create', Array.from({ length: 500 }, (_, i) => ({ n: start + i, body: filler })));
      expect(reply.status, reply.text.slice(0, 300)).toBe(201);
    }
    await waitFor(async () => (await Promise.all([fresh(proc, 'GET', '/api/big:count'), fresh(proc, 'GET', '/api/big:count')])).every((r) => r.status === 200), 'collection on both workers', PROPAGATION_LIMIT_MS);

    // Streams in flight on both workers, read only after the signal.
    const streams: Array<{ worker: string; response: http.IncomingMessage }> = [];
    const headers = await proc.authHeaders();
    while (new Set(streams.map((s) => s.worker)).size < WORKERS && streams.length < 10) {
      const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
        http.get(`${proc.baseUrl}/api/big:list?paginate=false&sort=n`, { agent: false, headers }, resolve).on('error', reject);
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
    const [a, b] = (await workerPids(proc, WORKERS, ALL_WORKERS_MS)) as [string, string];
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
