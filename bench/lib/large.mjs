// @ts-check
// `--large`: issue 28's questions on a table of 1,000,000 posts (--quick: 20,000), seeded in SQL
// (bench/lib/large-data.mjs). Each question: one request to Corral (and to the baseline where it
// has the question; their rows must agree), then a short warm-up and measured runs at 2
// connections, one server after the other: the server's CPU per request, on PostgreSQL the
// CPU of the database's backends per request, p50 and p99. A question Corral answers with a
// non-2xx status (a parameter it does not know, a page it refuses) is reported with that status
// and its error code, not measured.
import { isDeepStrictEqual } from 'node:util';
import { LARGE_SCENARIOS } from '../scenarios.mjs';
import { random } from '../seed.mjs';
import { describeAnswer } from './answers.mjs';
import { headersFor } from './auth.mjs';
import { fail, log, settings } from './config.mjs';
import { cpuClock, cpuSupported, processTree } from './cpu.mjs';
import { databaseClock } from './database-cpu.mjs';
import { createDatabase } from './databases.mjs';
import { fillLarge, seedLargeSchema } from './large-data.mjs';
import { load } from './load.mjs';
import { request } from './proc.mjs';
import { median } from './rounds.mjs';
import { startBaseline, startCorral } from './servers.mjs';

/** @typedef {import('./types.mjs').Scenario} Scenario */
/** @typedef {import('./types.mjs').Server} Server */

/**
 * One question on one database: `[Corral, baseline]` pairs (null where the baseline lacks the
 * question or a figure was not measured).
 * @typedef {object} LargeRow
 * @property {import('./types.mjs').DatabaseKind} database
 * @property {number} posts
 * @property {number} seedMs
 * @property {string} scenario
 * @property {string} question
 * @property {(number | null)[]} status the answer's HTTP status
 * @property {(string | null)[]} answer what came back (`20 rows, count 1000000`, `400 PAGE_TOO_DEEP`, …)
 * @property {(number | null)[]} cpuUs the server's CPU per request (µs), medians over the rounds
 * @property {(number | null)[]} dbCpuUs PostgreSQL: its backends' CPU per request (µs)
 * @property {(number | null)[]} p50Ms
 * @property {(number | null)[]} p99Ms
 * @property {(number | null)[]} rps
 * @property {(number | null)[]} requests responses in a measured window (median)
 * @property {object[]} rounds every measured run
 */

/** The run's `--large` settings. */
const large = () => settings.large ?? fail('--large: no settings');
/** @param {number} status */
const ok = (status) => status >= 200 && status < 300;
/** @param {number} ms */
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whatever is still in flight ends before the next run (on SQLite it holds the event loop).
 * @param {Server} server
 */
async function drain(server) {
  await request(server.url, 'GET', '/healthz');
  await pause(200);
}

/**
 * A slow question (fewer responses than this in a timed window at its warm-up rate) is measured
 * over a counted window instead: from one response to the `n`-th after it, so the work in flight
 * at both ends is alike (two connections busy) and CPU ÷ responses is not skewed by a window
 * edge cutting a second-long request; at least SLOW_WINDOW responses.
 */
const SLOW_RESPONSES = 20;
const SLOW_WINDOW = 6;

/**
 * How a run of a question is measured: a timed window, or a counted one for a slow question.
 * @param {Scenario} scenario
 * @param {number | null} rate responses per second in the warm-up
 * @returns {{ settle: number, seconds: number } | { settleRequests: number, windowRequests: number }}
 */
export function largeWindow(scenario, rate) {
  const { settle, seconds } = large();
  if (scenario.stall !== undefined || rate === null || rate * seconds >= SLOW_RESPONSES) return { settle, seconds };
  return { settleRequests: scenario.connections ?? 2, windowRequests: Math.max(SLOW_WINDOW, Math.round(rate * seconds)) };
}

/**
 * One measured run of a question on a server, with its heavy neighbours if it has them.
 * @param {Server} server
 * @param {Scenario} scenario
 * @param {() => number} rand
 * @param {number} posts
 * @param {number | null} rate responses per second in the warm-up
 */
async function measureLarge(server, scenario, rand, posts, rate) {
  const { settle, seconds } = large();
  const own = cpuClock(processTree(server.pid));
  // Read at the window's two ends, in the same moment as the server's clock.
  const database = await databaseClock(server.database);
  /** @type {number[]} */
  const databaseNs = [];
  const clock = {
    read: () => {
      if (database !== null) databaseNs.push(database.read());
      return own.read();
    },
  };
  const stall = scenario.stall === undefined ? undefined : load(server, scenario.stall, { seconds: settle + seconds }, random(5), posts);
  const loaded = await load(server, scenario, { ...largeWindow(scenario, rate), clock }, rand, posts);
  await stall;
  await drain(server);
  const per = (/** @type {number | undefined} */ ns) => (ns === undefined || loaded.requests === 0 || scenario.stall !== undefined ? null : ns / 1000 / loaded.requests);
  const [first, last] = databaseNs;
  return {
    cpuUs: cpuSupported ? per(loaded.windowCpuNs) : null,
    dbCpuUs: first === undefined || last === undefined ? null : per(last - first),
    p50: loaded.p50,
    p99: loaded.p99,
    rps: loaded.rps,
    requests: loaded.requests,
  };
}

/**
 * One question: the answers first, then warm-up and rounds on each server that answers it.
 * @param {Scenario} scenario
 * @param {Server} corral
 * @param {Server | undefined} baseline
 * @param {{ kind: import('./types.mjs').DatabaseKind, posts: number, seedMs: number }} where
 * @returns {Promise<LargeRow>}
 */
async function largeQuestion(scenario, corral, baseline, { kind, posts, seedMs }) {
  const fixed = { int: () => 7, posts, postId: () => 42, authorId: () => 3 };
  const { method, path, body } = scenario.request(fixed);
  const replies = [await request(corral.url, method, path, body, headersFor(scenario))];
  if (scenario.baseline === true && baseline !== undefined) replies.push(await request(baseline.url, method, path, body, headersFor(scenario)));
  const [mine, theirs] = replies;
  // The same rows (the meta may differ: an estimated count, a cursor's nonce).
  if (theirs !== undefined && ok(mine.status) && ok(theirs.status) && !isDeepStrictEqual(mine.body?.data, theirs.body?.data)) {
    fail(`--large ${scenario.name}: ${method} ${path}: the rows differ\nCorral:   ${mine.text.slice(0, 600)}\nbaseline: ${theirs.text.slice(0, 600)}`);
  }
  /** @type {Server[]} */
  const servers = [];
  for (const [i, server] of [corral, baseline].entries()) if (server !== undefined && replies[i] !== undefined && ok(replies[i].status)) servers.push(server);
  const answers = replies.map(describeAnswer);
  log(`${kind} ${posts} posts, ${scenario.name}: ${answers.join(' / ')}${servers.length === 0 ? ' (not measured)' : ''}`);
  /** @type {Map<Server, ReturnType<typeof measureLarge> extends Promise<infer T> ? T[] : never>} */
  const runs = new Map();
  /** @type {Map<Server, number>} */
  const rates = new Map();
  for (const server of servers) {
    rates.set(server, (await load(server, scenario, { requests: large().warmup, maxSeconds: large().warmupSeconds }, random(99), posts)).rps);
    await drain(server);
    runs.set(server, []);
  }
  const rand = random(1234);
  for (let round = 1; round <= large().rounds; round++) {
    for (const [server, list] of runs) {
      const run = await measureLarge(server, scenario, rand, posts, rates.get(server) ?? null);
      list.push(run);
      const ms = (/** @type {number | null} */ us) => (us === null ? '-' : (us / 1000).toFixed(2));
      log(`${kind} ${posts} posts, ${scenario.name} round ${round}: ${server.name} ${run.requests} responses, CPU ${ms(run.cpuUs)} ms/req${run.dbCpuUs === null ? '' : ` + database ${ms(run.dbCpuUs)} ms/req`}, p50 ${run.p50} ms, p99 ${run.p99} ms`);
    }
  }
  /** @param {'cpuUs' | 'dbCpuUs' | 'p50' | 'p99' | 'rps' | 'requests'} field */
  const medians = (field) => [corral, baseline].map((server) => {
    const list = server === undefined ? undefined : runs.get(server);
    const value = list === undefined ? null : median(list.map((run) => run[field]));
    return value === null ? null : Math.round(value * 10) / 10;
  });
  return {
    database: kind,
    posts,
    seedMs,
    scenario: scenario.name,
    question: scenario.question ?? scenario.name,
    status: [replies[0].status, replies[1]?.status ?? null],
    answer: [answers[0], answers[1] ?? null],
    cpuUs: medians('cpuUs'),
    dbCpuUs: medians('dbCpuUs'),
    p50Ms: medians('p50'),
    p99Ms: medians('p99'),
    rps: medians('rps'),
    requests: medians('requests'),
    rounds: [...runs].map(([server, list]) => ({ server: server.name, runs: list })),
  };
}

/**
 * `--large` on one database: the data, both servers, every selected question.
 * @param {import('./types.mjs').DatabaseKind} kind
 * @returns {Promise<LargeRow[]>}
 */
export async function benchLarge(kind) {
  const posts = large().posts;
  const database = await createDatabase(kind, 'large');
  const seeder = await startCorral(database);
  await seedLargeSchema(seeder.url);
  await seeder.stop();
  log(`${kind}: inserting ${posts} posts, their search tokens and the (status, views) index directly in SQL`);
  const began = performance.now();
  await fillLarge(database, posts);
  const seedMs = Math.round(performance.now() - began);
  log(`${kind}: seeded in ${seedMs} ms`);
  const questions = largeQuestions();
  const corral = await startCorral(database);
  const baseline = questions.some((q) => q.baseline === true) ? await startBaseline(database) : undefined;
  /** @type {LargeRow[]} */
  const rows = [];
  try {
    for (const scenario of questions) rows.push(await largeQuestion(scenario, corral, baseline, { kind, posts, seedMs }));
  } finally {
    await corral.stop();
    await baseline?.stop();
  }
  return rows;
}

/** The questions of the run: all, or those `--only` names. */
function largeQuestions() {
  const only = large().only;
  if (only === undefined) return LARGE_SCENARIOS;
  return only.map((name) => LARGE_SCENARIOS.find((s) => s.name === name) ?? fail(`--only: no --large question ${name} (${LARGE_SCENARIOS.map((s) => s.name).join(', ')})`));
}
