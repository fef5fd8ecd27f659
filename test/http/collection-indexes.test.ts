import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { MAX_FIELDS_PER_INDEX, MAX_INDEXES_PER_COLLECTION } from '../../src/schema/collection-indexes.js';
import { tableIndexes } from '../support/explain-plan.js';
import { apiFor, testConfig, useDialectApp, type Reply } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

function expectError(reply: Reply, status: number, code: string, message?: RegExp): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.errors[0].code).toBe(code);
  if (message !== undefined) expect(reply.body.errors[0].message).toMatch(message);
}

const POSTS = {
  name: 'posts',
  fields: [
    { name: 'title', type: 'string' },
    { name: 'status', type: 'string' },
    { name: 'views', type: 'integer', allowNull: false, defaultValue: 0 },
    { name: 'body', type: 'text' },
    { name: 'slug', type: 'string' },
  ],
  indexes: [{ fields: ['status', 'views'] }, { fields: ['slug'], unique: true, name: 'posts_by_slug' }],
};

describe.each(DIALECTS)('collection indexes on %s', (dialect) => {
  const ctx = useDialectApp(dialect);
  const indexesOf = async (name: string) => (await ctx.api.get(`/api/collections:get/${name}`)).body.data.indexes;
  const inDatabase = (table: string) => tableIndexes(ctx.built.database.db, dialect, table);

  it('collections:create makes them (deterministic names), get, list and the table show them', async () => {
    const reply = await ctx.api.post('/api/collections:create', POSTS);
    expect(reply.status, reply.text).toBe(201);
    const expected = [
      { name: 'idx_posts_status_views', fields: ['status', 'views'], unique: false },
      { name: 'posts_by_slug', fields: ['slug'], unique: true },
    ];
    expect(reply.body.data.indexes).toEqual(expected);
    expect(await indexesOf('posts')).toEqual(expected);
    const listed = await ctx.api.get('/api/collections:list?filterByTk=posts&fields=name,indexes');
    expect(listed.body.data).toEqual([{ name: 'posts', indexes: expected }]);
    expect(await inDatabase('posts')).toEqual(expect.arrayContaining(['idx_posts_status_views', 'posts_by_slug']));
    // A collection without indexes shows none.
    await ctx.api.collection({ name: 'plain', fields: [{ name: 'a', type: 'string' }] });
    expect(await indexesOf('plain')).toBeUndefined();
  });

  it('generated names stay within 63 characters (PostgreSQL; MySQL takes 64), hashed, and the DDL takes them', async () => {
    const long = (prefix: string) => `${prefix}${'x'.repeat(62 - prefix.length)}`;
    const name = long('c');
    const reply = await ctx.api.post('/api/collections:create', {
      name,
      fields: [{ name: long('a'), type: 'string' }, { name: long('b'), type: 'integer' }],
      indexes: [{ fields: [long('a'), long('b')] }, { fields: [long('b'), long('a')], unique: true }],
    });
    expect(reply.status, reply.text).toBe(201);
    const names = (reply.body.data.indexes as { name: string }[]).map((index) => index.name);
    for (const made of names) expect(made.length).toBeLessThanOrEqual(63);
    expect(names[0]).toMatch(/^idx_c/);
    expect(names[1]).toMatch(/^uidx_c/);
    expect(new Set(names).size).toBe(2);
    expect(await inDatabase(name)).toEqual(expect.arrayContaining(names));
    expect((await ctx.api.post(`/api/collections:setIndexes/${name}`, { indexes: [] })).status).toBe(200);
    expect(await inDatabase(name)).not.toEqual(expect.arrayContaining([names[0]]));
  });

  it('an index the database refuses (over 3072 bytes of key on MySQL) leaves nothing behind; elsewhere it is made', async () => {
    const fields = ['a', 'b', 'c', 'd'].map((name) => ({ name, type: 'string', length: 255 }));
    const definition = { name: 'wide_key', fields, indexes: [{ fields: ['a', 'b', 'c', 'd'] }] };
    const reply = await ctx.api.post('/api/collections:create', definition);
    if (reply.status === 201) {
      expect(dialect).not.toBe('mysql');
    } else {
      expectError(reply, 400, 'SCHEMA_INVALID');
      expect((await ctx.api.get('/api/collections:get/wide_key')).status).toBe(404);
      // Nothing was left: the same name without the index is made.
      expect((await ctx.api.post('/api/collections:create', { ...definition, indexes: [{ fields: ['a', 'b'] }] })).status).toBe(201);
    }
  });

  it('a unique index refuses duplicates on write (409 UNIQUE_VIOLATION)', async () => {
    expect((await ctx.api.post('/api/posts:create', { title: 'a', slug: 'same' })).status).toBe(201);
    expectError(await ctx.api.post('/api/posts:create', { title: 'b', slug: 'same' }), 409, 'UNIQUE_VIOLATION');
  });

  it('collections:setIndexes replaces the set: kept ones stay, changed ones are rebuilt, missing ones dropped', async () => {
    const reply = await ctx.api.post('/api/collections:setIndexes/posts', { indexes: [{ fields: ['status', 'views'] }, { fields: ['views', 'title'], name: 'by_views' }] });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.data.indexes).toEqual([
      { name: 'idx_posts_status_views', fields: ['status', 'views'], unique: false },
      { name: 'by_views', fields: ['views', 'title'], unique: false },
    ]);
    const names = await inDatabase('posts');
    expect(names).toEqual(expect.arrayContaining(['idx_posts_status_views', 'by_views']));
    expect(names).not.toContain('posts_by_slug');
    // The same name over other fields: dropped and made again.
    expect((await ctx.api.post('/api/collections:setIndexes?filterByTk=posts', { indexes: [{ fields: ['title'], name: 'by_views' }] })).status).toBe(200);
    expect(await indexesOf('posts')).toEqual([{ name: 'by_views', fields: ['title'], unique: false }]);
    expect(await inDatabase('posts')).not.toContain('idx_posts_status_views');
    // collections:update takes `indexes` too, and the whole record sent back changes nothing.
    const updated = await ctx.api.post('/api/collections:update/posts', { indexes: [{ fields: ['status', 'views'] }] });
    expect(updated.status, updated.text).toBe(200);
    const again = await ctx.api.post('/api/collections:update/posts', { ...updated.body.data, fields: undefined });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.indexes).toEqual([{ name: 'idx_posts_status_views', fields: ['status', 'views'], unique: false }]);
    // [] removes them all.
    expect((await ctx.api.post('/api/collections:setIndexes/posts', { indexes: [] })).body.data.indexes).toBeUndefined();
    expect(await inDatabase('posts')).not.toContain('idx_posts_status_views');
    expect((await ctx.api.post('/api/collections:setIndexes/posts', [{ fields: ['status', 'views'] }])).status).toBe(200);
  });

  const tooMany = Array.from({ length: MAX_INDEXES_PER_COLLECTION + 1 }, (_, i) => ({ fields: ['title'], name: `i${i}` }));
  const wide = { fields: Array.from({ length: MAX_FIELDS_PER_INDEX + 1 }, (_, i) => `f${i}`) };
  it.each([
    ['an unknown field', [{ fields: ['nope'] }], /has no field nope/],
    ['a relation name instead of its key column', [{ fields: ['author'] }], /has no field author/],
    ['a text field (not indexable)', [{ fields: ['body'] }], /cannot be indexed/],
    ['no fields', [{ fields: [] }], /non-empty array/],
    ['a field twice', [{ fields: ['title', 'title'] }], /twice/],
    ['the same fields twice', [{ fields: ['title'] }, { fields: ['title'], unique: true }], /same fields/],
    ['the same name twice', [{ fields: ['title'], name: 'x' }, { fields: ['views'], name: 'x' }], /taken/],
    ['a name another collection uses', [{ fields: ['title'], name: 'idx_other_a' }], /taken/],
    ['a bad name', [{ fields: ['title'], name: 'no spaces' }], /name must match/],
    ['an unknown option', [{ fields: ['title'], where: 'x' }], /unknown index option where/],
    ['unique not a boolean', [{ fields: ['title'], unique: 'yes' }], /true or false/],
    ['not an array', { fields: ['title'] }, /must be an array/],
    [`more than ${MAX_INDEXES_PER_COLLECTION} indexes`, tooMany, /at most/],
    [`more than ${MAX_FIELDS_PER_INDEX} fields`, [wide], /at most/],
  ])('refuses %s with 400 SCHEMA_INVALID, changing nothing', async (_case, indexes, message) => {
    if (!(await ctx.api.get('/api/collections:get/other')).body?.data) {
      await ctx.api.collection({ name: 'other', fields: [{ name: 'a', type: 'string' }], indexes: [{ fields: ['a'] }] });
    }
    const before = await indexesOf('posts');
    const reply = await ctx.api.post('/api/collections:setIndexes/posts', { indexes });
    expectError(reply, 400, 'SCHEMA_INVALID', message);
    expect(reply.body.errors[0].field).toBe('indexes');
    expect(await indexesOf('posts')).toEqual(before);
    // The same on create: no collection is made.
    expectError(await ctx.api.post('/api/collections:create', { ...POSTS, name: 'refused', indexes }), 400, 'SCHEMA_INVALID');
    expect((await ctx.api.get('/api/collections:get/refused')).status).toBe(404);
  });

  it('setIndexes without indexes is 400 BODY_INVALID; on a missing collection 404', async () => {
    expectError(await ctx.api.post('/api/collections:setIndexes/posts', {}), 400, 'BODY_INVALID');
    expectError(await ctx.api.post('/api/collections:setIndexes/missing', { indexes: [] }), 404, 'COLLECTION_NOT_FOUND');
  });

  it('a unique index over stored duplicates is 409 UNIQUE_VIOLATION, and the indexes stay as they were', async () => {
    for (const title of ['dup', 'dup']) expect((await ctx.api.post('/api/posts:create', { title })).status).toBe(201);
    const before = await indexesOf('posts');
    const tablesBefore = await inDatabase('posts');
    const reply = await ctx.api.post('/api/collections:setIndexes/posts', { indexes: [{ fields: ['views'] }, { fields: ['title'], unique: true }] });
    expectError(reply, 409, 'UNIQUE_VIOLATION', /uidx_posts_title/);
    expect(reply.body.errors[0].details).toEqual({ index: 'uidx_posts_title', fields: ['title'] });
    expect(await indexesOf('posts')).toEqual(before);
    expect(await inDatabase('posts')).toEqual(tablesBefore);
  });

  it('a field an index covers cannot be dropped or renamed until the index goes (400 naming it)', async () => {
    const dropped = await ctx.api.post('/api/collections/posts/fields:destroy/status');
    expectError(dropped, 400, 'SCHEMA_INVALID', /idx_posts_status_views/);
    expect(dropped.body.errors[0].details).toEqual({ indexes: ['idx_posts_status_views'] });
    expectError(await ctx.api.post('/api/collections/posts/fields:update/views', { name: 'hits' }), 400, 'SCHEMA_INVALID', /idx_posts_status_views/);
    // Other changes of a covered field keep the index (SQLite rebuilds the table).
    expect((await ctx.api.post('/api/collections/posts/fields:update/status', { length: 300 })).status).toBe(200);
    expect(await inDatabase('posts')).toContain('idx_posts_status_views');
    // A relation whose key column an index covers is kept until the index goes.
    await ctx.api.collection({ name: 'people', fields: [{ name: 'name', type: 'string' }] });
    expect((await ctx.api.post('/api/collections/posts/fields:create', { name: 'author', type: 'belongsTo', target: 'people' })).status).toBe(201);
    expect((await ctx.api.post('/api/collections:setIndexes/posts', { indexes: [{ fields: ['status', 'views'] }, { fields: ['authorId', 'views'] }] })).status).toBe(200);
    expectError(await ctx.api.post('/api/collections/posts/fields:destroy/author'), 400, 'SCHEMA_INVALID', /idx_posts_authorId_views/);
  });

  it('indexes survive a restart (stored with the definition)', async () => {
    const before = await indexesOf('posts');
    const again = await buildApp(testConfig(ctx.database));
    try {
      expect((await apiFor(again).get('/api/collections:get/posts')).body.data.indexes).toEqual(before);
    } finally {
      await again.close();
    }
  });

  it('only root or a role granted collections changes may set them (403 FORBIDDEN otherwise)', async () => {
    const root = ctx.api;
    expect((await root.post('/api/roles:create', { name: 'editor', strategy: { actions: ['view', 'create', 'update', 'destroy'] } })).status).toBe(201);
    expect((await root.post('/api/roles:create', { name: 'schemaAdmin', strategy: { actions: [] }, resources: [{ name: 'collections', actions: [{ name: 'view' }, { name: 'update' }] }] })).status).toBe(201);
    expect((await root.post('/api/users:create', { email: 'editor@corral.test', password: 'editor-password', roles: ['editor'] })).status).toBe(201);
    expect((await root.post('/api/users:create', { email: 'schema@corral.test', password: 'schema-password', roles: ['schemaAdmin'] })).status).toBe(201);
    const editor = apiFor(ctx.built, { account: 'editor@corral.test', password: 'editor-password' });
    const admin = apiFor(ctx.built, { account: 'schema@corral.test', password: 'schema-password' });
    const before = await indexesOf('posts');
    expectError(await editor.post('/api/collections:setIndexes/posts', { indexes: [] }), 403, 'FORBIDDEN');
    expectError(await editor.post('/api/collections:update/posts', { indexes: [] }), 403, 'FORBIDDEN');
    expect(await indexesOf('posts')).toEqual(before);
    const allowed = await admin.post('/api/collections:setIndexes/posts', { indexes: before });
    expect(allowed.status, allowed.text).toBe(200);
  });
});
