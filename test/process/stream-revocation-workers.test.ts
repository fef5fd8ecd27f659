/**
 * Revocation reaches the event streams of every worker (docs/events.md#revocation): with two
 * workers, a password change or a revoked grant served by one worker ends the caller's open
 * streams on both with `event: revoked`, and the tickets issued before are refused on both. The
 * schema poll is a minute long, so nothing below can come from a poll: the cluster's
 * invalidation carries it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseClient } from '../support/sse-client.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { freshRequest, killAll, requireBuild, startCorral, workerPids, type CorralProcess, type FreshAnswer } from './support.js';

const WORKERS = 2;
const POLL_MS = 60_000;
const WAIT_MS = 10_000;
/** Streams opened per user on fresh connections, enough for the primary to spread them over both workers. */
const STREAMS = 6;

afterAll(killAll);

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${WAIT_MS} ms`)), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function must(reply: Promise<FreshAnswer>, status: number): Promise<FreshAnswer> {
  const answer = await reply;
  expect(answer.status, answer.text).toBe(status);
  return answer;
}

interface WorkerCase {
  readonly name: string;
  readonly role: string;
  readonly revoke: (proc: CorralProcess, id: number) => Promise<FreshAnswer>;
  readonly ticketAnswer: readonly [number, string];
}

const CASES: readonly WorkerCase[] = [
  {
    name: 'a password change',
    role: 'repassworded',
    revoke: (proc, id) => freshRequest(proc, 'POST', `/api/users:update/${id}`, { password: 'a-changed-password' }),
    ticketAnswer: [401, 'STREAM_TICKET_REVOKED'],
  },
  {
    name: 'a revoked grant',
    role: 'ungranted',
    revoke: (proc) => freshRequest(proc, 'POST', '/api/roles:update/ungranted', { resources: [] }),
    ticketAnswer: [403, 'FORBIDDEN'],
  },
];

for (const dialect of DIALECTS) {
  describe(`${WORKERS} workers on ${dialect}: revocation ends the streams of both`, () => {
    let database: TestDatabase | undefined;
    let proc: CorralProcess;
    const ids: Record<string, number> = {};
    const tokens: Record<string, string> = {};
    const open: SseClient[] = [];

    beforeAll(async () => {
      requireBuild();
      database = await createTestDatabase(dialect);
      proc = await startCorral({ env: { DATABASE_URL: database.url, CORRAL_WORKERS: String(WORKERS), CORRAL_SCHEMA_POLL_MS: String(POLL_MS), CORRAL_CHANGES_POLL_MS: '50' }, timeoutMs: 30_000 });
      await workerPids(proc, WORKERS, 20_000);
      await must(freshRequest(proc, 'POST', '/api/collections:create', { name: 'notes', fields: [{ name: 'text', type: 'string' }] }), 201);
      for (const { role } of CASES) {
        await must(freshRequest(proc, 'POST', '/api/roles:create', { name: role, strategy: { actions: [] }, resources: [{ name: 'notes', actions: [{ name: 'view' }] }] }), 201);
        ids[role] = (await must(freshRequest(proc, 'POST', '/api/users:create', { email: `${role}@corral.test`, password: `${role}-password`, roles: [role] }), 201)).body.data.id as number;
        tokens[role] = (await must(freshRequest(proc, 'POST', '/api/auth:signIn', { account: `${role}@corral.test`, password: `${role}-password` }, {}), 200)).body.data.token as string;
      }
    }, 120_000);

    afterAll(async () => {
      for (const client of open) client.close();
      await killAll();
      await database?.drop();
    });

    for (const testCase of CASES) {
      it(`${testCase.name} served by one worker ends the open streams on both, and refuses the tickets issued before on both`, async () => {
        const headers = { authorization: `Bearer ${tokens[testCase.role]!}` };
        const tickets: string[] = [];
        for (let n = 0; n < STREAMS; n++) tickets.push(encodeURIComponent((await must(freshRequest(proc, 'POST', '/api/notes:subscribe', undefined, headers), 200)).body.data.ticket as string));
        const streams: SseClient[] = [];
        for (let n = 0; n < STREAMS; n++) {
          const client = openSse(`${proc.baseUrl}/api/notes:subscribe`, { ...headers, connection: 'close' });
          open.push(client);
          streams.push(client);
          expect(await within(client.status, 'stream answer'), await client.text).toBe(200);
        }
        const workers = new Set(await Promise.all(streams.map((client) => client.worker)));
        expect(workers.size).toBe(WORKERS);
        // Every stream delivers before the change.
        const before = (await must(freshRequest(proc, 'POST', '/api/notes:create', { text: 'before' }), 201)).body.data.id as number;
        await within(Promise.all(streams.map((client) => client.waitFor(1, WAIT_MS))), 'the event before');
        for (const client of streams) expect(client.events[0]!.data.key).toBe(before);

        const changed = await testCase.revoke(proc, ids[testCase.role]!);
        expect(changed.status, changed.text).toBe(200);
        const after = (await must(freshRequest(proc, 'POST', '/api/notes:create', { text: 'after' }), 201)).body.data.id as number;
        await within(Promise.all(streams.map((client) => client.ended)), 'the end of every stream');
        for (const client of streams) {
          expect(client.events.map((event) => event.event)).toEqual(['create', 'revoked']);
          expect(client.events[1]!.data.errors[0].code).toBe('STREAM_REVOKED');
          expect(client.events.some((event) => event.data.key === after)).toBe(false);
        }
        const refused = await Promise.all(tickets.map((ticket) => freshRequest(proc, 'GET', `/api/notes:subscribe?ticket=${ticket}`, undefined, {})));
        expect(new Set(refused.map((answer) => answer.worker)).size).toBe(WORKERS);
        for (const answer of refused) expect([answer.status, answer.body?.errors?.[0]?.code], answer.text).toEqual(testCase.ticketAnswer);
      }, 60_000);
    }
  });
}
