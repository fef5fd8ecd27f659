#!/usr/bin/env node
// The change feed under load: create throughput with and without 50 open subscribers, and
// commit-to-subscriber latency (p50/p99). Standalone; runs the built server (npm run build).
//
//   node bench/subscribers.mjs [--db=sqlite|postgres] [--duration=S] [--subscribers=N] [--connections=N] [--workers=N] [--rounds=N]
//   Rounds alternate a run without subscribers and one with them (the machine's load drifts);
//   the report gives the median of each and the latency over every run with subscribers.
//   env: BENCH_PG_URL  admin URL of the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres)
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    duration: { type: 'string', default: '8' },
    subscribers: { type: 'string', default: '50' },
    connections: { type: 'string', default: '10' },
    workers: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
  },
});
const duration = Number(opts.duration);
const subscriberCount = Number(opts.subscribers);
const connections = Number(opts.connections);
const log = (message) => process.stderr.write(`[subscribers] ${message}\n`);

async function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function database() {
  if (opts.db === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'corral-bench-subs-'));
    return { url: `sqlite:${join(dir, 'bench.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const { default: pg } = await import('pg');
  const admin = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `corral_bench_subs_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database "${name}"`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists "${name}" with (force)`);
      await c.end();
    },
  };
}

async function post(base, path, body) {
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

/**
 * An SSE connection. With `onEvent`, each event is parsed and passed with its arrival time;
 * without, frames are only counted (so the load generator is not the bottleneck).
 */
function subscribe(base, onEvent, onCount) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/api/bench_items:subscribe`, { headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`subscribe: ${res.statusCode}`));
      res.setEncoding('utf8');
      let buffer = '';
      res.on('data', (chunk) => {
        if (onEvent === undefined) {
          let at = -1;
          while ((at = chunk.indexOf('\ndata: ', at + 1)) >= 0) onCount();
          return;
        }
        const now = Date.now();
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = frame.split('\n').find((line) => line.startsWith('data: '));
          if (data !== undefined) onEvent(JSON.parse(data.slice(6)), now);
        }
      });
      resolve(() => req.destroy());
    });
    req.on('error', reject);
    req.end();
  });
}

/** CPU seconds the server process has used (user + system), from /proc (Linux). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function createRun(base) {
  const cpuBefore = cpuSeconds(child.pid);
  const result = await autocannon({
    url: `${base}/api/bench_items:create`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'bench', views: 1 }),
    connections,
    duration,
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`create run: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const cpu = cpuSeconds(child.pid) - cpuBefore;
  return { rps: result.requests.average, cpuUsPerCreate: (cpu * 1e6) / result.requests.total };
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const db = await database();
const port = await freePort();
// BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server.
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'bin', 'corral.js'), 'start'], {
  cwd: ROOT,
  env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: db.url, CORRAL_WORKERS: opts.workers },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch {}
    if (i > 200) throw new Error('the server did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await post(base, '/api/collections:create', { name: 'bench_items', fields: [{ name: 'title', type: 'string' }, { name: 'views', type: 'integer' }] });
  log(`warm-up, then ${duration} s of creates on ${connections} connections (${opts.db})`);
  await createRun(base);
  const latencies = [];
  let received = 0;
  const withouts = [];
  const withs = [];
  for (let round = 0; round < Number(opts.rounds); round++) {
    withouts.push(await createRun(base));
    const closers = [];
    for (let i = 0; i < subscriberCount; i++) {
      const count = () => received++;
      const timed = (event, arrived) => {
        received++;
        latencies.push(arrived - Date.parse(event.at));
      };
      closers.push(await subscribe(base, i === 0 ? timed : undefined, count));
    }
    withs.push(await createRun(base));
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const close of closers) close();
    log(`round ${round + 1}: without ${Math.round(withouts.at(-1).rps)}/s ${Math.round(withouts.at(-1).cpuUsPerCreate)} µs CPU each, with ${Math.round(withs.at(-1).rps)}/s ${Math.round(withs.at(-1).cpuUsPerCreate)} µs CPU each`);
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const without = median(withouts.map((run) => run.rps));
  const withSubs = median(withs.map((run) => run.rps));
  const cpuWithout = median(withouts.map((run) => run.cpuUsPerCreate));
  const cpuWith = median(withs.map((run) => run.cpuUsPerCreate));
  latencies.sort((a, b) => a - b);
  const report = {
    db: opts.db,
    connections,
    workers: Number(opts.workers),
    durationS: duration,
    subscribers: subscriberCount,
    createPerSecWithout: Math.round(without),
    createPerSecWith: Math.round(withSubs),
    ratio: Math.round((withSubs / without) * 100) / 100,
    // Server CPU per create: what the subscribers cost, whatever else loads the machine.
    cpuUsPerCreateWithout: Math.round(cpuWithout),
    cpuUsPerCreateWith: Math.round(cpuWith),
    cpuRatio: Math.round((cpuWithout / cpuWith) * 100) / 100,
    rounds: withouts.map((run, index) => ({ without: Math.round(run.rps), with: Math.round(withs[index].rps) })),
    eventsPerSubscriberRun: Math.round(received / subscriberCount / withs.length),
    latencyMs: { p50: pct(latencies, 50), p99: pct(latencies, 99), max: latencies.at(-1), samples: latencies.length },
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  await db.drop();
}
