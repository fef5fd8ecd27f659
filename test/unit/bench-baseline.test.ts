import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';

// ---------------------------------------------------------------------------------------------
// The context baseline (BASELINE_EVENTS=1) records one event per written row in the write's
// transaction; the headline baseline records none. Served over HTTP as the bench uses it.

const SECRET = 'bench-rounds-test-secret';
const dir = mkdtempSync(join(tmpdir(), 'corral-bench-rounds-'));
const PG_ADMIN = process.env.BENCH_PG_URL ?? process.env.CORRAL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const pgNames: string[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  if (pgNames.length > 0) {
    const admin = new pg.Client({ connectionString: PG_ADMIN });
    await admin.connect();
    for (const name of pgNames) await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
});

function token(): string {
  const part = (x: object) => Buffer.from(JSON.stringify(x)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: '1', exp: Math.floor(Date.now() / 1000) + 600 })}`;
  return `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

async function startBaseline(url: string, events: boolean): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bench/baseline/server.mjs'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: url, AUTH_SECRET: SECRET, BASELINE_EVENTS: events ? '1' : '0' },
    stdio: 'ignore',
  });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) return base;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the baseline did not answer');
}

async function post(base: string, path: string, body: object): Promise<{ status: number; data?: Record<string, unknown> }> {
  const reply = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await reply.json()) as { data?: Record<string, unknown> };
  return { status: reply.status, data: json.data };
}

interface Store {
  url: string;
  /** The events table's rows in id order, or null when the table does not exist. */
  events(): Promise<Array<{ collection: string; action: string; key: string; data: string; at: number }> | null>;
}

const STORES: Array<{ name: string; make: (label: string) => Promise<Store> }> = [
  {
    name: 'sqlite',
    make: async (label) => {
      const file = join(dir, `${label}.sqlite`);
      const db = new Database(file);
      db.pragma('journal_mode = WAL');
      db.exec(`create table posts (id integer primary key autoincrement, createdAt text, updatedAt text, title varchar(255), body text,
        views integer, status varchar(255), authorId integer, ownerId integer)`);
      // The baseline prepares its statements on both tables at start.
      db.exec('create table comments (id integer primary key autoincrement, createdAt text, updatedAt text, body text, postId integer)');
      db.close();
      return {
        url: `sqlite:${file}`,
        events: async () => {
          const reader = new Database(file, { readonly: true });
          try {
            const exists = reader.prepare("select 1 from sqlite_master where name = 'bench_events'").get();
            return exists === undefined ? null : (reader.prepare('select collection, action, key, data, at from bench_events order by id').all() as never);
          } finally {
            reader.close();
          }
        },
      };
    },
  },
  {
    name: 'postgres',
    make: async (label) => {
      const name = `corral_bench_rounds_${process.pid}_${label}`;
      const admin = new pg.Client({ connectionString: PG_ADMIN });
      await admin.connect();
      await admin.query(`drop database if exists "${name}" with (force)`);
      await admin.query(`create database "${name}"`);
      await admin.end();
      pgNames.push(name);
      const url = new URL(PG_ADMIN);
      url.pathname = `/${name}`;
      const query = async (text: string) => {
        const client = new pg.Client({ connectionString: url.toString() });
        await client.connect();
        try {
          return (await client.query(text)).rows;
        } finally {
          await client.end();
        }
      };
      await query(`create table posts (id serial primary key, "createdAt" timestamptz, "updatedAt" timestamptz, title varchar(255), body text,
        views integer, status varchar(255), "authorId" integer, "ownerId" integer)`);
      return {
        url: url.toString(),
        events: async () => {
          const [{ exists }] = await query("select to_regclass('bench_events') is not null as exists");
          if (!exists) return null;
          return (await query('select collection, action, key, data, at::float8 as at from bench_events order by id')) as never;
        },
      };
    },
  },
];

// Only the dialects this run was given (CORRAL_TEST_DIALECTS): never PostgreSQL behind the run's back.
describe.each(STORES.filter((store) => (DIALECTS as string[]).includes(store.name)))('bench/baseline/server.mjs on $name', ({ make }) => {
  it('BASELINE_EVENTS=1 records one event per written row with its key and data; a write that finds no row records none', async () => {
    const store = await make('events');
    const base = await startBaseline(store.url, true);
    const before = Date.now();
    const created = await post(base, '/api/posts:create', { title: 'a', body: 'b', views: 3, status: 'draft', authorId: 1 });
    expect(created.status).toBe(201);
    const updated = await post(base, `/api/posts:update/${created.data!.id}`, { title: 'c', views: 4 });
    expect(updated.status).toBe(200);
    expect((await post(base, '/api/posts:update/999', { title: 'd', views: 5 })).status).toBe(404);
    const events = (await store.events())!;
    expect(events.map((e) => [e.collection, e.action, e.key])).toEqual([
      ['posts', 'create', String(created.data!.id)],
      ['posts', 'update', String(created.data!.id)],
    ]);
    for (const [event, row] of [
      [events[0]!, created.data!],
      [events[1]!, updated.data!],
    ] as const) {
      const data = JSON.parse(event.data) as Record<string, unknown>;
      // Dates are in PostgreSQL's JSON form there; the rest as answered.
      for (const field of ['id', 'title', 'body', 'views', 'status', 'authorId', 'ownerId']) expect(data[field]).toEqual(row[field]);
      expect(Number(event.at)).toBeGreaterThanOrEqual(before);
      expect(Number(event.at)).toBeLessThanOrEqual(Date.now());
    }
  });

  it('the headline baseline records no event', async () => {
    const store = await make('plain');
    const base = await startBaseline(store.url, false);
    expect((await post(base, '/api/posts:create', { title: 'a', body: 'b', views: 3, status: 'draft', authorId: 1 })).status).toBe(201);
    expect(await store.events()).toBeNull();
  });
});
