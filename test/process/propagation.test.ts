/**
 * A change of grants, users, roles or the schema is in force on every worker of a node before
 * it is acknowledged (docs/auth.md#propagation), and on another PostgreSQL node through NOTIFY.
 * The schema poll is a minute long here, so no answer below can come from a poll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { freshRequest, killAll, startCorral, waitFor, workerPids, type CorralProcess, type FreshAnswer } from './support.js';

const WORKERS = 2;
const POLL_MS = 60_000;
/** Requests on fresh connections after each acknowledged change. */
const PROBES = 50;
/** Sent this many at a time, so the primary spreads them over both workers. */
const PROBE_BATCH = 10;
const ALL_WORKERS_MS = 20_000;

afterAll(killAll);


/** `count` requests on fresh connections, PROBE_BATCH at a time. */
async function probe(count: number, send: () => Promise<FreshAnswer>): Promise<FreshAnswer[]> {
  const answers: FreshAnswer[] = [];
  while (answers.length < count) answers.push(...(await Promise.all(Array.from({ length: Math.min(PROBE_BATCH, count - answers.length) }, send))));
  return answers;
}

/** Sends on fresh connections until every worker answered 200 once (so each has the caller's user and roles cached). */
async function warm(proc: CorralProcess, path: string, headers: Record<string, string>, pids: string[]): Promise<void> {
  const warmed = new Set<string>();
  for (let attempt = 0; warmed.size < pids.length && attempt < 50; attempt++) {
    const reply = await freshRequest(proc, 'GET', path, undefined, headers);
    expect(reply.status, reply.text).toBe(200);
    warmed.add(reply.worker);
  }
  expect([...warmed].sort()).toEqual([...pids].sort());
}

const PAPERS = [
  { title: 'a1', tag: 'a', secret: 's1' },
  { title: 'a2', tag: 'a', secret: 's2' },
  { title: 'b1', tag: 'b', secret: 's3' },
];
const READ_ALL = [{ name: 'papers', actions: [{ name: 'view' }] }];

interface StaleCase {
  name: string;
  /** The role and user the case owns (each case its own, so the cases stay independent). */
  role: string;
  change: (proc: CorralProcess, ids: Record<string, number>) => Promise<FreshAnswer>;
  /** Whether an answer to `GET /api/papers:list` by the case's user shows the state before the change. */
  stale: (answer: FreshAnswer) => boolean;
}

const CASES: StaleCase[] = [
  {
    name: 'a grant narrowed to one tag and two fields: no row outside the filter, no field outside the list',
    role: 'narrowed',
    change: (proc) => freshRequest(proc, 'POST', '/api/roles/narrowed/resources:update/papers', { actions: [{ name: 'view', filter: { tag: 'a' }, fields: ['id', 'title'] }] }),
    stale: (answer) => answer.status !== 200 || answer.body.data.length !== 2 || answer.body.data.some((row: Record<string, unknown>) => 'secret' in row || 'tag' in row),
  },
  {
    name: 'a deleted user: its token is refused (401)',
    role: 'deleted',
    change: (proc, ids) => freshRequest(proc, 'POST', `/api/users:destroy/${ids.deleted}`),
    stale: (answer) => answer.status !== 401,
  },
  {
    // The token named the role: taking it away revokes the token (docs/auth.md "Tokens").
    name: 'a role taken from the user: its token is refused (401)',
    role: 'unroled',
    change: (proc, ids) => freshRequest(proc, 'POST', `/api/users:update/${ids.unroled}`, { roles: [] }),
    stale: (answer) => answer.status !== 401,
  },
  {
    name: 'a changed password: the tokens signed before it are refused (401)',
    role: 'repassworded',
    change: (proc, ids) => freshRequest(proc, 'POST', `/api/users:update/${ids.repassworded}`, { password: 'a-new-password-1' }),
    stale: (answer) => answer.status !== 401,
  },
  {
    name: 'a role deleted: its users are refused (403)',
    role: 'removed',
    change: (proc) => freshRequest(proc, 'POST', '/api/roles:destroy/removed'),
    stale: (answer) => answer.status !== 403,
  },
];

for (const dialect of DIALECTS) {
  describe(`${WORKERS} workers on ${dialect}: a change is in force on both before it is acknowledged`, () => {
    let database: TestDatabase | undefined;
    let proc: CorralProcess;
    let pids: string[];
    const ids: Record<string, number> = {};
    const tokens: Record<string, string> = {};

    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      proc = await startCorral({ env: { DATABASE_URL: database.url, CORRAL_WORKERS: String(WORKERS), CORRAL_SCHEMA_POLL_MS: String(POLL_MS) }, timeoutMs: 30_000 });
      pids = await workerPids(proc, WORKERS, ALL_WORKERS_MS);
      const must = async (reply: Promise<FreshAnswer>, status: number): Promise<FreshAnswer> => {
        const answer = await reply;
        expect(answer.status, answer.text).toBe(status);
        return answer;
      };
      await must(freshRequest(proc, 'POST', '/api/collections:create', { name: 'papers', fields: [{ name: 'title', type: 'string' }, { name: 'tag', type: 'string' }, { name: 'secret', type: 'string' }] }), 201);
      await must(freshRequest(proc, 'POST', '/api/papers:create', PAPERS), 201);
      for (const { role } of CASES) {
        await must(freshRequest(proc, 'POST', '/api/roles:create', { name: role, strategy: { actions: [] }, resources: READ_ALL }), 201);
        const user = await must(freshRequest(proc, 'POST', '/api/users:create', { email: `${role}@corral.test`, password: `${role}-password`, roles: [role] }), 201);
        ids[role] = user.body.data.id as number;
        const signedIn = await must(freshRequest(proc, 'POST', '/api/auth:signIn', { account: `${role}@corral.test`, password: `${role}-password` }, {}), 200);
        tokens[role] = signedIn.body.data.token as string;
      }
    }, 120_000);

    afterAll(async () => {
      await killAll();
      await database?.drop();
    });

    for (const testCase of CASES) {
      it(`${testCase.name}: ${PROBES} requests on fresh connections right after the answer, none stale, on both workers`, async () => {
        const headers = { authorization: `Bearer ${tokens[testCase.role]!}` };
        await warm(proc, '/api/papers:list', headers, pids);
        const changed = await testCase.change(proc, ids);
        expect(changed.status, changed.text).toBeLessThan(300);
        const answers = await probe(PROBES, () => freshRequest(proc, 'GET', '/api/papers:list', undefined, headers));
        const stale = answers.filter(testCase.stale);
        expect(stale.map((answer) => `${answer.worker}: ${answer.status} ${answer.text.slice(0, 200)}`)).toEqual([]);
        expect(new Set(answers.map((answer) => answer.worker)).size).toBe(WORKERS);
      }, 60_000);
    }

    it('/api/openapi.json on either worker describes a field right after its creation was acknowledged', async () => {
      const created = await freshRequest(proc, 'POST', '/api/collections/papers/fields:create', { name: 'summary', type: 'text' });
      expect(created.status, created.text).toBe(201);
      const answers = await probe(PROBES / 5, () => freshRequest(proc, 'GET', '/api/openapi.json'));
      const missing = answers.filter((answer) => answer.status !== 200 || answer.body.components.schemas.papers.properties.summary === undefined);
      expect(missing.map((answer) => `${answer.worker}: ${answer.status}`)).toEqual([]);
      expect(new Set(answers.map((answer) => answer.worker)).size).toBe(WORKERS);
    }, 60_000);

    it('40 parallel creates right after schema changes all answer 201 on both workers (none 404 COLLECTION_NOT_FOUND)', async () => {
      for (const [method, path, body] of [
        ['POST', '/api/collections:create', { name: 'burst', fields: [{ name: 'n', type: 'integer' }] }],
        ['POST', '/api/collections/burst/fields:create', { name: 'label', type: 'string' }],
        ['POST', '/api/collections:create', { name: 'burst_two', fields: [{ name: 'n', type: 'integer' }] }],
      ] as const) {
        const reply = await freshRequest(proc, method, path, body);
        expect(reply.status, reply.text).toBe(201);
      }
      const answers = await Promise.all(Array.from({ length: 40 }, (_, n) => freshRequest(proc, 'POST', n % 2 === 0 ? '/api/burst:create' : '/api/burst_two:create', { n })));
      expect(answers.filter((answer) => answer.status !== 201).map((answer) => `${answer.worker}: ${answer.status} ${answer.text.slice(0, 200)}`)).toEqual([]);
      expect(new Set(answers.map((answer) => answer.worker)).size).toBe(WORKERS);
    }, 60_000);
  });
}

describe('two Corral nodes on one PostgreSQL database', () => {
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await killAll();
    await database?.drop();
  });

  it.runIf(DIALECTS.includes('postgres'))('a narrowed grant reaches the other node through NOTIFY: it drops its caches, and the next request there is refused (the window is printed)', async () => {
    database = await createTestDatabase('postgres');
    const env = { DATABASE_URL: database.url, CORRAL_SCHEMA_POLL_MS: String(POLL_MS) };
    const a = await startCorral({ env });
    // B logs at info: the line saying it dropped its caches on a NOTIFY is the mechanism under test.
    const b = await startCorral({ env: { ...env, LOG_LEVEL: 'info' } });
    for (const [path, body] of [
      ['/api/collections:create', { name: 'papers', fields: [{ name: 'title', type: 'string' }, { name: 'tag', type: 'string' }] }],
      ['/api/papers:create', [{ title: 'a1', tag: 'a' }, { title: 'b1', tag: 'b' }]],
      ['/api/roles:create', { name: 'reader', strategy: { actions: [] }, resources: READ_ALL }],
      ['/api/users:create', { email: 'reader@corral.test', password: 'reader-password', roles: ['reader'] }],
    ] as const) {
      const reply = await a.request('POST', path, body);
      expect(reply.status, reply.text).toBe(201);
    }
    const signedIn = await b.request('POST', '/api/auth:signIn', { account: 'reader@corral.test', password: 'reader-password' });
    expect(signedIn.status, signedIn.text).toBe(200);
    const headers = { authorization: `Bearer ${signedIn.body.data.token as string}` };
    const rowsOnB = async (): Promise<number> => {
      const reply = await freshRequest(b, 'GET', '/api/papers:list', undefined, headers);
      expect(reply.status, reply.text).toBe(200);
      return reply.body.data.length as number;
    };
    // B has the user and the role cached (read within their 1 s lifetime).
    expect(await rowsOnB()).toBe(2);
    const logged = (): number => b.stdout().split('\n').filter((line) => line.includes('dropped caches on a NOTIFY from another node')).length;
    const before = logged();

    const narrowed = await a.request('POST', '/api/roles/reader/resources:update/papers', { actions: [{ name: 'view', filter: { tag: 'a' } }] });
    expect(narrowed.status, narrowed.text).toBe(200);
    const acknowledged = performance.now();
    const windowMs = await waitFor(async () => (await rowsOnB()) === 1, 'the narrowed grant enforced on node B', 5000, 5);
    await waitFor(async () => logged() > before, 'node B logging the NOTIFY', 5000, 5);
    // Once B says it dropped its caches, every request there is answered under the new grant.
    for (let i = 0; i < 5; i++) expect(await rowsOnB()).toBe(1);
    console.log(`[postgres] a narrowed grant acknowledged by node A was enforced by node B after ${windowMs.toFixed(0)} ms (${(performance.now() - acknowledged).toFixed(0)} ms including the checks)`);
  }, 90_000);
});
