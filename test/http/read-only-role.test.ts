import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import type { DatabaseConfig } from '../../src/config/config.js';
import type { Dialect } from '../../src/schema/types.js';
import { loadFixture } from '../fixtures/existing/load-fixture.js';
import { SHOP_SQL } from '../fixtures/existing/shop.js';
import { apiFor, testConfig, type TestApi } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

/**
 * A database role that may only read (issue 30, point 5; docs/existing-databases.md#read-only-roles):
 * once Corral's system tables exist (a first start as the owner), a SELECT-only role starts and
 * serves reads of the introspected tables; every write answers 403 DATABASE_READ_ONLY, never a
 * 5xx. Without the system tables the start fails with one line saying what to do.
 */

const NETWORK = DIALECTS.filter((dialect): dialect is 'postgres' | 'mysql' => dialect !== 'sqlite');
const INTROSPECT = { introspect: { include: [], exclude: [] } };

interface ReadOnlyRole {
  config: DatabaseConfig;
  drop(): Promise<void>;
}

/** A login role/user that may connect and SELECT every table of `database`, and nothing else. */
async function selectOnlyRole(database: TestDatabase): Promise<ReadOnlyRole> {
  const name = `corral_ro_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(8).toString('hex');
  const url = new URL(database.url);
  const dbName = url.pathname.slice(1);
  const owner = await openDatabase(database.config);
  try {
    if (database.config.dialect === 'postgres') {
      for (const statement of [
        `create role "${name}" login password '${password}'`,
        `grant connect on database "${dbName}" to "${name}"`,
        `grant usage on schema public to "${name}"`,
        `grant usage on schema inventory to "${name}"`,
        `grant select on all tables in schema public to "${name}"`,
        `grant select on all tables in schema inventory to "${name}"`,
      ]) await owner.db.executeQuery({ sql: statement, parameters: [], query: { kind: 'RawNode' } } as never);
    } else {
      for (const statement of [`create user '${name}'@'%' identified by '${password}'`, `grant select on \`${dbName}\`.* to '${name}'@'%'`]) {
        await owner.db.executeQuery({ sql: statement, parameters: [], query: { kind: 'RawNode' } } as never);
      }
    }
  } finally {
    await owner.close();
  }
  url.username = name;
  url.password = password;
  const roleUrl = url.toString();
  return {
    config: { ...database.config, url: roleUrl } as DatabaseConfig,
    drop: async () => {
      const admin = await openDatabase(database.config);
      try {
        const statements = database.config.dialect === 'postgres'
          ? [`drop owned by "${name}"`, `drop role if exists "${name}"`]
          : [`drop user if exists '${name}'@'%'`];
        for (const statement of statements) await admin.db.executeQuery({ sql: statement, parameters: [], query: { kind: 'RawNode' } } as never);
      } finally {
        await admin.close();
      }
    },
  };
}

describe.each(NETWORK)('a SELECT-only role (%s)', (dialect) => {
  const state = {} as { database: TestDatabase; role: ReadOnlyRole; built: BuiltApp; api: TestApi };
  const logged: { level: number; msg: string }[] = [];
  beforeAll(async () => {
    state.database = await createTestDatabase(dialect);
    const loader = await openDatabase(state.database.config);
    try {
      await loadFixture(loader.db, SHOP_SQL[dialect]);
    } finally {
      await loader.close();
    }
    // A first start as the owner makes Corral's system tables and registers the tables.
    const first = await buildApp(testConfig(state.database, INTROSPECT));
    await apiFor(first).get('/api/product:list');
    await first.close();
    state.role = await selectOnlyRole(state.database);
    // Signing in writes (auth state): the role's app serves without auth, and sign-in is refused clearly (below).
    const config = testConfig({ ...state.database, config: state.role.config }, INTROSPECT);
    const logStream = { write: (line: string) => void logged.push(JSON.parse(line) as { level: number; msg: string }) };
    state.built = await buildApp({ ...config, logLevel: 'warn', auth: { ...config.auth, enabled: false } }, { logStream });
    state.api = apiFor(state.built, null);
  });
  afterAll(async () => {
    await state.built?.close();
    // Nothing the role may not do was tried as if it could: no error in the log (start, pruning, requests, close).
    expect(logged.filter((line) => line.level >= 50).map((line) => line.msg)).toEqual([]);
    await state.role?.drop();
    await state.database?.drop();
  });

  it('serves reads', async () => {
    const reply = await state.api.get('/api/product:list?sort=id&fields=id');
    expect(reply.status).toBe(200);
    expect(reply.body.data.length).toBeGreaterThan(0);
  });

  it.each([
    ['create', 'post', '/api/tag:create', { label: 'new' }],
    ['update', 'post', '/api/product:update?filterByTk=1', { name: 'renamed' }],
    ['destroy', 'post', `/api/tag:destroy?filterByTk=1`, undefined],
    ['schema change', 'post', '/api/collections:create', { name: 'fresh', fields: [{ name: 'title', type: 'string' }] }],
  ] as const)('answers a %s with 403 DATABASE_READ_ONLY', async (_label, _method, url, body) => {
    const reply = await state.api.post(url, body);
    expect(reply.status, reply.text).toBe(403);
    expect(reply.body.errors[0].code).toBe('DATABASE_READ_ONLY');
  });

  it('refuses a sign-in clearly (auth state is written)', async () => {
    const config = testConfig({ ...state.database, config: state.role.config }, INTROSPECT);
    const withAuth = await buildApp(config);
    try {
      const reply = await apiFor(withAuth, null).post('/api/auth:signIn', { account: config.auth.rootEmail, password: config.auth.rootPassword });
      expect(reply.status, reply.text).toBe(403);
      expect(reply.body.errors[0].code).toBe('DATABASE_READ_ONLY');
    } finally {
      await withAuth.close();
    }
  });
});

describe.each(NETWORK)('a SELECT-only role on a database without Corral\'s tables (%s)', (dialect) => {
  it('fails to start with one line saying what to do', async () => {
    const database = await createTestDatabase(dialect);
    const loader = await openDatabase(database.config);
    try {
      await loadFixture(loader.db, SHOP_SQL[dialect]);
    } finally {
      await loader.close();
    }
    const role = await selectOnlyRole(database);
    try {
      await expect(buildApp(testConfig({ ...database, config: role.config }, INTROSPECT))).rejects.toThrow(
        /^the database role may not create Corral's system table corral_collections: start Corral once as a role that may create tables \(the database owner\), then start it with this role/,
      );
    } finally {
      await role.drop();
      await database.drop();
    }
  });
});

describe.runIf(DIALECTS.includes('postgres'))('CORRAL_INTROSPECT_SCHEMA (postgres)', () => {
  const state = {} as { database: TestDatabase; built: BuiltApp; api: TestApi };
  beforeAll(async () => {
    state.database = await createTestDatabase('postgres');
    const loader = await openDatabase(state.database.config);
    try {
      await loadFixture(loader.db, SHOP_SQL.postgres);
      // A table of the same name in the connection's schema: a query that forgot the schema would read it.
      await loadFixture(loader.db, ['CREATE TABLE public.stock (product_id integer PRIMARY KEY, on_hand integer NOT NULL)', 'INSERT INTO public.stock VALUES (9, 999)']);
    } finally {
      await loader.close();
    }
    state.built = await buildApp(testConfig(state.database, { introspect: { include: [], exclude: [], schema: 'inventory' } }));
    state.api = apiFor(state.built);
  });
  afterAll(async () => {
    await state.built?.close();
    await state.database?.drop();
  });

  it('serves the rows of the schema named, not of the connection\'s', async () => {
    const reply = await state.api.get('/api/stock:list?sort=product_id&fields=product_id,on_hand');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.data).toEqual([{ product_id: 1, on_hand: 40 }, { product_id: 2, on_hand: 12 }]);
    const counted = await state.api.get(`/api/stock:list?filter=${encodeURIComponent(JSON.stringify({ on_hand: { $gt: 20 } }))}&fields=product_id`);
    expect([counted.body.data, counted.body.meta.count]).toEqual([[{ product_id: 1 }], 1]);
  });

  it('writes to the schema named', async () => {
    expect((await state.api.post('/api/stock:create', { product_id: 3, on_hand: 5 })).status).toBe(201);
    expect((await state.api.post('/api/stock:update?filterByTk=1', { on_hand: 41 })).status).toBe(200);
    expect((await state.api.post('/api/stock:destroy?filterByTk=2')).status).toBe(200);
    const inventory = await sql<{ product_id: number; on_hand: number }>`select product_id, on_hand from inventory.stock order by product_id`.execute(state.built.database.db);
    expect(inventory.rows).toEqual([{ product_id: 1, on_hand: 41 }, { product_id: 3, on_hand: 5 }]);
    const pub = await sql<{ product_id: number }>`select product_id from public.stock`.execute(state.built.database.db);
    expect(pub.rows).toEqual([{ product_id: 9 }]);
  });
});

describe.runIf(DIALECTS.includes('sqlite'))('a read-only SQLite file (sqlite:<path>?mode=ro)', () => {
  const state = {} as { database: TestDatabase; built: BuiltApp; api: TestApi };
  beforeAll(async () => {
    state.database = await createTestDatabase('sqlite');
    const loader = await openDatabase(state.database.config);
    try {
      await loadFixture(loader.db, SHOP_SQL.sqlite);
    } finally {
      await loader.close();
    }
    const first = await buildApp(testConfig(state.database, INTROSPECT));
    await first.close();
    const config = testConfig({ ...state.database, config: { ...state.database.config, readOnly: true } as DatabaseConfig }, INTROSPECT);
    state.built = await buildApp({ ...config, auth: { ...config.auth, enabled: false } });
    state.api = apiFor(state.built, null);
  });
  afterAll(async () => {
    await state.built?.close();
    await state.database?.drop();
  });

  it('serves reads', async () => {
    const reply = await state.api.get('/api/product:list?sort=id&fields=id');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.data.length).toBeGreaterThan(0);
  });

  it.each([
    ['create', '/api/tag:create', { label: 'new' }],
    ['update', '/api/product:update?filterByTk=1', { name: 'renamed' }],
    ['destroy', '/api/tag:destroy?filterByTk=1', undefined],
    ['schema change', '/api/collections:create', { name: 'fresh', fields: [{ name: 'title', type: 'string' }] }],
  ] as const)('answers a %s with 403 DATABASE_READ_ONLY', async (_label, url, body) => {
    const reply = await state.api.post(url, body);
    expect(reply.status, reply.text).toBe(403);
    expect(reply.body.errors[0].code).toBe('DATABASE_READ_ONLY');
  });
});
