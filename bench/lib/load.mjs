// @ts-check
// Load on one server with autocannon, and the checks that both servers answer a scenario alike.
import autocannon from 'autocannon';
import { isDeepStrictEqual } from 'node:util';
import { postCursorId } from '../scenarios.mjs';
import { SEED } from '../seed.mjs';
import { headersFor } from './auth.mjs';
import { fail, settings } from './config.mjs';
import { request } from './proc.mjs';

/**
 * A scenario's request headers: its caller's, and Accept-Encoding when --accept-encoding or the scenario asks.
 * @param {import('./types.mjs').Scenario} scenario
 * @returns {Record<string, string>}
 */
function requestHeaders(scenario) {
  const headers = headersFor(scenario) ?? {};
  const encoding = settings.acceptEncoding ?? scenario.acceptEncoding;
  return encoding === undefined ? headers : { ...headers, 'accept-encoding': encoding };
}

/** @typedef {import('./types.mjs').LoadLength} LoadLength */
/** @typedef {import('./types.mjs').LoadResult} LoadResult */
/** @typedef {import('./types.mjs').RequestContext} RequestContext */
/** @typedef {import('./types.mjs').Scenario} Scenario */
/** @typedef {import('./types.mjs').Server} Server */

/** autocannon's per-request timeout; a timeout fails the run. */
const LOAD_TIMEOUT_SECONDS = 60;
/** A write run's counted window that has not closed after this long fails the run. */
export const COUNTED_WINDOW_MAX_SECONDS = 120;
/** How soon autocannon stops after stop() (its sample interval; the bench reads no per-sample figure). */
const STOP_TICK_MS = 20;

/**
 * @param {() => number} rand
 * @param {number} posts
 * @returns {RequestContext}
 */
function makeContext(rand, posts) {
  const int = (/** @type {number} */ n) => Math.floor(rand() * n);
  return { int, posts, postId: () => 1 + int(posts), authorId: () => 1 + int(SEED.authors) };
}

/**
 * The same request of a scenario to both servers: reads must answer alike, writes with the same keys.
 * @param {Scenario} scenario
 * @param {Server} corral
 * @param {Server} baseline
 * @param {number} [posts]
 */
export async function checkScenario(scenario, corral, baseline, posts = SEED.posts) {
  const fixed = { int: () => 7, posts, postId: () => 42, authorId: () => 3 };
  const { method, path, body } = scenario.request(fixed);
  const a = await request(corral.url, method, path, body, headersFor(scenario));
  const b = await request(baseline.url, method, path, body, headersFor(scenario));
  const where = `${scenario.name}: ${method} ${path}`;
  if (a.status !== b.status) fail(`${where}: Corral answered ${a.status}, the baseline ${b.status}\n${a.text.slice(0, 400)}\n${b.text.slice(0, 400)}`);
  if (a.status < 200 || a.status >= 300) fail(`${where}: answered ${a.status}: ${a.text.slice(0, 400)}`);
  const keys = (/** @type {any} */ x) => JSON.stringify({ top: Object.keys(x).sort(), data: Object.keys(Array.isArray(x.data) ? (x.data[0] ?? {}) : x.data).sort(), meta: Object.keys(x.meta ?? {}).sort() });
  // Cursors are encrypted with a fresh nonce each: compare the position they hold.
  for (const body of [a.body, b.body]) if (typeof body?.meta?.nextCursor === 'string') body.meta.nextCursor = { after: postCursorId(body.meta.nextCursor) };
  if (method === 'GET' ? !isDeepStrictEqual(a.body, b.body) : keys(a.body) !== keys(b.body)) {
    fail(`${where}: the answers differ\nCorral:   ${a.text.slice(0, 600)}\nbaseline: ${b.text.slice(0, 600)}`);
  }
}

/** Whether a scenario changes rows (a create, update or destroy), so its runs must not overlap. @param {Scenario} scenario */
export function mutates(scenario) {
  const fixedCtx = { int: () => 7, posts: SEED.posts, postId: () => 42, authorId: () => 3 };
  return scenario.writes === true || /:(create|update|destroy)\b/.test(scenario.request(fixedCtx).path);
}

/**
 * `length`: `{ seconds }`, `{ requests, maxSeconds }` (whichever ends first), `{ settle,
 * seconds, clock }`: a measured window of `seconds` that opens `settle` seconds into the load,
 * over which both the responses and `clock.read()` (the server's CPU) are counted; or
 * `{ settleRequests, windowRequests, clock }` (write scenarios): the window opens at the
 * settleRequests-th response and closes at the windowRequests-th after it, so every server
 * writes as many rows. The load stops when the window closes.
 * @param {Server} server
 * @param {Scenario} scenario
 * @param {LoadLength} length
 * @param {() => number} rand
 * @param {number} posts
 * @returns {Promise<LoadResult>}
 */
export async function load(server, scenario, length, rand, posts) {
  const ctx = makeContext(rand, posts);
  const { settle = 0, seconds = 0, settleRequests = 0, windowRequests } = length;
  const counted = windowRequests !== undefined;
  const windowed = counted || length.settle !== undefined;
  // A counted window has no fixed length: the load runs until it closes (or fails after this).
  const runSeconds = counted ? COUNTED_WINDOW_MAX_SECONDS : windowed ? settle + seconds + 5 : seconds;
  const clock = () => length.clock ?? fail('a measured window needs a CPU clock');
  const run = autocannon({
    url: server.url,
    connections: scenario.connections ?? settings.connections,
    // A slow question (a count over a million rows) must not time out under 50 connections.
    timeout: LOAD_TIMEOUT_SECONDS,
    // autocannon acts on stop() at its next sample tick (1 s by default): without this, a write
    // run went on for up to a second after its window closed, thousands of unmeasured writes.
    sampleInt: STOP_TICK_MS,
    ...(length.requests === undefined ? { duration: runSeconds } : { amount: length.requests }),
    requests: [
      {
        setupRequest: (req) => {
          const { method, path, body } = scenario.request(ctx);
          if (body === undefined) return { ...req, method, path, headers: { ...req.headers, ...requestHeaders(scenario) } };
          return { ...req, method, path, body: JSON.stringify(body), headers: { ...req.headers, ...requestHeaders(scenario), 'content-type': 'application/json' } };
        },
      },
    ],
  });
  const cap = length.maxSeconds === undefined ? undefined : setTimeout(() => run.stop(), length.maxSeconds * 1000);
  /** @type {{ responses: number, counting: boolean, cpu0: number, t0: number, cpuNs?: number, seconds: number }} */
  const window = { responses: 0, counting: false, cpu0: 0, t0: 0, seconds: 0 };
  /** @type {NodeJS.Timeout | undefined} */
  let opens;
  /** @type {NodeJS.Timeout | undefined} */
  let closes;
  // The CPU clock and the response count are read at the same moment of this event loop.
  const open = () => {
    window.cpu0 = clock().read();
    window.t0 = performance.now();
    window.counting = true;
  };
  const close = () => {
    window.counting = false;
    window.cpuNs = clock().read() - window.cpu0;
    window.seconds = (performance.now() - window.t0) / 1000;
    run.stop();
  };
  if (counted) {
    let seen = 0;
    run.on('response', () => {
      seen++;
      if (window.counting) window.responses++;
      if (seen === settleRequests) open();
      else if (seen === settleRequests + windowRequests) close();
    });
  } else if (windowed) {
    run.on('response', () => {
      if (window.counting) window.responses++;
    });
    opens = setTimeout(open, settle * 1000);
    closes = setTimeout(close, (settle + seconds) * 1000);
  }
  const result = await Promise.race([run, server.unexpectedExit]).finally(() => {
    clearTimeout(cap);
    clearTimeout(opens);
    clearTimeout(closes);
  });
  server.served = (server.served ?? 0) + result.requests.total;
  const bad = result.errors + result.timeouts + result.non2xx;
  if (bad > 0) {
    let sample = '';
    try {
      const { method, path, body } = scenario.request(ctx);
      const reply = await request(server.url, method, path, body);
      sample = `\none more ${method} ${path} answers ${reply.status}: ${reply.text.slice(0, 400)}`;
    } catch (error) {
      sample = `\none more request fails: ${/** @type {Error} */ (error).message}`;
    }
    fail(
      `${server.name} on ${scenario.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx ` +
        `(status codes ${JSON.stringify(result.statusCodeStats)})${sample}\n${server.output().slice(-2000)}`,
    );
  }
  if (windowed && window.cpuNs === undefined) fail(`${server.name} on ${scenario.name}: the load ended before its measured window closed`);
  return {
    rps: windowed ? window.responses / window.seconds : result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: windowed ? window.responses : result.requests.total,
    totalRequests: result.requests.total,
    windowCpuNs: window.cpuNs,
  };
}
