#!/usr/bin/env node
// `$search` at scale, through a running server (`corral start`, one worker) at 2 connections.
//   node bench/search-scale.mjs seed sqlite|postgres ROWS FILE|DBNAME   seeds the bench's `articles`
//        (rows and tokens in SQL, bench/lib/search-data.mjs); every row holds `cafe` and `unicode`
//   node bench/search-scale.mjs time DATABASE_URL [--corral=DIR] [--requests=N] [QUERY…]
//        starts DIR/bin/corral.js start (default: this checkout) on the database and times each QUERY
//        (default `q=cafe`, a word in every row): p50/p90 of N requests (default 20) per connection
//        after a warm-up, and the server's CPU per request.
// Run after `npm run build`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { authHeaders, CORRAL_AUTH_ENV, signIn } from './lib/auth.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const [mode, ...rest] = process.argv.slice(2);
const flags = Object.fromEntries(rest.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')));
const args = rest.filter((a) => !a.startsWith('--'));
const PORT = 23957;

if (mode === 'seed') {
  const [dialect, rows, where] = args;
  const { seedSearch } = await import('./lib/search-data.mjs');
  let url;
  if (dialect === 'sqlite') url = `sqlite:${resolve(where)}`;
  else {
    const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await admin.connect();
    await admin.query(`drop database if exists ${where} with (force)`);
    await admin.query(`create database ${where}`);
    await admin.end();
    url = `postgres://postgres@127.0.0.1:5432/${where}`;
  }
  const server = await start(url, join(here, '..'), Number(flags.port ?? PORT));
  try {
    const started = Date.now();
    await seedSearch(server.base, dialect === 'sqlite' ? { kind: 'sqlite', file: resolve(where) } : { kind: 'postgres', url }, Number(rows));
    console.log(`${dialect}: seeded ${rows} rows in ${((Date.now() - started) / 1000).toFixed(1)} s: ${url}`);
  } finally {
    server.process.kill('SIGTERM');
  }
} else if (mode === 'time') {
  const [url, ...queries] = args;
  const corral = resolve(flags.corral ?? join(here, '..'));
  const requests = Number(flags.requests ?? 20);
  const server = await start(url, corral, Number(flags.port ?? PORT));
  const { base } = server;
  const cpu = () => {
    const fields = readFileSync(`/proc/${server.process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, ms (100 Hz)
  };
  try {
    for (const query of queries.length > 0 ? queries : ['q=cafe']) {
      const path = `/api/articles:list?pageSize=20&${query}`;
      const get = async () => {
        const t = process.hrtime.bigint();
        const reply = await fetch(base + path, { headers: authHeaders() });
        const body = await reply.json();
        if (!reply.ok) throw new Error(`${path}: ${reply.status} ${JSON.stringify(body)}`);
        return { ms: Number(process.hrtime.bigint() - t) / 1e6, meta: body.meta, first: body.data[0]?.id };
      };
      // Warm-up: the first request starts the word counts in the background.
      const first = await get();
      await new Promise((r) => setTimeout(r, 3000));
      await get();
      const before = cpu();
      const times = [];
      let last;
      await Promise.all([0, 1].map(async () => {
        for (let i = 0; i < requests; i++) {
          last = await get();
          times.push(last.ms);
        }
      }));
      const used = cpu() - before;
      times.sort((a, b) => a - b);
      const at = (p) => times[Math.min(times.length - 1, Math.floor(times.length * p))].toFixed(1);
      console.log(`${query}: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, server CPU ${(used / times.length).toFixed(1)} ms/request (first ${first.ms.toFixed(0)} ms); meta ${JSON.stringify(last.meta)}, first id ${last.first}`);
    }
  } finally {
    server.process.kill('SIGTERM');
  }
} else {
  console.error('usage: node bench/search-scale.mjs seed sqlite|postgres ROWS FILE|DBNAME | time DATABASE_URL [--corral=DIR] [--requests=N] [QUERY…]');
  process.exit(2);
}

/** Starts `CORRAL/bin/corral.js start` on the database (one worker, 2 connections) and waits for /healthz. */
async function start(url, corral, port) {
  const child = spawn(process.execPath, [join(corral, 'bin/corral.js'), 'start'], {
    env: { ...process.env, ...CORRAL_AUTH_ENV, DATABASE_URL: url, PORT: String(port), CORRAL_WORKERS: '1', LOG_LEVEL: 'warn', CORRAL_STUDIO: 'off', CORRAL_DB_POOL_SIZE: '2', CORRAL_BODY_LIMIT: '64mb' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) {
        await signIn(base);
        return { process: child, base };
      }
    } catch {
      if (i > 300) throw new Error('server did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
