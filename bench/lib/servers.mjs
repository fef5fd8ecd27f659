// @ts-check
// The servers of a run: Corral (this checkout's, or --corral's) and the hand-written baseline,
// under callgrind with --instructions.
import { join } from 'node:path';
import { BENCH_SECRET, CORRAL_AUTH_ENV, signIn } from './auth.mjs';
import { callgrindPrefix } from './callgrind.mjs';
import { CORRAL_ROOT, POOL_SIZE, RESULTS, ROOT, SERVER_HOST, serverNodeFlags, settings, tempDir } from './config.mjs';
import { freePort, startProcess, waitForAnswer } from './proc.mjs';

/** @typedef {import('./types.mjs').Server} Server */

/** ` #2`… for the second and later process of a kind (the first keeps the plain name). */
const nth = (/** @type {number} */ index) => (index === 0 ? '' : ` #${index + 1}`);

/** Servers under callgrind with --instructions (their dumps in tempDir), and the start-up they may take there. */
/** @type {string[]} */
const serverPrefix = settings.instructions ? callgrindPrefix(tempDir) : [];
const startTimeoutMs = settings.instructions ? 180_000 : 20_000;
/**
 * Corral's polls run by the clock: the schema and token revocations every 500 ms, the change
 * feed and the webhooks every 250 ms. Instrumented, a server serves about 100× fewer requests
 * per second than natively, so within a window the polls would weigh 100× more per request than
 * they do in production (about a dozen polls a second, each a query, against about a hundred
 * instrumented SQLite `get`s a second), and more or less with the machine's load. Under
 * callgrind the intervals are 100× longer, so they weigh per request what they weigh natively.
 */
const POLLS_UNDER_CALLGRIND = {
  CORRAL_SCHEMA_POLL_MS: '50000',
  CORRAL_CHANGES_POLL_MS: '25000',
  // The database timeouts too (5 s to connect, 30 s a statement): instrumented, a new PostgreSQL
  // connection's handshake alone took over 5 s on a loaded machine, and Corral answered 503.
  CORRAL_DB_CONNECT_TIMEOUT_MS: '500000',
  CORRAL_DB_STATEMENT_TIMEOUT_MS: '3000000',
};

/** node's options for a server: --node-flags, and the CPU profile's under --profile. */
/** @param {string | undefined} profileName */
function serverNodeArgs(profileName) {
  const profile = profileName === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'profiles')}`, `--cpu-prof-name=${profileName}`];
  return [...serverNodeFlags, ...profile];
}

/**
 * @param {import('./types.mjs').BenchDatabase} database
 * @param {{ profileName?: string, workers?: number, index?: number }} [options]
 * @returns {Promise<Server>}
 */
export async function startCorral(database, { profileName, workers = 1, index = 0 } = {}) {
  const port = await freePort();
  const nodeArgs = serverNodeArgs(profileName);
  const child = startProcess({
    name: `${workers === 1 ? 'Corral' : `Corral (${workers} workers)`}${nth(index)}`,
    pin: settings.pin && workers === 1,
    prefix: serverPrefix,
    nodeArgs,
    script: join(CORRAL_ROOT, 'bin', 'corral.js'),
    args: ['start'],
    cwd: tempDir,
    env: {
      PORT: String(port),
      HOST: SERVER_HOST,
      DATABASE_URL: database.url,
      LOG_LEVEL: 'warn',
      CORRAL_DB_POOL_SIZE: String(POOL_SIZE),
      CORRAL_WORKERS: String(workers),
      ...CORRAL_AUTH_ENV,
      ...(settings.instructions ? POLLS_UNDER_CALLGRIND : {}),
    },
  });
  /** @type {Server} */
  const handle = Object.assign(child, { url: `http://127.0.0.1:${port}`, database, workers });
  handle.firstAnswerMs = await waitForAnswer(handle, handle.url, '/readyz', { intervalMs: 20, timeoutMs: startTimeoutMs });
  await signIn(handle.url);
  return handle;
}

/**
 * The baseline; `events`: the context variant that also records each write's change event.
 * @param {import('./types.mjs').BenchDatabase} database
 * @param {{ profileName?: string, events?: boolean, index?: number }} [options]
 * @returns {Promise<Server>}
 */
export async function startBaseline(database, { profileName, events = false, index = 0 } = {}) {
  const port = await freePort();
  const nodeArgs = serverNodeArgs(profileName);
  const child = startProcess({
    name: `${events ? 'baseline+events' : 'baseline'}${nth(index)}`,
    pin: settings.pin,
    prefix: serverPrefix,
    nodeArgs,
    script: join(ROOT, 'bench', 'baseline', 'server.mjs'),
    cwd: tempDir,
    env: { PORT: String(port), HOST: SERVER_HOST, DATABASE_URL: database.url, POOL_SIZE: String(POOL_SIZE), AUTH_SECRET: BENCH_SECRET, BASELINE_EVENTS: events ? '1' : '0' },
  });
  /** @type {Server} */
  const handle = Object.assign(child, { url: `http://127.0.0.1:${port}`, database });
  await waitForAnswer(handle, handle.url, '/readyz', { intervalMs: 20, timeoutMs: startTimeoutMs });
  return handle;
}
