// @ts-check
// The bench's command line: its flags, their defaults per mode, and --help (bench/README.md).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SCENARIOS } from '../scenarios.mjs';

export const USAGE = `Corral against a hand-written baseline: see bench/README.md.

  npm run bench                  full run (11 rounds per scenario, each 2 s measured after 0.5 s of load, both
                                 servers at once on reads; SQLite and PostgreSQL, then 1 worker against 2)
  npm run bench -- --quick       smoke run (1 round): checks that everything answers, asserts no timing
  options: --db=sqlite,postgres  --only=get,list  --rounds=N  --duration=S  --settle=S  --warmup=N (requests)
           --no-paired (one server after the other)  --json=FILE (for bench/compare.mjs)
           --connections=N  --no-startup  --profile (Corral under node --cpu-prof, prints the top functions)
           --scale (also 1,000,000 rows)  --large (only issue 28's questions on 1,000,000 posts;
           with --quick 20,000; --large-posts=N; --only names its questions)  --workers / --no-workers (1 worker against 2)  --pin (taskset)
           --write-rounds=N  --write-requests=N (create, update)  --no-events-baseline (no context column)
           --instructions (servers under valgrind's callgrind: instructions per request instead of CPU
           seconds, not moved by the machine's load; slow: see bench/README.md)
           --window-requests=N (--instructions: every window N responses)
           --accept-encoding=VALUE (sent with every measured request, e.g. br,gzip)
           --processes=N  --max-rounds=N  --half-width=X  --corral=DIR  --node-flags="…"  --help
  env: BENCH_PG_URL  admin URL of the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres);
       the bench creates and drops its own databases there.
`;

/** Responses in a write run's measured window, per database: about 1 to 2 s of Corral's writes. */
const WRITE_REQUESTS = { sqlite: 2000, postgres: 1000 };

/** @typedef {import('./types.mjs').DatabaseKind} DatabaseKind */
/** @typedef {import('./types.mjs').Scenario} Scenario */

/**
 * What a run does, from its flags.
 * @typedef {object} Settings
 * @property {'quick' | 'full'} mode
 * @property {number} processes server processes of each kind per database
 * @property {number} rounds
 * @property {number} maxRounds
 * @property {number} halfWidth
 * @property {boolean} instructions
 * @property {number} instructionAgreement
 * @property {number} instructionSeconds
 * @property {number[]} instructionRequests the fewest and the most responses of an instruction window
 * @property {number} duration
 * @property {number} settle
 * @property {number} warmup
 * @property {number} warmupMaxSeconds
 * @property {number} writeRounds
 * @property {Record<DatabaseKind, number>} writeRequests
 * @property {boolean} eventsBaseline
 * @property {number} scaleRounds
 * @property {boolean} workers
 * @property {boolean} pin
 * @property {boolean} paired
 * @property {number} connections
 * @property {number} startupRuns
 * @property {string | undefined} acceptEncoding sent with every measured request (--accept-encoding)
 * @property {LargeSettings | undefined} large `--large`: the large-table run instead of the scenarios
 */

/**
 * `--large` (bench/lib/large.mjs): posts in the table, measured runs per question and server
 * (each `seconds` after `settle`), and the warm-up (requests, at most `warmupSeconds`).
 * @typedef {object} LargeSettings
 * @property {number} posts
 * @property {number} rounds
 * @property {number} settle
 * @property {number} seconds
 * @property {number} warmup
 * @property {number} warmupSeconds
 * @property {string[] | undefined} only
 */

/**
 * A parsed command line.
 * @typedef {object} Cli
 * @property {ReturnType<typeof parseFlags>['values']} opts the flags as given
 * @property {Settings} settings
 * @property {DatabaseKind[]} databases
 * @property {Scenario[]} scenarios
 * @property {string | undefined} corralRoot --corral=DIR, resolved (undefined: this checkout)
 * @property {string[]} serverNodeFlags node options for every server
 */

/** @param {string} message @returns {never} */
export function fail(message) {
  throw new Error(message);
}

/**
 * `--large`: 1,000,000 posts, 2 rounds of 5 s after 1 s per question and server; `--quick`:
 * 20,000 posts, 1 round of 1 s (the CI smoke run, well under a minute a database).
 * @param {ReturnType<typeof parseFlags>['values']} opts
 * @returns {LargeSettings}
 */
export function largeSettings(opts) {
  return {
    posts: Number(opts['large-posts'] ?? (opts.quick ? 20_000 : 1_000_000)),
    rounds: Number(opts.rounds ?? (opts.quick ? 1 : 2)),
    settle: Number(opts.settle ?? (opts.quick ? 0.3 : 1)),
    seconds: Number(opts.duration ?? (opts.quick ? 1 : 5)),
    warmup: Number(opts.warmup ?? (opts.quick ? 50 : 200)),
    warmupSeconds: opts.quick ? 1 : 3,
    only: opts.only?.split(',').filter(Boolean),
  };
}

/** @param {string[]} args */
function parseFlags(args) {
  return parseArgs({
    args,
    options: {
      quick: { type: 'boolean', default: false },
      db: { type: 'string', default: 'sqlite,postgres' },
      only: { type: 'string' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      'no-startup': { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      scale: { type: 'boolean', default: false },
      large: { type: 'boolean', default: false },
      'large-posts': { type: 'string' },
      workers: { type: 'boolean' },
      'no-workers': { type: 'boolean', default: false },
      pin: { type: 'boolean', default: false },
      settle: { type: 'string' },
      paired: { type: 'boolean' },
      'no-paired': { type: 'boolean', default: false },
      json: { type: 'string' },
      'write-rounds': { type: 'string' },
      'write-requests': { type: 'string' },
      'no-events-baseline': { type: 'boolean', default: false },
      processes: { type: 'string' },
      'max-rounds': { type: 'string' },
      'half-width': { type: 'string' },
      instructions: { type: 'boolean', default: false },
      corral: { type: 'string' },
      'node-flags': { type: 'string' },
      'window-requests': { type: 'string' },
      'accept-encoding': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
}

/**
 * The run's settings from its arguments; `--help` prints USAGE and exits.
 * @param {string[]} args
 * @param {{ callgrindSupported: boolean }} machine
 * @returns {Cli}
 */
export function parseCli(args, { callgrindSupported }) {
  const { values: opts } = parseFlags(args);
  if (opts.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  // --corral=DIR: measure the Corral built in another checkout (DIR/bin/corral.js), say an older
  // commit against today's, with this harness and baseline (bench/README.md, "Another Corral").
  const corralRoot = opts.corral === undefined ? undefined : resolve(opts.corral);
  // --instructions: each server under callgrind, one at a time, its instructions per request over
  // a window of a fixed number of responses. The count does not depend on the machine's load, so
  // one process per kind and a few rounds suffice; start-up, RSS and workers are not measured
  // (valgrind changes them all).
  const instructionMode = opts.instructions;
  if (opts.large && (instructionMode || opts.profile || opts.scale)) fail('--large runs alone: not with --instructions, --profile or --scale');
  if (instructionMode && !callgrindSupported) fail('--instructions needs valgrind (callgrind) and callgrind_control: apt-get install valgrind');
  if (instructionMode && (opts.profile || opts.pin || opts.scale)) fail('--instructions runs alone: not with --profile, --pin or --scale');
  /**
   * --node-flags="…": node options for every server the bench starts (Corral and the baselines).
   * Under --instructions the default is `--single-threaded`: V8 then compiles and collects on the
   * main thread, at the same points of every run, instead of on helper threads that valgrind
   * schedules as it can. Two runs then repeated each other round by round (SQLite `get`: 199k,
   * 242k, 277k, 215k … instructions a request in one, 201k, 241k, 279k, 221k … in the other),
   * where with helper threads one run's Corral was still compiling through all its rounds.
   */
  const serverNodeFlags = (opts['node-flags'] ?? (instructionMode ? '--single-threaded' : '')).split(/\s+/).filter(Boolean);
  // Server processes of each kind per database (full mode): the rounds rotate through the pairs,
  // so no single process's JIT and memory layout sets a whole run's figure (bench/README.md).
  const processes = Math.max(1, Number(opts.processes ?? (opts.quick || opts.profile || instructionMode ? 1 : 2)));
  /** The rounds of a scenario, a whole number of rotations through the pairs. @param {number} n */
  const wholeRotations = (n) => Math.ceil(n / processes) * processes;
  /** @type {Settings} */
  const settings = {
    mode: opts.quick ? 'quick' : 'full',
    processes,
    // Many short rounds, and the median of their ratios: see "how the run keeps it steady" in bench/README.md.
    rounds: wholeRotations(Number(opts.rounds ?? (opts.quick ? 1 : instructionMode ? 6 : 12))),
    // …and more where they disagree: batches of rounds (one per pair) are added while the 95%
    // interval of the median CPU ratio is wider than ±halfWidth, up to maxRounds.
    maxRounds: wholeRotations(Number(opts['max-rounds'] ?? (opts.quick ? 1 : instructionMode ? 12 : 30))),
    halfWidth: Number(opts['half-width'] ?? 0.02),
    instructions: instructionMode,
    // --instructions: rounds go on (up to maxRounds) until each server's cheapest round has a
    // second within this fraction of it (see wantsMoreInstructionRounds).
    instructionAgreement: 0.02,
    // --instructions: a round's window is about this many seconds of the slower server under
    // instrumentation (its uninstrumented warm-up rate ÷ CALLGRIND_SLOWDOWN), in responses, the
    // same number for every server of the scenario…
    instructionSeconds: Number(opts.duration ?? (opts.quick ? 1 : 3)),
    // …and within these bounds.
    // (A scenario whose SQL runs inside the server, SQLite `search` at 21 ms of native CPU a
    // request, gets 20: its window is still millions of instructions, most of them SQLite's.)
    // --window-requests=N: every window exactly N responses (runs to be compared then count the
    // same windows, whatever the machine's load made of their warm-up rates).
    // --accept-encoding=br,gzip: every measured request asks for a compressed answer.
    acceptEncoding: opts['accept-encoding'],
    instructionRequests: opts['window-requests'] !== undefined ? Array(2).fill(Number(opts['window-requests'])) : opts.quick ? [10, 100] : [20, 2000],
    // The measured window of a run, in seconds…
    duration: Number(opts.duration ?? (opts.quick ? 1.5 : 2)),
    // …after this many seconds of the same load, not measured: the connections open, the server
    // reaches its steady state, and the previous run's last requests have left the database.
    settle: Number(opts.settle ?? 0.5),
    // Warm-up in requests, not seconds: V8 optimises after so many calls, and on a loaded
    // machine a warm-up of a fixed time serves too few of them.
    warmup: Number(opts.warmup ?? (opts.quick ? 1500 : 4000)),
    // …but no longer than this: slow scenarios (a million rows) are warm after far fewer requests.
    // (Under callgrind 120 s: 4,000 requests of SQLite `search`, `query` or `includes`, whose SQL
    // runs inside the valgrind process, would take 10 to 30 minutes a warm-up on this machine;
    // their JavaScript is warm long before, and V8's compiling is not in the count anyway.)
    warmupMaxSeconds: instructionMode ? 120 : opts.quick ? 3 : 8,
    // Write scenarios (create, update) load one server after the other, in alternating order
    // (A B, B A, …), each run writing the same number of rows: more, shorter rounds than reads,
    // whose servers share every round. See "Write rounds" in bench/README.md.
    writeRounds: wholeRotations(Number(opts['write-rounds'] ?? opts.rounds ?? (opts.quick ? 1 : instructionMode ? 6 : opts['no-paired'] ? 20 : 12))),
    // A write run's measured window in responses, the same for every server and every run, so
    // each writes as many rows (the table and the log grow alike), after a quarter as many
    // unmeasured; per database (PostgreSQL writes answer about half as fast), unless given.
    writeRequests: opts['write-requests'] === undefined ? WRITE_REQUESTS : { sqlite: Number(opts['write-requests']), postgres: Number(opts['write-requests']) },
    // A third server on write scenarios: the baseline that also records the change event (context).
    eventsBaseline: !opts['no-events-baseline'],
    scaleRounds: Number(opts.rounds ?? (opts.quick ? 1 : 3)),
    workers: opts['no-workers'] || instructionMode ? false : (opts.workers ?? !opts.quick),
    pin: opts.pin,
    // Read scenarios: both servers under load at the same time, each by its own connections.
    paired: opts['no-paired'] || instructionMode ? false : (opts.paired ?? true),
    // (Under callgrind a server is saturated by far fewer: more would only add connection set-ups to the count.)
    connections: Number(opts.connections ?? (instructionMode ? 10 : 50)),
    startupRuns: opts.quick ? 3 : 5,
    large: opts.large ? largeSettings(opts) : undefined,
  };
  /** @type {DatabaseKind[]} */
  const databases = [];
  for (const db of opts.db.split(',').filter(Boolean)) {
    if (db !== 'sqlite' && db !== 'postgres') fail(`--db: unknown database ${db}`);
    databases.push(db);
  }
  // --large runs its own questions (--only names them), none of the scenarios.
  const scenarios = opts.large ? [] : opts.only === undefined ? SCENARIOS : opts.only.split(',').map((name) => SCENARIOS.find((s) => s.name === name) ?? fail(`--only: unknown scenario ${name}`));
  return { opts, settings, databases, scenarios, corralRoot, serverNodeFlags };
}
