#!/usr/bin/env node
// Corral against a hand-written baseline: see bench/README.md.
//
//   npm run bench                  full run (2 rounds × 8 s per scenario and server, SQLite and PostgreSQL)
//   npm run bench -- --quick       smoke run (1 round × 2 s): checks that everything answers, asserts no timing
//   options: --db=sqlite,postgres  --only=get,list  --rounds=N  --duration=S  --warmup=S
//            --connections=N  --no-startup  --profile (Corral under node --cpu-prof, prints the top functions)
//   env: BENCH_PG_URL  admin URL of the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres);
//        the bench creates and drops its own databases there.
import autocannon from 'autocannon';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { freePort, killAllChildren, request, requestOk, rssOf, sampleRss, startProcess, waitForAnswer } from './lib/proc.mjs';
import { summarizeProfile } from './lib/profile.mjs';
import { SCENARIOS } from './scenarios.mjs';
import { random, SEED, seed, seedManyCollections } from './seed.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = join(ROOT, 'bench', 'results');
const POOL_SIZE = 10; // Corral's default CORRAL_DB_POOL_SIZE, given to both servers explicitly

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    db: { type: 'string', default: 'sqlite,postgres' },
    only: { type: 'string' },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '50' },
    'no-startup': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
  },
});
const settings = {
  mode: opts.quick ? 'quick' : 'full',
  rounds: Number(opts.rounds ?? (opts.quick ? 1 : 2)),
  duration: Number(opts.duration ?? (opts.quick ? 2 : 8)),
  warmup: Number(opts.warmup ?? (opts.quick ? 0.5 : 2)),
  connections: Number(opts.connections),
  startupRuns: opts.quick ? 3 : 5,
};
const databases = opts.db.split(',').filter(Boolean);
for (const db of databases) if (db !== 'sqlite' && db !== 'postgres') fail(`--db: unknown database ${db}`);
const scenarios = opts.only === undefined ? SCENARIOS : opts.only.split(',').map((name) => SCENARIOS.find((s) => s.name === name) ?? fail(`--only: unknown scenario ${name}`));
const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function fail(message) {
  throw new Error(message);
}

const log = (message) => process.stderr.write(`[bench] ${message}\n`);
const mb = (bytes) => (bytes === null || bytes === undefined ? null : Math.round((bytes / 1048576) * 10) / 10);
const median = (values) => {
  const sorted = values.filter((v) => v !== null && v !== undefined).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// ---------------------------------------------------------------------------------------------
// Databases: a fresh SQLite file, or a fresh uniquely named PostgreSQL database, per use.

const tempDir = mkdtempSync(join(tmpdir(), 'corral-bench-'));
const pgDatabases = [];

async function withPg(fn) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

async function createDatabase(kind, label) {
  if (kind === 'sqlite') {
    const file = join(tempDir, `${label}.sqlite`);
    return { kind, url: `sqlite:${file}`, file };
  }
  const name = `corral_bench_${process.pid}_${Date.now().toString(36)}_${label}`;
  await withPg((client) => client.query(`create database "${name}"`));
  pgDatabases.push(name);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { kind, url: url.toString(), name };
}

async function dropPgDatabases() {
  if (pgDatabases.length === 0) return;
  await withPg(async (client) => {
    for (const name of pgDatabases.splice(0)) await client.query(`drop database if exists "${name}" with (force)`);
  });
}

/** Deletes the posts a write scenario added, so every run sees the seeded table. */
async function resetPosts(database) {
  if (database.kind === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(database.file);
    db.pragma('busy_timeout = 5000');
    db.prepare('delete from posts where id > ?').run(SEED.posts);
    db.close();
    return;
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  await client.query('delete from posts where id > $1', [SEED.posts]);
  await client.query('vacuum analyze posts');
  await client.end();
}

// ---------------------------------------------------------------------------------------------
// Servers.

async function startCorral(database, { profileName } = {}) {
  const port = await freePort();
  const nodeArgs = profileName === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'profiles')}`, `--cpu-prof-name=${profileName}`];
  const handle = startProcess({
    name: 'Corral',
    nodeArgs,
    script: join(ROOT, 'bin', 'corral.js'),
    args: ['start'],
    cwd: tempDir,
    env: { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: database.url, LOG_LEVEL: 'warn', CORRAL_DB_POOL_SIZE: String(POOL_SIZE) },
  });
  handle.url = `http://127.0.0.1:${port}`;
  handle.firstAnswerMs = await waitForAnswer(handle, handle.url, '/readyz', { intervalMs: 20 });
  return handle;
}

async function startBaseline(database, { profileName } = {}) {
  const port = await freePort();
  const nodeArgs = profileName === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'profiles')}`, `--cpu-prof-name=${profileName}`];
  const handle = startProcess({
    name: 'baseline',
    nodeArgs,
    script: join(ROOT, 'bench', 'baseline', 'server.mjs'),
    cwd: tempDir,
    env: { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: database.url, POOL_SIZE: String(POOL_SIZE) },
  });
  handle.url = `http://127.0.0.1:${port}`;
  await waitForAnswer(handle, handle.url, '/readyz', { intervalMs: 20 });
  return handle;
}

// ---------------------------------------------------------------------------------------------
// Load.

function makeContext(rand) {
  const int = (n) => Math.floor(rand() * n);
  return { int, postId: () => 1 + int(SEED.posts), authorId: () => 1 + int(SEED.authors) };
}

/** The same request of a scenario to both servers: reads must answer alike, writes with the same keys. */
async function checkScenario(scenario, corral, baseline) {
  const fixed = { int: () => 7, postId: () => 42, authorId: () => 3 };
  const { method, path, body } = scenario.request(fixed);
  const a = await request(corral.url, method, path, body);
  const b = await request(baseline.url, method, path, body);
  const where = `${scenario.name}: ${method} ${path}`;
  if (a.status !== b.status) fail(`${where}: Corral answered ${a.status}, the baseline ${b.status}\n${a.text.slice(0, 400)}\n${b.text.slice(0, 400)}`);
  if (a.status < 200 || a.status >= 300) fail(`${where}: answered ${a.status}: ${a.text.slice(0, 400)}`);
  const keys = (x) => JSON.stringify({ top: Object.keys(x).sort(), data: Object.keys(Array.isArray(x.data) ? (x.data[0] ?? {}) : x.data).sort(), meta: Object.keys(x.meta ?? {}).sort() });
  if (method === 'GET' ? !isDeepStrictEqual(a.body, b.body) : keys(a.body) !== keys(b.body)) {
    fail(`${where}: the answers differ\nCorral:   ${a.text.slice(0, 600)}\nbaseline: ${b.text.slice(0, 600)}`);
  }
}

async function load(server, scenario, seconds, rand) {
  const ctx = makeContext(rand);
  const run = autocannon({
    url: server.url,
    connections: settings.connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (req) => {
          const { method, path, body } = scenario.request(ctx);
          if (body === undefined) return { ...req, method, path };
          return { ...req, method, path, body: JSON.stringify(body), headers: { ...req.headers, 'content-type': 'application/json' } };
        },
      },
    ],
  });
  const result = await Promise.race([run, server.unexpectedExit]);
  server.served = (server.served ?? 0) + result.requests.total;
  const bad = result.errors + result.timeouts + result.non2xx;
  if (bad > 0) {
    let sample = '';
    try {
      const { method, path, body } = scenario.request(ctx);
      const reply = await request(server.url, method, path, body);
      sample = `\none more ${method} ${path} answers ${reply.status}: ${reply.text.slice(0, 400)}`;
    } catch (error) {
      sample = `\none more request fails: ${error.message}`;
    }
    fail(
      `${server.name} on ${scenario.name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx ` +
        `(status codes ${JSON.stringify(result.statusCodeStats)})${sample}\n${server.output().slice(-2000)}`,
    );
  }
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
  };
}

async function measure(server, scenario, database, rand) {
  if (settings.warmup > 0) await load(server, scenario, settings.warmup, rand);
  if (scenario.writes) await resetPosts(database);
  const rss = sampleRss(server.pid);
  const result = await load(server, scenario, settings.duration, rand);
  result.peakRss = rss.stop();
  if (scenario.writes) await resetPosts(database);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Start-up time and idle RSS with 50 collections defined.

async function measureStartup(kind) {
  const database = await createDatabase(kind, 'startup');
  const setup = await startCorral(database);
  await seedManyCollections(setup.url, 50);
  await setup.stop();
  const starts = [];
  const idle = [];
  for (let i = 0; i < settings.startupRuns; i++) {
    const port = await freePort();
    const handle = startProcess({
      name: 'Corral',
      script: join(ROOT, 'bin', 'corral.js'),
      args: ['start'],
      cwd: tempDir,
      env: { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: database.url, LOG_LEVEL: 'warn', CORRAL_DB_POOL_SIZE: String(POOL_SIZE) },
    });
    // The first answered request is a real list on one of the 50 collections.
    starts.push(await waitForAnswer(handle, `http://127.0.0.1:${port}`, '/api/c50:list?pageSize=1', { intervalMs: 2 }));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    idle.push(rssOf(handle.pid));
    await handle.stop();
  }
  return { database: kind, collections: 50, startMs: Math.round(median(starts)), startRunsMs: starts.map(Math.round), idleRssMb: mb(median(idle)) };
}

// ---------------------------------------------------------------------------------------------

async function benchDatabase(kind) {
  const database = await createDatabase(kind, 'data');
  log(`${kind}: seeding ${SEED.posts} posts, ${SEED.posts * SEED.commentsPerPost} comments, ${SEED.authors} authors through Corral's API`);
  const seeder = await startCorral(database);
  const seedStart = performance.now();
  await seed(seeder.url);
  log(`${kind}: seeded in ${Math.round(performance.now() - seedStart)} ms`);
  await seeder.stop();

  const profileName = (server) => (opts.profile ? `${server}-${kind}-${scenarios.map((s) => s.name).join('-')}.cpuprofile` : undefined);
  const corral = await startCorral(database, { profileName: profileName('corral') });
  const baseline = await startBaseline(database, { profileName: profileName('baseline') });
  const rows = [];
  try {
    for (const scenario of scenarios) await checkScenario(scenario, corral, baseline);
    await resetPosts(database);
    const idleRss = rssOf(corral.pid);
    for (const scenario of scenarios) {
      const rand = random(1234);
      const runs = [];
      for (let round = 1; round <= settings.rounds; round++) {
        const a = await measure(corral, scenario, database, rand);
        const b = await measure(baseline, scenario, database, rand);
        runs.push({ corral: a, baseline: b, ratio: a.rps / b.rps });
        log(`${kind} ${scenario.name} round ${round}: Corral ${Math.round(a.rps)} req/s, baseline ${Math.round(b.rps)} req/s, ratio ${(a.rps / b.rps).toFixed(2)}`);
      }
      const corralRps = median(runs.map((r) => r.corral.rps));
      const baselineRps = median(runs.map((r) => r.baseline.rps));
      rows.push({
        scenario: scenario.name,
        database: kind,
        corralRps: Math.round(corralRps),
        baselineRps: Math.round(baselineRps),
        ratio: Math.round(median(runs.map((r) => r.ratio)) * 100) / 100,
        target: scenario.target,
        p50Ms: median(runs.map((r) => r.corral.p50)),
        p99Ms: median(runs.map((r) => r.corral.p99)),
        baselineP50Ms: median(runs.map((r) => r.baseline.p50)),
        baselineP99Ms: median(runs.map((r) => r.baseline.p99)),
        corralPeakRssMb: mb(Math.max(...runs.map((r) => r.corral.peakRss ?? 0)) || null),
        corralIdleRssMb: mb(idleRss),
        rounds: runs.map((r) => ({ corralRps: Math.round(r.corral.rps), baselineRps: Math.round(r.baseline.rps), ratio: Math.round(r.ratio * 1000) / 1000 })),
      });
    }
  } finally {
    await corral.stop();
    await baseline.stop();
  }
  if (opts.profile) {
    for (const [server, handle] of [['corral', corral], ['baseline', baseline]]) {
      const file = join(RESULTS, 'profiles', profileName(server));
      log(`profile written to ${file}`);
      process.stdout.write(`\nCPU profile of ${handle.name} on ${kind} (${scenarios.map((s) => s.name).join(', ')}; includes start-up), ${handle.served} requests under load:\n`);
      process.stdout.write(summarizeProfile(file, 25, handle.served));
    }
  }
  return rows;
}

function printTable(rows, startup) {
  const header = ['scenario', 'database', 'Corral req/s', 'baseline req/s', 'ratio', 'target', 'p50 ms C/B', 'p99 ms C/B', 'Corral peak RSS MB'];
  const body = rows.map((r) => [
    r.scenario,
    r.database,
    String(r.corralRps),
    String(r.baselineRps),
    r.ratio.toFixed(2),
    `${r.ratio >= r.target ? '≥' : '<'} ${r.target.toFixed(2)}`,
    `${r.p50Ms} / ${r.baselineP50Ms}`,
    `${r.p99Ms} / ${r.baselineP99Ms}`,
    String(r.corralPeakRssMb),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const out = [line(header), `|${widths.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...body.map(line)];
  process.stdout.write(`\n${out.join('\n')}\n`);
  if (startup.length > 0) {
    process.stdout.write('\nStart-up with 50 collections (process spawn to first answered list; target ≤ 400 ms) and idle RSS (target ≤ 80 MB):\n');
    for (const s of startup) process.stdout.write(`  ${s.database}: start ${s.startMs} ms (runs ${s.startRunsMs.join(', ')}), idle RSS ${s.idleRssMb} MB\n`);
  }
  process.stdout.write(`\n${settings.mode} mode: ${settings.rounds} round(s) × ${settings.duration} s (after ${settings.warmup} s warm-up) per scenario and server, ${settings.connections} connections\n`);
}

async function main() {
  const began = performance.now();
  log(`${settings.mode} mode on ${databases.join(', ')}: ${scenarios.map((s) => s.name).join(', ')}`);
  const rows = [];
  const startup = [];
  for (const kind of databases) {
    rows.push(...(await benchDatabase(kind)));
    if (!opts['no-startup']) {
      log(`${kind}: measuring start-up with 50 collections`);
      startup.push(await measureStartup(kind));
    }
  }
  printTable(rows, startup);
  mkdirSync(RESULTS, { recursive: true });
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    settings: { ...settings, databases, scenarios: scenarios.map((s) => s.name), poolSize: POOL_SIZE, seed: SEED },
    rows,
    startup,
    seconds: Math.round((performance.now() - began) / 1000),
  };
  writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote bench/results/latest.json (${report.seconds} s)`);
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  process.stderr.write(`\n[bench] FAILED: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  exitCode = 1;
} finally {
  killAllChildren();
  await dropPgDatabases().catch((error) => process.stderr.write(`[bench] could not drop the bench databases: ${error.message}\n`));
  rmSync(tempDir, { recursive: true, force: true });
}
process.exit(exitCode);
