#!/usr/bin/env node
// `$search` on 100,000 rows, in process (Fastify inject, no network), per database: seeds the
// bench's `articles` (two searchable fields, rows and tokens inserted directly in SQL), then times searches of one, two and three words and
// a `$includes` scan of the same word for comparison. Indicative numbers; run after
// `npm run build`:  node bench/search-100k.mjs [sqlite|postgres] [rows]
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../dist/app.js';
import { DEFAULT_CONFIG } from '../dist/config/config.js';
import { seedSearch } from './lib/search-data.mjs';

const dialect = process.argv[2] ?? 'sqlite';
const ROWS = Number(process.argv[3] ?? 100_000);
const REPEAT = 200;

let database;
let cleanup = async () => undefined;
if (dialect === 'sqlite') {
  const file = join(tmpdir(), `corral-search-${process.pid}.sqlite`);
  database = { dialect: 'sqlite', file };
  cleanup = async () => rmSync(file, { force: true });
} else {
  const name = `corral_search_${process.pid}`;
  const admin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  database = { dialect: 'postgres', url: `postgres://postgres@127.0.0.1:5432/${name}`, poolSize: 10 };
  cleanup = async () => {
    const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  };
}

const built = await buildApp({ ...DEFAULT_CONFIG, port: 0, database, logLevel: 'silent', bodyLimit: 64 * 1024 * 1024, corsOrigins: [], allowedHosts: [], trustedProxies: [], workers: 1 });
const call = async (method, url, body) => {
  const reply = await built.app.inject({ method, url, ...(body === undefined ? {} : { payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  if (reply.statusCode >= 300) throw new Error(`${method} ${url}: ${reply.statusCode} ${reply.body.slice(0, 300)}`);
  return JSON.parse(reply.body);
};
try {
  // The bench's `search` data set: rows and tokens inserted directly in SQL (bench/lib/search-data.mjs).
  const address = await built.app.listen({ port: 0, host: '127.0.0.1' });
  const started = Date.now();
  await seedSearch(address, dialect === 'sqlite' ? { kind: 'sqlite', file: database.file } : { kind: 'postgres', url: database.url }, ROWS);
  console.log(`${dialect}: seeded ${ROWS} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const enc = (filter) => encodeURIComponent(JSON.stringify(filter));
  const cases = [
    ['$search 1 word (rare prefix "12345")', `/api/articles:list?pageSize=20&filter=${enc({ $search: '12345' })}`],
    ['$search 2 words ("juliet kil")', `/api/articles:list?pageSize=20&filter=${enc({ $search: 'juliet kil' })}`],
    ['$search common + rare ("alpha 12345")', `/api/articles:list?pageSize=20&filter=${enc({ $search: 'alpha 12345' })}`],
    ['$search 3 words ("juliet kilo 9999")', `/api/articles:list?pageSize=20&simplePaginate=true&filter=${enc({ $search: 'juliet kilo 9999' })}`],
    ['?q= 2 words, count', `/api/articles:count?filter=${enc({ $search: 'zulu yankee' })}`],
    ['$includes "12345" (scan, for comparison)', `/api/articles:list?pageSize=20&filter=${enc({ title: { $includes: '12345' } })}`],
  ];
  for (const [label, url] of cases) {
    const first = await call('GET', url);
    const times = [];
    for (let i = 0; i < REPEAT; i++) {
      const t = process.hrtime.bigint();
      await call('GET', url);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    times.sort((a, b) => a - b);
    const hits = typeof first.data === 'number' ? first.data : (first.meta?.count ?? first.data.length);
    console.log(`${dialect}: ${label}: median ${times[REPEAT / 2].toFixed(2)} ms, p95 ${times[Math.floor(REPEAT * 0.95)].toFixed(2)} ms (${hits} hits)`);
  }
} finally {
  await built.app.close();
  await cleanup();
}
