// What a read costs on a SQLite reader thread (src/db/sqlite-read-pool.ts) against the same
// statement on the main connection: a get by key, 20,000 times each way, after `npm run build`.
// Usage: node bench/sqlite-reader-hop.mjs (see docs/performance.md#sqlite-reader-threads).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteReadPool } from '../dist/db/sqlite-read-pool.js';
const dir = mkdtempSync(join(tmpdir(), 'corral-hop-'));
const file = join(dir, 'hop.sqlite');
const db = new Database(file); db.pragma('journal_mode = WAL'); db.defaultSafeIntegers(true);
db.exec('drop table if exists posts; create table posts (id integer primary key, title text, views integer)');
db.exec("with recursive s(i) as (select 1 union all select i+1 from s where i < 10000) insert into posts select i, 'post ' || i, i % 100 from s");
const sql = 'select id, title, views from posts where id = ?';
const st = db.prepare(sql);
const pool = new SqliteReadPool({ file, size: 2, timeoutMs: 30000, statementCache: 1000 });
await pool.run(sql, [1n], true);
const N = 20000;
for (const round of [1, 2]) {
  let c0 = process.cpuUsage(); let t0 = performance.now();
  for (let i = 0; i < N; i++) st.get(BigInt(1 + (i % 10000)));
  const direct = { wall: (performance.now() - t0) * 1000 / N, cpu: (process.cpuUsage(c0).user + process.cpuUsage(c0).system) / N };
  c0 = process.cpuUsage(); t0 = performance.now();
  for (let i = 0; i < N; i++) await pool.run(sql, [BigInt(1 + (i % 10000))], true);
  const cu = process.cpuUsage(c0);
  const hop = { wall: (performance.now() - t0) * 1000 / N, mainCpu: (cu.user + cu.system) / N };
  console.log(`round ${round}: direct ${direct.wall.toFixed(1)} µs wall; via thread ${hop.wall.toFixed(1)} µs wall, process CPU ${hop.mainCpu.toFixed(1)} µs (both threads)`);
}
await pool.close();
db.close();
rmSync(dir, { recursive: true, force: true });
