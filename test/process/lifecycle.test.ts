import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, DIALECTS, ONCE_DIALECT, type TestDatabase } from '../support/test-database.js';
import { killAll, lines, sleep, spawnCorral, startCorral, waitFor, type CorralProcess } from './support.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

// Processes started in beforeAll live through their describe block, so children are killed
// in afterAll (each block's and this file's), which runs even when a test fails.
afterAll(killAll);

/** A process that must refuse to start: its exit and its stderr lines. */
async function failedStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string[]; stdout: string }> {
  const proc = await spawnCorral({ env });
  const timer = setTimeout(() => void proc.kill(), 15_000);
  const exit = await proc.exited;
  clearTimeout(timer);
  return { code: exit.code, stderr: lines(proc.stderr()), stdout: proc.stdout() };
}

/** The exit of a process already told to stop; SIGKILL (and a failing exit) after `ms`. */
async function exitWithin(proc: CorralProcess, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const timer = setTimeout(() => void proc.kill(), ms);
  try {
    return await proc.exited;
  } finally {
    clearTimeout(timer);
  }
}

// Needs no database: runs in the pass with the dialect-free tests (not again in CI's PostgreSQL/MariaDB pass).
describe.runIf(ONCE_DIALECT !== undefined)('start-up refusals', () => {
  const cases: Array<{ setting: string; env: Record<string, string> }> = [
    { setting: 'PORT', env: { PORT: 'abc' } },
    { setting: 'DATABASE_URL', env: { DATABASE_URL: 'ftp://x' } },
    { setting: 'LOG_LEVEL', env: { LOG_LEVEL: 'loud' } },
    { setting: 'CORRAL_SCHEMA_POLL_MS', env: { CORRAL_SCHEMA_POLL_MS: '10' } },
    { setting: 'CORRAL_BODY_LIMIT', env: { CORRAL_BODY_LIMIT: 'lots' } },
    // Authentication off opens every route: refused unless the server listens on loopback only.
    { setting: 'CORRAL_AUTH', env: { CORRAL_AUTH: 'off', HOST: '0.0.0.0' } },
    { setting: 'CORRAL_AUTH', env: { CORRAL_AUTH: 'off', HOST: '192.0.2.10' } },
    { setting: 'CORRAL_AUTH', env: { CORRAL_AUTH: 'maybe' } },
  ];
  for (const { setting, env } of cases) {
    it(`bad ${setting} (${JSON.stringify(env)}) exits 1 with one line naming it`, async () => {
      const result = await failedStart({ DATABASE_URL: 'sqlite::memory:', ...env });
      expect(result.code).toBe(1);
      expect(result.stderr, result.stderr.join('\n')).toHaveLength(1);
      expect(result.stderr[0]).toMatch(/^corral: /);
      expect(result.stderr[0]).toContain(setting);
      expect(result.stderr[0]).not.toMatch(/\bat .+:\d+:\d+/);
    });
  }

  it('a bad command-line flag names the flag', async () => {
    const proc = await spawnCorral({ args: ['start', '--port', 'x'], env: { DATABASE_URL: 'sqlite::memory:' } });
    const exit = await proc.exited;
    expect(exit.code).toBe(1);
    expect(lines(proc.stderr())).toEqual([expect.stringContaining('--port')]);
  });

  const unreachable = [
    { dialect: 'postgres', url: 'postgres://postgres@127.0.0.1:1/x' },
    { dialect: 'mysql', url: 'mysql://root@127.0.0.1:1/x' },
  ];
  for (const { dialect, url } of unreachable) {
    it(`an unreachable ${dialect} database exits 1 with one line`, async () => {
      const result = await failedStart({ DATABASE_URL: url });
      expect(result.code).toBe(1);
      expect(result.stderr, result.stderr.join('\n')).toHaveLength(1);
      expect(result.stderr[0]).toMatch(/^corral: cannot start: .*ECONNREFUSED/);
      expect(result.stderr[0]).not.toMatch(/\bat .+:\d+:\d+/);
    });
  }

  for (const scheme of ['postgres', 'mysql']) {
    it(`a ${scheme} server that accepts but never answers fails the start within the connect timeout, with one line`, async () => {
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as AddressInfo;
      try {
        // The silent server keeps every socket open until `finally`: the process can only have
        // given up through its connect timeout (no clock is read here).
        const result = await failedStart({ DATABASE_URL: `${scheme}://root@127.0.0.1:${port}/x`, CORRAL_DB_CONNECT_TIMEOUT_MS: '500' });
        expect(result.code).toBe(1);
        expect(result.stderr, result.stderr.join('\n')).toHaveLength(1);
        expect(result.stderr[0]).toMatch(/^corral: cannot start: /);
        expect(sockets.size).toBeGreaterThan(0);
      } finally {
        for (const socket of sockets) socket.destroy();
        silent.close();
      }
    });
  }

  it('a missing schema file exits 1 with one line naming CORRAL_SCHEMA', async () => {
    const result = await failedStart({ DATABASE_URL: 'sqlite::memory:', CORRAL_SCHEMA: '/nonexistent/corral-schema.json' });
    expect(result.code).toBe(1);
    expect(result.stderr, result.stderr.join('\n')).toHaveLength(1);
    expect(result.stderr[0]).toContain('CORRAL_SCHEMA');
    expect(result.stderr[0]).toContain('/nonexistent/corral-schema.json');
  });

  it('a schema file that is not JSON exits 1 with one line naming CORRAL_SCHEMA', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-schema-'));
    try {
      const file = join(dir, 'schema.json');
      writeFileSync(file, '[{"name": "x",');
      const result = await failedStart({ DATABASE_URL: 'sqlite::memory:', CORRAL_SCHEMA: file });
      expect(result.code).toBe(1);
      expect(result.stderr, result.stderr.join('\n')).toHaveLength(1);
      expect(result.stderr[0]).toContain('CORRAL_SCHEMA');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('version and help work without a database', async () => {
    const version = await spawnCorral({ args: ['version'], env: { PORT: 'abc' } });
    expect((await version.exited).code).toBe(0);
    expect(version.stdout().trim()).toBe(VERSION);
    const help = await spawnCorral({ args: ['--help'] });
    expect((await help.exited).code).toBe(0);
    // Every setting of the README's configuration table, each on its own line.
    const table = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').split('## Configuration')[1]!.split('\n\n')[1]!;
    const names = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]!);
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) expect(help.stdout(), name).toMatch(new RegExp(`^  (--[a-z]+ +)?${name} `, 'm'));
  });
});

describe('service endpoints', () => {
  for (const dialect of DIALECTS) {
    describe(`on ${dialect}`, () => {
      let database: TestDatabase;
      let proc: CorralProcess;
      beforeAll(async () => {
        database = await createTestDatabase(dialect);
        proc = await startCorral({ env: { DATABASE_URL: database.url } });
      });
      afterAll(async () => {
        await proc?.stop();
        await database?.drop();
      });

      it('/healthz, /readyz and app:getInfo answer', async () => {
        const health = await proc.request('GET', '/healthz');
        expect(health.status).toBe(200);
        const ready = await proc.request('GET', '/readyz');
        expect(ready.status, ready.text).toBe(200);
        expect(ready.body.data).toMatchObject({ dialect });
        const info = await proc.request('GET', '/api/app:getInfo');
        expect(info.status, info.text).toBe(200);
        expect(info.body.data).toMatchObject({ version: VERSION, dialect });
      });

      it('stops on SIGINT with exit code 0', async () => {
        const other = await startCorral({ env: { DATABASE_URL: database.url } });
        other.child.kill('SIGINT');
        const exit = await exitWithin(other, 15_000);
        expect(exit.code, other.stdout() + other.stderr()).toBe(0);
      });
    });
  }

  if (DIALECTS.includes('postgres')) {
    it('/readyz is 503 DATABASE_UNAVAILABLE while the database is gone, /healthz stays 200', async () => {
      const database = await createTestDatabase('postgres');
      const proc = await startCorral({ env: { DATABASE_URL: database.url } });
      try {
        expect((await proc.request('GET', '/readyz')).status).toBe(200);
        await database.drop();
        const ready = await proc.request('GET', '/readyz');
        expect(ready.status, ready.text).toBe(503);
        expect(ready.body.errors[0].code).toBe('DATABASE_UNAVAILABLE');
        expect((await proc.request('GET', '/healthz')).status).toBe(200);
        const exit = await proc.stop();
        expect(exit.code, proc.stderr()).toBe(0);
      } finally {
        await proc.kill();
        await database.drop();
      }
    });
  }
});

describe.runIf(DIALECTS.includes('sqlite'))('graceful shutdown', () => {
  const ROWS = 20_000;
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await killAll();
    await database?.drop();
  });

  it('a first start says what it created, with no error or stack trace in the log; shutdown says it finished', async () => {
    const fresh = await createTestDatabase('sqlite');
    try {
      const proc = await startCorral({ env: { DATABASE_URL: fresh.url, LOG_LEVEL: 'info' } });
      proc.child.kill('SIGTERM');
      expect((await exitWithin(proc, 15_000)).code, proc.stdout() + proc.stderr()).toBe(0);
      await waitFor(async () => proc.stdout().includes('shutdown finished'), 'the last log line', 2000);
      const messages = lines(proc.stdout()).map((line) => JSON.parse(line) as { level: number; msg: string; err?: unknown });
      expect(messages.map((entry) => entry.msg)).toContain("first start: created Corral's system tables");
      expect(messages.filter((entry) => entry.err !== undefined || entry.level >= 40)).toEqual([]);
    } finally {
      await fresh.drop();
    }
  });

  it('SIGTERM while a streamed list is in flight: the whole body arrives, then exit 0', async () => {
    const proc = await startCorral({ env: { DATABASE_URL: database.url } });
    const created = await proc.request('POST', '/api/collections:create', {
      name: 'x',
      fields: [
        { name: 'n', type: 'integer' },
        { name: 'body', type: 'text' },
      ],
    });
    expect(created.status, created.text).toBe(201);
    const filler = 'lorem ipsum '.repeat(20);
    for (let start = 0; start < ROWS; start += 1000) {
      const batch = Array.from({ length: 1000 }, (_, i) => ({ n: start + i, body: filler }));
      const reply = await proc.request('POST', '/api/x:create', batch);
      expect(reply.status, reply.text.slice(0, 500)).toBe(201);
    }

    const response = await fetch(`${proc.baseUrl}/api/x:list?paginate=false&sort=n`, { headers: await proc.authHeaders() });
    expect(response.status).toBe(200);
    proc.child.kill('SIGTERM');
    // Stay slow for a moment so the server is blocked on a full socket while shutting down.
    await sleep(300);
    expect(proc.hasExited()).toBe(false);
    const text = await response.text();
    const body = JSON.parse(text) as { data: Array<{ n: number; body: string }> };
    expect(body.data).toHaveLength(ROWS);
    expect(body.data[0]).toMatchObject({ n: 0, body: filler });
    expect(body.data[ROWS - 1]).toMatchObject({ n: ROWS - 1, body: filler });
    // SIGTERM was sent already: wait for the exit (a second signal would mean "exit now", code 1).
    const exit = await exitWithin(proc, 15_000);
    expect(exit.code, proc.stdout() + proc.stderr()).toBe(0);
    expect(exit.signal).toBeNull();
  });

  it('ends on time when shutdown cannot finish (a request body that never completes)', async () => {
    const proc = await startCorral({ env: { DATABASE_URL: database.url, LOG_LEVEL: 'info', CORRAL_SHUTDOWN_TIMEOUT_MS: '300' } });
    const socket = createConnection(proc.port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write('POST /api/x:create HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"n":');
    await sleep(100);
    proc.child.kill('SIGTERM');
    const exit = await exitWithin(proc, 20_000);
    socket.destroy();
    // The configured 300 ms, not the 10 s default, is what ended it: the log line below names it (no clock is read).
    expect(exit.signal, proc.stdout()).toBe('SIGKILL');
    // The exit can be reported before the last of its stdout has been read.
    await waitFor(async () => proc.stdout().includes('shutdown took longer than 300 ms'), 'the timeout log line', 2000).catch((error: unknown) => { throw new Error(`${String(error)}: ${proc.stdout()}`); });
  });

  it('answers 503 to new requests while draining and then exits 0', async () => {
    const proc = await startCorral({ env: { DATABASE_URL: database.url, LOG_LEVEL: 'info' } });
    const response = await fetch(`${proc.baseUrl}/api/x:list?paginate=false`, { headers: await proc.authHeaders() });
    expect(response.status).toBe(200);
    proc.child.kill('SIGTERM');
    await waitFor(async () => proc.stdout().includes('SIGTERM received'), 'shutdown log line', 5000);
    await sleep(50);
    // The listening socket is closed (connection refused), or a kept-alive one is answered 503.
    const late = await fetch(`${proc.baseUrl}/healthz`).then(
      async (reply) => ({ status: reply.status, body: await reply.text() }),
      () => 'refused',
    );
    if (typeof late !== 'string') expect(late.status, late.body).toBe(503);
    expect(JSON.parse(await response.text()).data).toHaveLength(ROWS);
    expect((await exitWithin(proc, 15_000)).code, proc.stdout() + proc.stderr()).toBe(0);
  });
});

describe('CORRAL_SCHEMA', () => {
  for (const dialect of DIALECTS) {
    describe(`on ${dialect}`, () => {
      let database: TestDatabase;
      let dir: string;
      beforeAll(async () => {
        database = await createTestDatabase(dialect);
        dir = mkdtempSync(join(tmpdir(), 'corral-schema-'));
      });
      afterAll(async () => {
        await killAll();
        await database?.drop();
        rmSync(dir, { recursive: true, force: true });
      });

      it('creates collections at start and applies the file again idempotently', async () => {
        const file = join(dir, 'schema.json');
        const authors = { name: 'authors', fields: [{ name: 'name', type: 'string', allowNull: false, unique: true }] };
        const books = {
          name: 'books',
          title: 'Books',
          fields: [
            { name: 'title', type: 'string', length: 200 },
            { name: 'price', type: 'decimal', precision: 10, scale: 2 },
            { name: 'authorId', type: 'integer', index: true },
          ],
        };
        writeFileSync(file, JSON.stringify([authors, books]));
        const env = { DATABASE_URL: database.url, CORRAL_SCHEMA: file };

        const first = await startCorral({ env });
        const names = await first.request('GET', '/api/collections:list?paginate=false');
        expect(names.status, names.text).toBe(200);
        expect(names.body.data.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(['authors', 'books']));
        const author = await first.request('POST', '/api/authors:create', { name: 'Ann' });
        expect(author.status, author.text).toBe(201);
        const book = await first.request('POST', '/api/books:create', { title: 'Dune', price: '9.50', authorId: author.body.data.id });
        expect(book.status, book.text).toBe(201);
        const versionAfterFirst = (await first.request('GET', '/api/app:getInfo')).body.data.schemaVersion;
        expect((await first.stop()).code).toBe(0);

        // Same file again: nothing changes, not even the schema version.
        const second = await startCorral({ env });
        expect((await second.request('GET', '/api/app:getInfo')).body.data.schemaVersion).toBe(versionAfterFirst);
        expect((await second.stop()).code).toBe(0);

        // The file plus one new field: only that field is added, rows are kept.
        const withPages = { ...books, fields: [...books.fields, { name: 'pages', type: 'integer', defaultValue: 100 }] };
        writeFileSync(file, JSON.stringify([authors, withPages]));
        const third = await startCorral({ env });
        const fields = await third.request('GET', '/api/collections/books/fields:list');
        expect(fields.status, fields.text).toBe(200);
        const fieldNames = fields.body.data.map((f: { name: string }) => f.name);
        expect(fieldNames).toEqual(expect.arrayContaining(['id', 'title', 'price', 'authorId', 'pages']));
        expect(fieldNames.filter((name: string) => name === 'pages')).toHaveLength(1);
        const list = await third.request('GET', '/api/books:list');
        expect(list.status, list.text).toBe(200);
        expect(list.body.data).toEqual([expect.objectContaining({ title: 'Dune', price: '9.50', authorId: author.body.data.id, pages: 100 })]);
        const versionAfterThird = (await third.request('GET', '/api/app:getInfo')).body.data.schemaVersion;
        expect(versionAfterThird).not.toBe(versionAfterFirst);
        expect((await third.stop()).code).toBe(0);

        // And once more with the grown file: still nothing to do.
        const fourth = await startCorral({ env });
        expect((await fourth.request('GET', '/api/app:getInfo')).body.data.schemaVersion).toBe(versionAfterThird);
        expect((await fourth.request('GET', '/api/books:list')).body.meta.count).toBe(1);
        expect((await fourth.stop()).code).toBe(0);
      });
    });
  }
});
