// @ts-check
// The databases of a run: a fresh SQLite file, or a fresh uniquely named PostgreSQL database,
// per use; their copies, and the resets that give every run the same seeded table.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { SEED } from '../seed.mjs';
import { PG_ADMIN_URL, tempDir } from './config.mjs';

/** @typedef {import('./types.mjs').BenchDatabase} BenchDatabase */

/** @type {string[]} */
const pgDatabases = [];

/**
 * @template T
 * @param {(client: import('pg').Client) => Promise<T>} fn
 * @returns {Promise<T>}
 */
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

/**
 * @param {import('./types.mjs').DatabaseKind} kind
 * @param {string} label
 * @param {string} [template] PostgreSQL: the database to clone
 * @returns {Promise<BenchDatabase>}
 */
export async function createDatabase(kind, label, template) {
  if (kind === 'sqlite') {
    const file = join(tempDir, `${label}.sqlite`);
    return { kind, url: `sqlite:${file}`, file };
  }
  const name = `corral_bench_${process.pid}_${Date.now().toString(36)}_${label}`;
  await withPg((client) => client.query(`create database "${name}"${template === undefined ? '' : ` template "${template}"`}`));
  pgDatabases.push(name);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { kind, url: url.toString(), name };
}

/**
 * A byte-identical copy of a seeded database, for a server of its own: SQLite copies the file
 * (its log checkpointed into it first), PostgreSQL clones it as a template. Each server writing
 * its own copy is what lets write scenarios load both servers at once (see compare()), and no
 * server's log, checkpoints or locks reach another's runs.
 * @param {BenchDatabase} source
 * @param {string} label
 * @returns {Promise<BenchDatabase>}
 */
export async function copyDatabase(source, label) {
  if (source.kind === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(source.file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const file = join(tempDir, `${label}.sqlite`);
    copyFileSync(source.file, file);
    return { kind: source.kind, url: `sqlite:${file}`, file };
  }
  return createDatabase(source.kind, label, source.name);
}

export async function dropPgDatabases() {
  if (pgDatabases.length === 0) return;
  await withPg(async (client) => {
    for (const name of pgDatabases.splice(0)) await client.query(`drop database if exists "${name}" with (force)`);
  });
}

/**
 * Deletes the posts a write scenario added, so every run sees the seeded table, and leaves the
 * database's write-ahead log as every run should find it:
 * - SQLite: both servers write one file, and the WAL is checkpointed by whichever commit finds
 *   it past 1,000 pages; truncated here, each run starts from an empty WAL, so the checkpoints
 *   a run pays depend on what it writes, not on what the run before it left.
 * - PostgreSQL: `vacuum analyze posts` clears the dead rows of the run before (autovacuum is
 *   off on `posts` while the bench runs, see noAutovacuum: it would start at a random moment,
 *   in one server's window) and `checkpoint` flushes its dirty pages now rather than later.
 * @param {BenchDatabase} database
 */
export async function resetPosts(database) {
  if (database.kind === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(database.file);
    db.pragma('busy_timeout = 5000');
    db.prepare('delete from posts where id > ?').run(SEED.posts);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    return;
  }
  await withPostgres(database, async (client) => {
      await client.query('delete from posts where id > $1', [SEED.posts]);
      await client.query('vacuum analyze posts');
      await client.query('checkpoint');
  });
}

/** PostgreSQL: no autovacuum on `posts` (resetPosts vacuums between write runs instead). @param {BenchDatabase} database */
export async function noAutovacuum(database) {
  if (database.kind !== 'postgres') return;
  await withPostgres(database, async (client) => {
      await client.query('alter table posts set (autovacuum_enabled = false, toast.autovacuum_enabled = false)');
  });
}

/**
 * PostgreSQL: every scenario starts from the same table, the seeded posts in key order with
 * fresh statistics, whichever scenarios ran before it. After `update` rewrote ~30,000 random
 * rows, the heap's order no longer follows `id` (pg_stats correlation 1.00 → 0.01), and a
 * custom plan of `order by id limit 20 offset 9000` switched from the index to a sequential
 * scan and an on-disk sort (20 ms instead of 9): page450 measured that, not the servers (see
 * docs/performance.md). SQLite updates rows in place and keeps no statistics unless asked.
 * @param {BenchDatabase} database
 */
export async function freshTable(database) {
  if (database.kind !== 'postgres') return;
  await withPostgres(database, async (client) => {
      await client.query('cluster posts using posts_pkey');
      await client.query('analyze posts');
  });
}

/**
 * Inserts posts 2..count directly in SQL, copying post 1 (made by Corral) for the stored formats.
 * @param {BenchDatabase} database
 * @param {number} count
 */
export async function insertPosts(database, count) {
  const statuses = ['published', 'draft', 'archived'];
  if (database.kind === 'sqlite') {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(database.file);
    db.pragma('journal_mode = WAL');
    // One statement (so one transaction): the rows are generated inside SQLite.
    db.prepare(
      `with recursive n(i) as (select 2 union all select i + 1 from n where i < ?)
       insert into posts (createdAt, updatedAt, title, body, views, status, authorId)
       select t.createdAt, t.updatedAt, 'post ' || i, t.body, (i * 7919) % 1000, case i % 3 when 0 then ? when 1 then ? else ? end, 1 + (i * 31) % ?
       from n, (select * from posts where id = 1) as t`,
    ).run(count, ...statuses, SEED.authors);
    db.close();
    return;
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await client.query(
      `insert into posts ("createdAt", "updatedAt", title, body, views, status, "authorId")
       select t."createdAt", t."updatedAt", 'post ' || n, t.body, (n::bigint * 7919) % 1000, ($2::text[])[n % 3 + 1], 1 + (n * 31) % $3
       from generate_series(2, $1::int) as n, (select * from posts where id = 1) as t`,
      [count, statuses, SEED.authors],
    );
    await client.query('vacuum analyze posts');
  } finally {
    await client.end();
  }
}

/**
 * Runs statements on the bench database of a PostgreSQL run with a client of its own.
 * @param {BenchDatabase} database
 * @param {(client: import('pg').Client) => Promise<void>} work
 */
export async function withPostgres(database, work) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
