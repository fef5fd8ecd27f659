// @ts-check
// One database's part of a run: seeding, the servers, every scenario's rounds, the scoped
// user's cost, the 1,000,000-row scale run, the workers and the start-up measurement.
import { join } from 'node:path';
import { SCALE_SCENARIOS, SCENARIOS } from '../scenarios.mjs';
import { random, SEED, seed, seedManyCollections, seedScaleTemplate } from '../seed.mjs';
import { CORRAL_AUTH_ENV, setUpScopedUser } from './auth.mjs';
import { compare } from './compare-servers.mjs';
import { CORRAL_ROOT, fail, log, mb, opts, POOL_SIZE, RESULTS, SCALE_POSTS, scenarios, SERVER_HOST, settings, tempDir, WORKER_SCENARIOS } from './config.mjs';
import { copyDatabase, createDatabase, freshTable, insertPosts, noAutovacuum, resetPosts } from './databases.mjs';
import { checkScenario, mutates } from './load.mjs';
import { freePort, rssOf, startProcess, waitForAnswer } from './proc.mjs';
import { summarizeProfile } from './profile.mjs';
import { median } from './rounds.mjs';
import { SEARCH_ROWS, seedSearch } from './search-data.mjs';
import { startBaseline, startCorral } from './servers.mjs';
import { warm } from './modes.mjs';

/** @typedef {import('./types.mjs').DatabaseKind} DatabaseKind */
/** @typedef {import('./types.mjs').Server} Server */
/** @typedef {import('./report.mjs').ResultRow} ResultRow */

/**
 * Start-up with 50 collections, and the idle RSS after it.
 * @typedef {{ database: DatabaseKind, collections: number, startMs: number, startRunsMs: number[], idleRssMb: number | null }} Startup
 */

/** --instructions: the longest warm-up of one scenario in the warm-up of all of them at the start. */
const PRE_WARM_MAX_SECONDS_UNDER_CALLGRIND = 30;

// ---------------------------------------------------------------------------------------------
// Start-up time and idle RSS with 50 collections defined.

/** @param {DatabaseKind} kind @returns {Promise<Startup>} */
export async function measureStartup(kind) {
  const database = await createDatabase(kind, 'startup');
  const setup = await startCorral(database);
  await seedManyCollections(setup.url, 50);
  await setup.stop();
  /** @type {number[]} */
  const starts = [];
  /** @type {(number | null)[]} */
  const idle = [];
  for (let i = 0; i < settings.startupRuns; i++) {
    const port = await freePort();
    const handle = startProcess({
      name: 'Corral',
      script: join(CORRAL_ROOT, 'bin', 'corral.js'),
      args: ['start'],
      cwd: tempDir,
      env: { PORT: String(port), HOST: SERVER_HOST, DATABASE_URL: database.url, LOG_LEVEL: 'warn', CORRAL_DB_POOL_SIZE: String(POOL_SIZE), CORRAL_WORKERS: '1', ...CORRAL_AUTH_ENV },
    });
    // The first answered request is a real list on one of the 50 collections.
    starts.push(await waitForAnswer(handle, `http://127.0.0.1:${port}`, '/api/c50:list?pageSize=1', { intervalMs: 2 }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    idle.push(rssOf(handle.pid));
    await handle.stop();
  }
  return { database: kind, collections: 50, startMs: Math.round(Number(median(starts))), startRunsMs: starts.map(Math.round), idleRssMb: mb(median(idle)) };
}

// ---------------------------------------------------------------------------------------------

/** @param {() => Promise<unknown>} fn */
async function timed(fn) {
  const began = performance.now();
  await fn();
  return performance.now() - began;
}

/**
 * One database's rows: its scenarios, the scoped user's cost, and with --scale and the workers measurement theirs.
 * @param {DatabaseKind} kind
 * @returns {Promise<{ rows: ResultRow[], scaleRows: ResultRow[], workerRows: ResultRow[], scopedRows: ResultRow[] }>}
 */
export async function benchDatabase(kind) {
  const database = await createDatabase(kind, 'data');
  log(`${kind}: seeding ${SEED.posts} posts, ${SEED.posts * SEED.commentsPerPost} comments, ${SEED.authors} authors through Corral's API`);
  const seeder = await startCorral(database);
  const seedStart = performance.now();
  await seed(seeder.url);
  await setUpScopedUser(seeder.url);
  log(`${kind}: seeded in ${Math.round(performance.now() - seedStart)} ms`);
  if (scenarios.some((s) => s.data === 'search')) log(`${kind}: ${SEARCH_ROWS} searchable articles inserted directly in SQL in ${Math.round(await timed(() => seedSearch(seeder.url, database)))} ms`);
  await seeder.stop();

  const profileName = (/** @type {string} */ server) => (opts.profile ? `${server}-${kind}-${scenarios.map((s) => s.name).join('-')}.cpuprofile` : undefined);
  // Every server its own byte-identical copy of the seeded database (see copyDatabase).
  const writeScenarios = scenarios.filter(mutates);
  const baselineDatabase = await copyDatabase(database, 'baseline');
  const eventsDatabase = settings.eventsBaseline && writeScenarios.length > 0 ? await copyDatabase(database, 'baseline-events') : undefined;
  const copies = [database, baselineDatabase, ...(eventsDatabase === undefined ? [] : [eventsDatabase])];
  // settings.processes of each kind (the rounds rotate through the pairs); the processes of one
  // kind share that kind's database copy, and only one pair is loaded at a time.
  /** @type {Server[]} */
  const corrals = [];
  /** @type {Server[]} */
  const baselines = [];
  // Context for the write scenarios: the baseline that also records each write's change event.
  /** @type {Server[]} */
  const eventsBaselines = [];
  const stopAll = async () => {
    for (const handle of [...corrals, ...baselines, ...eventsBaselines]) await handle.stop();
  };
  try {
    for (let index = 0; index < settings.processes; index++) {
      corrals.push(await startCorral(database, { profileName: profileName('corral'), index }));
      baselines.push(await startBaseline(baselineDatabase, { profileName: profileName('baseline'), index }));
      if (eventsDatabase !== undefined) eventsBaselines.push(await startBaseline(eventsDatabase, { events: true, index }));
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  const [corral] = corrals;
  const [baseline] = baselines;
  /** @type {ResultRow[]} */
  const rows = [];
  /** @type {ResultRow[]} */
  const scaleRows = [];
  /** @type {ResultRow[]} */
  const workerRows = [];
  /** @type {ResultRow[]} */
  const scopedRows = [];
  try {
    for (const copy of copies) await noAutovacuum(copy);
    // Every pair answers alike (the rounds rotate through them): reads first, on the seeded
    // rows, then writes (an update changes a row's updatedAt differently in each copy).
    for (const writes of [false, true]) {
      for (const [index, corralProcess] of corrals.entries()) {
        for (const scenario of scenarios) if (mutates(scenario) === writes) await checkScenario(scenario, corralProcess, baselines[index]);
        if (writes && eventsBaselines[index] !== undefined) for (const scenario of writeScenarios) await checkScenario(scenario, corralProcess, eventsBaselines[index]);
      }
    }
    if (opts.scale) for (const scenario of SCALE_SCENARIOS) await checkScenario(scenario, corral, baseline);
    for (const copy of copies) await resetPosts(copy);
    // (Under callgrind a process's RSS is valgrind's, not node's.)
    const idleRss = settings.instructions ? null : rssOf(corral.pid);
    // A fresh process keeps getting cheaper for a while beyond one scenario's warm-up (its heap
    // grows, more code gets optimised): warm both on every scenario once before measuring any.
    // (Not in the quick smoke run, which asserts no timing and must stay short.)
    // (Under callgrind too: with only 1,500 requests of one warm-up, V8 was still compiling
    // through every round of the first scenarios, SQLite `get` 0.6–3.0 million instructions a
    // request against 0.27 million once warm.)
    if (!opts.quick) {
      // (Under callgrind at most 30 s a scenario here: the scenario's own warm-up follows.)
      const preWarmSeconds = settings.instructions ? PRE_WARM_MAX_SECONDS_UNDER_CALLGRIND : settings.warmupMaxSeconds;
      for (const server of [...corrals, ...baselines]) for (const scenario of scenarios) await warm(server, scenario, random(99), SEED.posts, preWarmSeconds);
      for (const server of eventsBaselines) for (const scenario of writeScenarios) await warm(server, scenario, random(99), SEED.posts, preWarmSeconds);
    }
    for (const scenario of scenarios) {
      for (const copy of copies) await freshTable(copy);
      rows.push({ database: kind, ...(await compare(kind, scenario, corrals, baselines, { context: eventsBaselines.length > 0 ? eventsBaselines : undefined })), corralIdleRssMb: mb(idleRss) });
    }
    // Issue 10's measure, paired: one Corral runs list-scoped while the other runs list-owner
    // (root, the same rows and SQL), in the same rounds, swapping roles every round, so the
    // machine's drift between two scenarios' rounds and each process's own speed cancel.
    const scoped = scenarios.find((s) => s.name === 'list-scoped');
    const owner = scenarios.find((s) => s.name === 'list-owner');
    if (scoped !== undefined && owner !== undefined && corrals.length >= 2) {
      for (const copy of copies) await freshTable(copy);
      const [one, two] = corrals;
      scopedRows.push({ database: kind, ...(await compare(`${kind} scoped ÷ root (Corral)`, scoped, [one, two], [two, one], { bScenario: owner })) });
    }
    if (opts.scale) {
      for (const scenario of SCALE_SCENARIOS) {
        for (const copy of copies) await freshTable(copy);
        scaleRows.push({ database: kind, posts: SEED.posts, ...(await compare(`${kind} ${SEED.posts} posts`, scenario, corral, baseline, { rounds: settings.scaleRounds, adaptive: false })) });
      }
    }
    if (settings.workers) {
      // 1 worker against 2: the same Corral, so the ratio is the speed-up on this machine.
      for (const handle of [...corrals.slice(1), ...baselines, ...eventsBaselines]) await handle.stop();
      const two = await startCorral(database, { workers: 2 });
      try {
        for (const name of WORKER_SCENARIOS) {
          const scenario = SCENARIOS.find((s) => s.name === name) ?? fail(`no scenario ${name}`);
          // One after the other: the speed-up is about the rate each gets from the whole machine.
          workerRows.push({ database: kind, ...(await compare(`${kind} workers`, scenario, two, corral, { pairable: false, rounds: settings.rounds, adaptive: false })) });
        }
      } finally {
        await two.stop();
      }
    }
  } finally {
    await stopAll();
  }
  if (opts.profile) {
    for (const [server, handle] of /** @type {[string, Server][]} */ ([['corral', corral], ['baseline', baseline]])) {
      const file = join(RESULTS, 'profiles', String(profileName(server)));
      log(`profile written to ${file}`);
      process.stdout.write(`\nCPU profile of ${handle.name} on ${kind} (${scenarios.map((s) => s.name).join(', ')}; includes start-up), ${handle.served} requests under load:\n`);
      process.stdout.write(summarizeProfile(file, 25, handle.served));
    }
  }
  return { rows, scaleRows, workerRows, scopedRows };
}

/** `--scale`: the scale scenarios on a table of SCALE_POSTS posts. */
/** @param {DatabaseKind} kind @returns {Promise<ResultRow[]>} */
export async function benchScale(kind) {
  const database = await createDatabase(kind, 'scale');
  const seeder = await startCorral(database);
  await seedScaleTemplate(seeder.url);
  await seeder.stop();
  log(`${kind}: inserting ${SCALE_POSTS} posts directly in SQL`);
  const began = performance.now();
  await insertPosts(database, SCALE_POSTS);
  const seedMs = Math.round(performance.now() - began);
  log(`${kind}: inserted in ${seedMs} ms`);
  const corral = await startCorral(database);
  const baseline = await startBaseline(database);
  /** @type {ResultRow[]} */
  const rows = [];
  try {
    for (const scenario of SCALE_SCENARIOS) await checkScenario(scenario, corral, baseline, SCALE_POSTS);
    for (const server of [corral, baseline]) for (const scenario of SCALE_SCENARIOS) await warm(server, scenario, random(99), SCALE_POSTS);
    for (const scenario of SCALE_SCENARIOS) {
      rows.push({ database: kind, posts: SCALE_POSTS, seedMs, ...(await compare(`${kind} ${SCALE_POSTS} posts`, scenario, corral, baseline, { rounds: settings.scaleRounds, posts: SCALE_POSTS, adaptive: false })) });
    }
  } finally {
    await corral.stop();
    await baseline.stop();
  }
  return rows;
}
