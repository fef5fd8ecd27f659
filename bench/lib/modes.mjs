// @ts-check
// The three ways a round measures a scenario's servers: all at once on CPU time (paired), one
// after the other on CPU time (writes in alternating order, a counted window each), or one
// after the other under callgrind, in instructions (--instructions); and the warm-ups and
// resets they share.
import { instructionWindow } from './callgrind.mjs';
import { fail, log, SERVER_HOST, settings, tempDir } from './config.mjs';
import { cpuClock, cpuSupported, cpuWindow, perfWindow, processTree } from './cpu.mjs';
import { resetPosts } from './databases.mjs';
import { COUNTED_WINDOW_MAX_SECONDS, load, mutates } from './load.mjs';
import { sampleRss } from './proc.mjs';
import { roundOrder } from './rounds.mjs';
import { random } from '../seed.mjs';

/** @typedef {import('./types.mjs').Measured} Measured */
/** @typedef {import('./types.mjs').Scenario} Scenario */
/** @typedef {import('./types.mjs').Server} Server */

/**
 * One measured run: the server's CPU time (and instructions) over exactly the load's window.
 * @param {Server} server
 * @param {Scenario} scenario
 * @param {() => number} rand
 * @param {number} posts
 * @param {{ settleRequests: number, windowRequests: number }} [writeSize] a counted window (sequential writes)
 * @returns {Promise<Measured>}
 */
export async function measure(server, scenario, rand, posts, writeSize) {
  if (writeSize !== undefined) await resetForWrites([server]);
  const pids = processTree(server.pid);
  const rss = sampleRss(server.pid);
  const perf = perfWindow(pids);
  const cpu = cpuWindow(pids);
  const clock = cpuClock(pids);
  const length = writeSize === undefined ? { settle: settings.settle, seconds: scenario.seconds ?? settings.duration, clock } : { ...writeSize, clock };
  const loaded = await load(server, scenario, length, rand, posts);
  const cpuSeconds = cpu.stop();
  const instructions = await perf.stop();
  /** @type {Measured} */
  const result = Object.assign(loaded, {
    peakRss: rss.stop(),
    // The headline: CPU over the measured window ÷ the responses within it.
    cpuUs: cpuSupported && loaded.requests > 0 ? Number(loaded.windowCpuNs) / 1000 / loaded.requests : null,
    // The former measure, for comparison: clock ticks over the whole load ÷ all its responses.
    cpuUsWholeRun: cpuSupported && loaded.totalRequests > 0 ? (cpuSeconds * 1e6) / loaded.totalRequests : null,
    // perf runs over the whole load (it takes a moment to attach), so divide by all its responses.
    instructions: instructions === null || loaded.totalRequests === 0 ? null : instructions / loaded.totalRequests,
  });
  return result;
}

/**
 * One measured run under --instructions: the server's instructions over exactly `requests`
 * responses (a load of that many, nothing else reaching the server while its window is open),
 * divided by them. A write scenario's table is reset first, as in every write run.
 * @param {Server} server
 * @param {Scenario} scenario
 * @param {() => number} rand
 * @param {number} posts
 * @param {number} requests
 * @returns {Promise<Measured>}
 */
export async function measureInstructions(server, scenario, rand, posts, requests) {
  if (mutates(scenario)) await resetForWrites([server]);
  // Uninstrumented first, a few requests per connection: the server's database pool opens again
  // what it closed while the other servers ran (pg closes a connection idle for 10 s; a
  // PostgreSQL handshake is millions of instructions in node), outside the window.
  await load(server, scenario, { requests: INSTRUCTION_SETTLE_PER_CONNECTION * settings.connections, maxSeconds: COUNTED_WINDOW_MAX_SECONDS }, rand, posts);
  const window = await instructionWindow(server.pid, tempDir, SERVER_HOST);
  /** @type {import('./types.mjs').LoadResult | undefined} */
  let loaded;
  /** @type {import('./types.mjs').LoadResult & { windowInstructions: { total: number, compile: number, gc: number } }} */
  let result;
  try {
    loaded = await load(server, scenario, { requests, maxSeconds: COUNTED_WINDOW_MAX_SECONDS }, rand, posts);
  } finally {
    result = /** @type {typeof result} */ ({ ...loaded, windowInstructions: await window.stop() });
  }
  if (result.totalRequests !== requests) fail(`${server.name} on ${scenario.name}: ${result.totalRequests} of ${requests} responses within ${COUNTED_WINDOW_MAX_SECONDS} s under callgrind`);
  // The headline count leaves out V8's compiling and collecting (see COST_ROOTS in
  // bench/lib/callgrind.mjs); the whole window and the collector's share are kept next to it.
  const { total, compile, gc } = result.windowInstructions;
  return { ...result, instructions: (total - compile - gc) / requests, instructionsAll: total / requests, instructionsGc: gc / requests, instructionsCompile: compile / requests, cpuUs: null, cpuUsWholeRun: null, peakRss: null };
}

/** --instructions: unmeasured requests per connection before each window (see measureInstructions). */
const INSTRUCTION_SETTLE_PER_CONNECTION = 2;

/** Quiet between a write run's reset and its load (the servers' event loops idle, the I/O done). */
const WRITE_PAUSE_MS = 100;

/** The seeded posts again in each server's database (servers may share one). @param {Server[]} servers */
export async function resetDatabases(servers) {
  for (const database of new Set(servers.map((server) => server.database))) await resetPosts(database);
}

/** Every write run starts from the same table and an empty log, after a moment of quiet. @param {Server[]} servers */
export async function resetForWrites(servers) {
  await resetDatabases(servers);
  await new Promise((resolve) => setTimeout(resolve, WRITE_PAUSE_MS));
}

/**
 * A warm-up load of a fixed number of requests; returns its rate (requests per second).
 * @param {Server} server
 * @param {Scenario} scenario
 * @param {() => number} rand
 * @param {number} posts
 * @param {number} [maxSeconds]
 * @returns {Promise<number | null>}
 */
export async function warm(server, scenario, rand, posts, maxSeconds = settings.warmupMaxSeconds) {
  if (settings.warmup <= 0) return null;
  // Each worker of a cluster needs its own warm-up.
  const requests = settings.warmup * (server.workers ?? 1);
  const result = await load(server, scenario, { requests, maxSeconds }, rand, posts);
  if (settings.instructions && result.totalRequests < requests) log(`${server.name} ${scenario.name}: warm-up stopped after ${maxSeconds} s at ${result.totalRequests} of ${requests} requests`);
  if (mutates(scenario)) await resetPosts(server.database);
  return result.rps;
}

/**
 * What a round measures: the servers of one pair (Corral, the baseline, and on writes the
 * baseline that also records events), which scenario each runs, and the request sequence.
 * @typedef {object} RoundInput
 * @property {number} round 1, 2, …
 * @property {import('./servers.mjs').Server[]} servers
 * @property {(index: number) => import('./types.mjs').Scenario} scenarioOf
 * @property {() => number} rand the request sequence of the first server
 * @property {number} posts
 * @property {boolean} writes whether the scenario changes rows
 * @property {{ settleRequests: number, windowRequests: number } | undefined} writeSize a write run's counted window (sequential writes)
 * @property {number} instructionRequests responses in an instruction window
 */

/**
 * --instructions: each server under callgrind, one after the other (in alternating order), its
 * instructions over a window of `instructionRequests` responses.
 * @param {RoundInput} input
 * @returns {Promise<Measured[]>}
 */
export async function instructionRound({ round, servers, scenarioOf, rand, posts, instructionRequests }) {
  /** @type {Measured[]} */
  const results = [];
  for (const index of roundOrder(round, servers.length)) results[index] = await measureInstructions(at(servers, index), scenarioOf(index), rand, posts, instructionRequests);
  return results;
}

/**
 * Paired (the default): every server of the round under load at the same time, each on its own
 * copy of the database (reset first on writes), so whatever the machine does hits them alike.
 * @param {RoundInput} input
 * @returns {Promise<Measured[]>}
 */
export async function pairedRound({ round, servers, scenarioOf, rand, posts, writes }) {
  if (writes) await resetForWrites(servers);
  // Each server its own request sequence (the same in every run of the bench).
  return Promise.all(servers.map((server, i) => measure(server, scenarioOf(i), i === 0 ? rand : random(round + 1000 * (i - 1)), posts)));
}

/**
 * --no-paired: one server after the other; writes in alternating order (A B, B A, …), each run
 * a counted window of as many responses.
 * @param {RoundInput} input
 * @returns {Promise<Measured[]>}
 */
export async function sequentialRound({ round, servers, scenarioOf, rand, posts, writes, writeSize }) {
  /** @type {Measured[]} */
  const results = [];
  const order = writes ? roundOrder(round, servers.length) : [0, 1];
  for (const index of order) results[index] = await measure(at(servers, index), scenarioOf(index), rand, posts, writeSize);
  return results;
}

/**
 * @template T
 * @param {T[]} list
 * @param {number} index
 * @returns {T}
 */
function at(list, index) {
  const item = list[index];
  if (item === undefined) throw new Error(`no item ${index} of ${list.length}`);
  return item;
}
