import Fastify from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { systemCollectionDefinitions } from '../../src/auth/system-collections.js';
import { readCatalogue } from '../../src/db/catalogue/read-catalogue.js';
import { openDatabase } from '../../src/db/database.js';
import { SchemaManager } from '../../src/schema/schema-manager.js';
import { SYSTEM_COLLECTION_TABLES, systemCollectionNames } from '../../src/schema/system-collection-tables.js';
import { collectionNameProblem } from '../../src/schema/reserved-names.js';
import type { Dialect } from '../../src/schema/types.js';
import { apiFor, testConfig, type TestApi } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

/** Tables of the test database, by plain catalogue reads (Kysely's introspection). */
async function tableNames(built: BuiltApp): Promise<string[]> {
  return (await built.database.db.introspection.getTables()).map((table) => table.name).sort();
}

/** A database's own tables named like Corral's system collections, with rows (plain SQL, no Corral). */
const OWN_TABLES = [
  'create table users (id integer primary key, email varchar(100) not null, name varchar(100))',
  "insert into users (id, email, name) values (1, 'ada@example.com', 'Ada'), (2, 'bob@example.com', 'Bob')",
  'create table roles (id integer primary key, title varchar(50))',
  "insert into roles (id, title) values (1, 'editor')",
  'create table webhooks (id integer primary key, url varchar(200))',
  "insert into webhooks (id, url) values (7, 'https://example.com/hook')",
];
const OWN_ROWS = {
  users: [
    { id: 1, email: 'ada@example.com', name: 'Ada' },
    { id: 2, email: 'bob@example.com', name: 'Bob' },
  ],
  roles: [{ id: 1, title: 'editor' }],
  webhooks: [{ id: 7, url: 'https://example.com/hook' }],
};

async function ownRows(built: BuiltApp): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of Object.keys(OWN_ROWS)) {
    const rows = (await sql`select * from ${sql.table(table)} order by id`.execute(built.database.db)).rows as Record<string, unknown>[];
    out[table] = rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'bigint' || key === 'id' ? Number(value) : value])));
  }
  return out;
}

/**
 * Every auth flow once: a user with a role signs in and is limited to its grant, an API key
 * acts as its creator, a webhook is stored, a collection with createdBy (a foreign key to the
 * users table) records its creator, and deleting the user clears it.
 */
async function authFlows(built: BuiltApp, api: TestApi): Promise<void> {
  await api.collection({ name: 'notes', createdBy: true, fields: [{ name: 'body', type: 'string' }, { name: 'readers', type: 'belongsToMany', target: 'users' }] });
  expect((await api.post('/api/roles:create', { name: 'reader', strategy: { actions: ['view'] } })).status).toBe(201);
  const made = await api.post('/api/users:create', { email: 'reader@corral.test', password: 'reader-password', roles: ['reader'] });
  expect(made.status, made.text).toBe(201);
  const readerId = made.body.data.id;
  const note = await api.post('/api/notes:create', { body: 'hello', readers: [readerId] });
  expect(note.status, note.text).toBe(201);
  const reader = apiFor(built, { account: 'reader@corral.test', password: 'reader-password' });
  const list = await reader.get('/api/notes:list');
  expect(list.status, list.text).toBe(200);
  expect(list.body.data.map((row: { body: string }) => row.body)).toEqual(['hello']);
  // The through table's foreign key points at the users table, whatever its name.
  const linked = await api.get('/api/notes:list?appends=readers');
  expect(linked.body.data[0].readers.map((user: { email: string }) => user.email)).toEqual(['reader@corral.test']);
  expect((await reader.post('/api/notes:create', { body: 'no' })).status).toBe(403);
  const key = await api.post('/api/apiKeys:create', { name: 'ci', role: 'root' });
  expect(key.status, key.text).toBe(201);
  const keyed = await built.app.inject({ method: 'GET', url: '/api/notes:list', headers: { authorization: `Bearer ${key.body.data.token}` } });
  expect(keyed.statusCode, keyed.body).toBe(200);
  expect((await api.get('/api/auth:check')).body.data.email).toBe('root@corral.test');
  const hook = await api.post('/api/webhooks:create', { url: 'http://127.0.0.1:9/corral', collections: ['notes'], secret: 'a-long-secret' });
  expect(hook.status, hook.text).toBe(201);
  expect((await api.get('/api/webhooks:list')).body.data.map((row: { url: string }) => row.url)).toEqual(['http://127.0.0.1:9/corral']);
  const writer = await api.post('/api/users:create', { email: 'writer@corral.test', password: 'writer-password', roles: ['root'] });
  const wrote = await apiFor(built, { account: 'writer@corral.test', password: 'writer-password' }).post('/api/notes:create', { body: 'by writer' });
  expect(wrote.body.data.createdById).toBe(writer.body.data.id);
  expect((await api.post(`/api/users:destroy?filterByTk=${writer.body.data.id}`)).status).toBe(200);
  const after = await api.get(`/api/notes:get?filterByTk=${wrote.body.data.id}`);
  expect(after.body.data.createdById).toBeNull();
}

/** A database made by an earlier version: the system collections stored without tableName, on tables of their own names. */
async function earlierVersionDatabase(test: TestDatabase): Promise<void> {
  const database = await openDatabase(test.config);
  try {
    const schema = new SchemaManager(database, Fastify({ logger: false }).log);
    await schema.init();
    for (const { tableName: _, ...definition } of systemCollectionDefinitions()) await schema.createCollection(definition, true);
  } finally {
    await database.close();
  }
}

function useApp(dialect: Dialect, prepare: (test: TestDatabase) => Promise<void> = async () => undefined) {
  const state = {} as { built: BuiltApp; api: TestApi; test: TestDatabase };
  beforeAll(async () => {
    state.test = await createTestDatabase(dialect);
    await prepare(state.test);
    state.built = await buildApp(testConfig(state.test, CONFIG));
    state.api = apiFor(state.built);
  });
  afterAll(async () => {
    await state.built?.close();
    await state.test?.drop();
  });
  return state;
}

const SYSTEM_TABLES = Object.values(SYSTEM_COLLECTION_TABLES);
/** Webhooks to a local address that nobody answers, retried long after the test ends. */
const CONFIG = { webhookAllowPrivate: true, webhookRetryBaseMs: 3_600_000 };

describe('system collection names', () => {
  it('lists the API names the system collections take, every one refused to clients', () => {
    expect([...systemCollectionNames()].sort()).toEqual(['apiKeys', 'attachments', 'roles', 'rolesResourcesScopes', 'users', 'webhooks']);
    for (const name of systemCollectionNames()) expect(collectionNameProblem(name)).toBe('is reserved');
  });
});

for (const dialect of DIALECTS) {
  describe(`Corral's system tables on a fresh ${dialect} database`, () => {
    const ctx = useApp(dialect);

    it('keeps the system collections on corral_ tables, so no table is named users, roles, apiKeys or webhooks', async () => {
      const tables = await tableNames(ctx.built);
      expect(tables).toEqual(expect.arrayContaining(SYSTEM_TABLES));
      for (const name of systemCollectionNames()) expect(tables).not.toContain(name);
      expect(tables.every((name) => name.startsWith('corral_'))).toBe(true);
      for (const name of systemCollectionNames()) expect(ctx.built.schema.snapshot.get(name)?.table).toBe(SYSTEM_COLLECTION_TABLES[name]);
      const users = await ctx.api.get('/api/collections:get?filterByTk=users');
      expect(users.status, users.text).toBe(200);
      expect(users.body.data).toMatchObject({ name: 'users', tableName: 'corral_users' });
      // The admin UI sends the record back whole: its tableName asks for nothing; another one is refused (a system collection: 409).
      const same = await ctx.api.post('/api/collections:update?filterByTk=users', { title: 'People', tableName: 'corral_users' });
      expect(same.status, same.text).toBe(200);
      const moved = await ctx.api.post('/api/collections:update?filterByTk=users', { tableName: 'users' });
      expect(moved.status, moved.text).toBe(409);
      expect(moved.body.errors[0].code).toBe('COLLECTION_PROTECTED');
      expect(ctx.built.schema.snapshot.get('users')?.table).toBe('corral_users');
    });

    it('serves every auth flow under the usual API names', async () => {
      await authFlows(ctx.built, ctx.api);
      const users = await ctx.api.get('/api/users:list?sort=id');
      expect(users.body.data.map((user: { email: string }) => user.email)).toEqual(['root@corral.test', 'reader@corral.test']);
      const stored = await sql<{ email: string }>`select email from ${sql.table('corral_users')} order by id`.execute(ctx.built.database.db);
      expect(stored.rows.map((row) => row.email)).toEqual(['root@corral.test', 'reader@corral.test']);
    });

    it('leaves every Corral table out of the catalogue', async () => {
      expect((await readCatalogue(ctx.built.database.db, dialect)).tables.map((table) => table.name).filter((name) => name !== 'notes' && !name.startsWith('notes_'))).toEqual([]);
    });
  });

  describe(`Corral on a ${dialect} database with its own users, roles and webhooks tables`, () => {
    const ctx = useApp(dialect, async (test) => {
      const database = await openDatabase(test.config);
      try {
        for (const statement of OWN_TABLES) await sql.raw(statement).execute(database.db);
      } finally {
        await database.close();
      }
    });

    it('starts, serves every auth flow, and leaves those tables and their rows as they were', async () => {
      await authFlows(ctx.built, ctx.api);
      expect(await ownRows(ctx.built)).toEqual(OWN_ROWS);
      const tables = await tableNames(ctx.built);
      expect(tables).toEqual(expect.arrayContaining([...SYSTEM_TABLES, 'users', 'roles', 'webhooks']));
      const columns = (await ctx.built.database.db.introspection.getTables()).find((table) => table.name === 'users')!.columns.map((column) => column.name).sort();
      expect(columns).toEqual(['email', 'id', 'name']);
    });

    it('reads the database\'s own tables in the catalogue, and none of Corral\'s', async () => {
      const names = (await readCatalogue(ctx.built.database.db, dialect)).tables.map((table) => table.name);
      expect(names.filter((name) => ['users', 'roles', 'webhooks'].includes(name)).sort()).toEqual(['roles', 'users', 'webhooks']);
      expect(names.filter((name) => name.toLowerCase().startsWith('corral_'))).toEqual([]);
    });
  });

  describe(`a ${dialect} database an earlier version made (system tables under their API names)`, () => {
    const ctx = useApp(dialect, earlierVersionDatabase);

    it('keeps using the tables it has, and makes no corral_ copy of them', async () => {
      const tables = await tableNames(ctx.built);
      expect(tables).toEqual(expect.arrayContaining(['users', 'roles', 'apiKeys', 'rolesResourcesScopes', 'webhooks']));
      for (const table of SYSTEM_TABLES) expect(tables).not.toContain(table);
      for (const name of systemCollectionNames()) expect(ctx.built.schema.snapshot.get(name)?.table).toBe(name);
    });

    it('serves every auth flow from them, and after a restart too', async () => {
      await authFlows(ctx.built, ctx.api);
      const stored = await sql<{ email: string }>`select email from ${sql.table('users')} order by id`.execute(ctx.built.database.db);
      expect(stored.rows.map((row) => row.email)).toEqual(['root@corral.test', 'reader@corral.test']);
      await ctx.built.close();
      ctx.built = await buildApp(testConfig(ctx.test, CONFIG));
      const again = apiFor(ctx.built, { account: 'reader@corral.test', password: 'reader-password' });
      expect((await again.get('/api/notes:list')).status).toBe(200);
      for (const name of systemCollectionNames()) expect(ctx.built.schema.snapshot.get(name)?.table).toBe(name);
    });
  });
}
