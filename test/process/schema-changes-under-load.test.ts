/**
 * Two Corral processes over one database; node A changes the schema (add,
 * rename, widen and drop a field; drop a collection) while node B serves reads and writes
 * under load. API.md section 12: a schema moved by another node never surfaces as 5xx.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { killAll, sleep, startCorral, type CorralProcess } from './support.js';

/** Concurrent clients on node B. */
const CLIENTS = 4;
/** Pause between two schema changes on A: long enough for B to serve the old schema meanwhile. */
const STEP_MS = 400;
/** Load keeps running this long after the last change (the default schema poll is 500 ms). */
const SETTLE_MS = 1200;

afterAll(killAll);

interface Failure {
  step: string;
  request: string;
  status: number;
  text: string;
}

const filter = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

/** The requests one client repeats; they name exactly the fields and collections that change. */
function requestsFor(client: number, round: number): Array<{ method: string; path: string; body?: unknown }> {
  const key = (round % 5) + 1;
  return [
    { method: 'GET', path: `/api/items:list?filter=${filter({ note: { $ne: null } })}&sort=-n&fields=id,title,note,n` },
    { method: 'POST', path: '/api/items', body: { title: `c${client}-${round}-${'t'.repeat(round % 60)}`, n: round, note: 'n', extra: round } },
    { method: 'PUT', path: `/api/items/${key}`, body: { note: `u${round}`, remark: `r${round}`, extra: 1 } },
    { method: 'GET', path: `/api/items:list?sort=extra&filter=${filter({ extra: { $gte: 0 } })}` },
    { method: 'GET', path: `/api/items:list?fields=remark,title&sort=-remark&pageSize=5` },
    { method: 'GET', path: `/api/items/${key}` },
    { method: 'POST', path: '/api/scratch', body: { title: `s${round}` } },
    { method: 'GET', path: `/api/scratch:list?sort=-id&pageSize=5` },
    { method: 'DELETE', path: `/api/scratch?filter=${filter({ title: `s${round - 1}` })}` },
    { method: 'GET', path: `/api/items:count?filter=${filter({ title: { $ne: 'x' } })}` },
  ];
}

const DIALECTS_HERE = DIALECTS.filter((d) => d !== 'sqlite');

// describe.runIf keeps one (skipped) suite in the file when no dialect applies, so vitest does not fail it.
describe.runIf(DIALECTS_HERE.length > 0)('needs PostgreSQL or MariaDB', () => {
  for (const dialect of DIALECTS_HERE) {
    describe(`schema changes on one node while another serves under load on ${dialect}`, () => {
      let database: TestDatabase | undefined;
      afterAll(async () => {
        await killAll();
        await database?.drop();
      });

      it('answers no request with 5xx on either node', async () => {
        database = await createTestDatabase(dialect);
        const env = { DATABASE_URL: database.url };
        const [a, b] = await Promise.all([startCorral({ env }), startCorral({ env })]);
        const must = async (proc: CorralProcess, method: string, path: string, body?: unknown): Promise<void> => {
          const reply = await proc.request(method, path, body);
          expect(reply.status, `${method} ${path}: ${reply.text}`).toBeLessThan(300);
        };
        await must(a, 'POST', '/api/collections:create', {
          name: 'items',
          fields: [{ name: 'title', type: 'string', length: 50 }, { name: 'n', type: 'integer' }, { name: 'note', type: 'string', length: 20 }],
        });
        await must(a, 'POST', '/api/collections:create', { name: 'scratch', fields: [{ name: 'title', type: 'string' }] });
        await must(a, 'POST', '/api/items', Array.from({ length: 5 }, (_, i) => ({ title: `seed ${i}`, n: i, note: 'seed' })));
        // B must serve both collections before the load starts.
        for (;;) {
          if ((await b.request('GET', '/api/scratch:list')).status === 200) break;
          await sleep(50);
        }

        let step = 'before any change';
        const failures: Failure[] = [];
        let sent = 0;
        let running = true;
        const client = async (id: number): Promise<void> => {
          for (let round = 0; running; round += 1) {
            for (const request of requestsFor(id, round)) {
              // Most load on B; some on A, which sees its own changes at once.
              const node = (round + id) % 4 === 0 ? a : b;
              const reply = await node.request(request.method, request.path, request.body);
              sent += 1;
              if (reply.status >= 500) failures.push({ step, request: `${node === a ? 'A' : 'B'} ${request.method} ${request.path}`, status: reply.status, text: reply.text.slice(0, 300) });
            }
          }
        };
        const clients = Array.from({ length: CLIENTS }, (_, id) => client(id));

        const changes: Array<[string, string, string, unknown?]> = [
          ['add field extra', 'POST', '/api/collections/items/fields', { name: 'extra', type: 'integer' }],
          ['rename note to remark', 'PUT', '/api/collections/items/fields/note', { name: 'remark' }],
          ['widen title to 200', 'PUT', '/api/collections/items/fields/title', { length: 200 }],
          ['drop field extra', 'DELETE', '/api/collections/items/fields/extra'],
          ['drop collection scratch', 'DELETE', '/api/collections/scratch'],
        ];
        for (const [name, method, path, body] of changes) {
          await sleep(STEP_MS);
          step = name;
          await must(a, method, path, body);
        }
        await sleep(SETTLE_MS);
        running = false;
        await Promise.all(clients);

        const bySteps = [...new Set(failures.map((f) => f.step))].map((s) => `${s}: ${failures.filter((f) => f.step === s).length}`);
        console.log(`[${dialect}] ${sent} requests under ${changes.length} schema changes, ${failures.length} answered 5xx${bySteps.length > 0 ? ` (${bySteps.join(', ')})` : ''}`);
        expect(failures.slice(0, 10)).toEqual([]);
        // B ends on the new schema.
        const fields = await b.request('GET', '/api/collections/items/fields');
        expect(fields.body.data.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['title', 'n', 'remark']));
        expect((await b.request('GET', '/api/scratch:list')).status).toBe(404);
        const exits = await Promise.all([a.stop(), b.stop()]);
        expect(exits.map((exit) => exit.code)).toEqual([0, 0]);
      }, 60_000);
    });
  }
});
