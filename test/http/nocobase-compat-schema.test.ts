import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type Reply } from '../support/test-app.js';

/**
 * NocoBase's schema API (plugin-data-source-main: `collections`, `fields`,
 * `collections.fields`), its own test cases replayed over HTTP. Each case names the NocoBase
 * test file (under packages/plugins/@nocobase/plugin-data-source-main/src/server/__tests__/)
 * and title; where Corral differs on purpose the case asserts Corral's answer and docs/api.md
 * ("Differences from NocoBase" → "Collections and fields") says why.
 */

type Field = Record<string, unknown> & { name: string; key: string; collectionName: string };
const fieldsOf = (reply: Reply): Field[] => reply.body.data as Field[];
const names = (reply: Reply): string[] => fieldsOf(reply).map((field) => field.name);
const code = (reply: Reply): string | undefined => reply.body.errors?.[0]?.code;

for (const dialect of DIALECTS) {
  describe(`NocoBase schema API: collections and the fields resource, on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it('http-api/collections.test.ts "should throw error when create field with same name" (a key field is needed, 409 for the second)', async () => {
      // NocoBase creates a collection with no key at all; Corral needs a primary key (400, documented difference).
      const keyless = await ctx.api.post('/api/collections:create', { name: 'samename', autoGenId: false, sortable: false, timestamps: false });
      expect(keyless.status).toBe(400);
      expect(keyless.body.errors[0].message).toContain('primaryKey');
      const created = await ctx.api.post('/api/collections:create', {
        name: 'samename', autoGenId: false, sortable: false, timestamps: false, fields: [{ name: 'code', type: 'string', primaryKey: true }],
      });
      expect(created.status, created.text).toBe(201);
      const first = await ctx.api.post('/api/fields:create', { name: 'field', type: 'string', collectionName: 'samename' });
      expect(first.status, first.text).toBe(201);
      expect(first.body.data).toMatchObject({ name: 'field', collectionName: 'samename', key: 'samename.field' });
      const again = await ctx.api.post('/api/fields:create', { name: 'field', type: 'string', collectionName: 'samename' });
      expect(again.status).toBe(409);
      expect(code(again)).toBe('FIELD_EXISTS');
    });

    it('http-api/collections.test.ts "should create collection without id" (400: with autoGenId false a field must be the key)', async () => {
      const reply = await ctx.api.post('/api/collections:create', { name: 'noid', autoGenId: false, sortable: true });
      expect(reply.status).toBe(400);
      expect(code(reply)).toBe('SCHEMA_INVALID');
    });

    it('http-api/collections.test.ts "should create collection field" and "should skip sync when create empty collection"', async () => {
      expect((await ctx.api.post('/api/collections:create', { name: 'cfield' })).status).toBe(201);
      const added = await ctx.api.post('/api/fields:create', { name: 'testField', collectionName: 'cfield', type: 'string' });
      expect(added.status, added.text).toBe(201);
      expect(names(await ctx.api.get('/api/collections/cfield/fields:list'))).toContain('testField');
      const row = await ctx.api.post('/api/cfield:create', { testField: 'stored' });
      expect(row.body.data.testField).toBe('stored');
    });

    it('http-api/collections.test.ts "should update field with default value" (fields:update?filterByTk=<key>)', async () => {
      await ctx.api.collection({ name: 'defaults', fields: [{ name: 'testField', type: 'string' }] });
      const listed = await ctx.api.get('/api/fields:list?filter[collectionName]=defaults&filter[name]=testField');
      expect(listed.status, listed.text).toBe(200);
      const [field] = fieldsOf(listed);
      expect(field).toMatchObject({ name: 'testField', collectionName: 'defaults' });
      const updated = await ctx.api.post(`/api/fields:update?filterByTk=${field!.key}`, { defaultValue: '1231' });
      expect(updated.status, updated.text).toBe(200);
      expect((await ctx.api.post('/api/defaults:create', {})).body.data.testField).toBe('1231');
    });

    it('http-api/collections.test.ts "should update field with unique index" (fields:update by key, on and off)', async () => {
      await ctx.api.collection({ name: 'uniq', fields: [{ name: 'testField', type: 'string' }] });
      const key = fieldsOf(await ctx.api.get('/api/fields:list?filter[collectionName]=uniq')).find((f) => f.name === 'testField')!.key;
      expect((await ctx.api.post(`/api/fields:update?filterByTk=${key}`, { unique: true })).status).toBe(200);
      expect((await ctx.api.post('/api/uniq:create', { testField: 'a' })).status).toBe(201);
      expect(code(await ctx.api.post('/api/uniq:create', { testField: 'a' }))).toBe('UNIQUE_VIOLATION');
      expect((await ctx.api.post(`/api/fields:update?filterByTk=${key}`, { unique: false })).status).toBe(200);
      expect((await ctx.api.post('/api/uniq:create', { testField: 'a' })).status).toBe(201);
    });

    it('http-api/collections.test.ts "should get collection list with unavailableActions" and "should get full collections api" (listMeta)', async () => {
      const list = await ctx.api.get('/api/collections:list?paginate=false');
      expect(list.status).toBe(200);
      for (const collection of list.body.data) expect(collection.unavailableActions).toEqual([]);
      const meta = await ctx.api.get('/api/collections:listMeta');
      expect(meta.status, meta.text).toBe(200);
      expect(meta.body.meta).toBeUndefined();
      expect(meta.body.data.map((c: { name: string }) => c.name).sort()).toEqual(list.body.data.map((c: { name: string }) => c.name).sort());
      const first = meta.body.data.find((c: { name: string }) => c.name === 'uniq');
      expect(first.unavailableActions).toEqual([]);
      expect(first.fields.length).toBe(fieldsOf(await ctx.api.get('/api/collections/uniq/fields:list?paginate=false')).length);
    });

    it("the admin UI's collection and field lists: sort=sort (position in definition order), filters on hidden and collectionName", async () => {
      const collections = await ctx.api.get('/api/collections:list?paginate=false&sort=sort&filter={"hidden":{"$ne":true}}');
      expect(collections.status, collections.text).toBe(200);
      const positions = collections.body.data.map((c: { sort: number }) => c.sort);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(collections.body.data.map((c: { name: string }) => c.name)).toContain('uniq');
      const fields = await ctx.api.get('/api/fields:list?paginate=false&sort=-sort&filter[collectionName]=uniq');
      expect(fields.body.data.map((f: { name: string }) => f.name)).toEqual(['testField', 'updatedAt', 'createdAt', 'id']);
      expect((await ctx.api.get('/api/collections/uniq/fields:list?sort=sort')).body.data[0]).toMatchObject({ name: 'id', sort: 1 });
      // A row read from a list, sent back whole (its sort, key and collectionName are dropped).
      const row = fieldsOf(fields).find((f) => f.name === 'testField')!;
      expect((await ctx.api.post('/api/collections/uniq/fields:update?filterByTk=testField', { ...row, uiSchema: { title: 'T' } })).status).toBe(200);
      const listed = collections.body.data.find((c: { name: string }) => c.name === 'uniq');
      const { fields: _fields, ...collection } = listed;
      expect((await ctx.api.post('/api/collections:update?filterByTk=uniq', { ...collection, title: 'Unique' })).body.data.title).toBe('Unique');
    });

    it('resources/collections.fields.test.ts "destroy field" (collections.fields:destroy by name, and by key)', async () => {
      await ctx.api.collection({ name: 'test1', fields: [{ type: 'string', name: 'name' }, { type: 'string', name: 'other' }] });
      expect((await ctx.api.post('/api/collections/test1/fields:destroy?filterByTk=name')).status).toBe(200);
      expect(names(await ctx.api.get('/api/collections/test1/fields:list'))).not.toContain('name');
      expect((await ctx.api.post('/api/collections/test1/fields:destroy?filterByTk=test1.other')).status).toBe(200);
      expect(names(await ctx.api.get('/api/collections/test1/fields:list'))).not.toContain('other');
      expect(code(await ctx.api.post('/api/collections/test1/fields:destroy?filterByTk=uniq.testField'))).toBe('FIELD_NOT_FOUND');
    });

    it('fields.repository.test.ts "should generate the name and key randomly", "should not generate the name randomly", "dynamic parameters"', async () => {
      await ctx.api.collection({ name: 'tests' });
      const generated = await ctx.api.post('/api/fields:create', { type: 'string', collectionName: 'tests' });
      expect(generated.status, generated.text).toBe(201);
      expect(generated.body.data).toMatchObject({ type: 'string', collectionName: 'tests' });
      expect(generated.body.data.name).toMatch(/^f_[a-z0-9]{11}$/);
      expect(generated.body.data.key).toBe(`tests.${generated.body.data.name}`);
      const named = await ctx.api.post('/api/fields:create', { type: 'string', name: 'name', collectionName: 'tests', unique: true, defaultValue: 'abc' });
      expect(named.body.data).toMatchObject({ type: 'string', name: 'name', collectionName: 'tests', unique: true, defaultValue: 'abc' });
      expect(code(await ctx.api.post('/api/fields:create', { type: 'string', name: 'x' }))).toBe('SCHEMA_INVALID');
      expect(code(await ctx.api.post('/api/fields:create', { type: 'string', name: 'x', collectionName: 'nope' }))).toBe('COLLECTION_NOT_FOUND');
      expect(code(await ctx.api.post('/api/collections/tests/fields:create', { type: 'string', name: 'x', collectionName: 'uniq' }))).toBe('SCHEMA_INVALID');
    });

    it('fields.repository.test.ts "should recreate field" (destroy by filter, then a relation of the same name)', async () => {
      await ctx.api.collection({ name: 'a1' });
      await ctx.api.collection({ name: 'a2' });
      expect((await ctx.api.post('/api/fields:create', { name: 'a', type: 'string', collectionName: 'a1' })).status).toBe(201);
      expect((await ctx.api.post('/api/a1:create', { a: 'a' })).status).toBe(201);
      const destroyed = await ctx.api.post('/api/fields:destroy?filter[name]=a&filter[collectionName]=a1');
      expect(destroyed.status, destroyed.text).toBe(200);
      const relation = await ctx.api.post('/api/fields:create', { name: 'a', type: 'hasOne', collectionName: 'a1', target: 'a2', foreignKey: 'a_id' });
      expect(relation.status, relation.text).toBe(201);
      const row = (await ctx.api.post('/api/a1:create', { a: {} })).body.data.id;
      expect((await ctx.api.get(`/api/a1/${row}?appends=a`)).body.data.a).toMatchObject({ a_id: row });
      expect((await ctx.api.post('/api/fields:destroy?filter[name]=a&filter[collectionName]=a1')).status).toBe(200);
      expect(names(await ctx.api.get('/api/collections/a1/fields:list'))).not.toContain('a');
      // A filter matching several fields names none of them.
      expect(code(await ctx.api.post('/api/fields:destroy?filter[collectionName]=a1'))).toBe('KEY_INVALID');
    });

    it('the fields resource: list by collectionName, get/update/destroy by key, collections.fields by name or key', async () => {
      await ctx.api.collection({ name: 'keyed', fields: [{ name: 'title', type: 'string' }] });
      const listed = await ctx.api.get('/api/fields:list?filter={"collectionName":"keyed"}&paginate=false');
      expect(names(listed)).toEqual(['id', 'createdAt', 'updatedAt', 'title']);
      expect(fieldsOf(listed).every((field) => field.key === `keyed.${field.name}` && field.collectionName === 'keyed')).toBe(true);
      expect((await ctx.api.get('/api/fields:get?filterByTk=keyed.title')).body.data).toMatchObject({ name: 'title', type: 'string' });
      expect((await ctx.api.get('/api/collections/keyed/fields:get?filterByTk=keyed.title')).body.data.name).toBe('title');
      expect((await ctx.api.get('/api/fields:list?filterByTk=keyed.title')).body.data).toHaveLength(1);
      expect(code(await ctx.api.get('/api/fields:get?filterByTk=title'))).toBe('KEY_INVALID');
      expect(code(await ctx.api.get('/api/fields:get?filterByTk=keyed.nope'))).toBe('FIELD_NOT_FOUND');
      const renamed = await ctx.api.post('/api/fields:update?filterByTk=keyed.title', { name: 'heading' });
      expect(renamed.body.data).toMatchObject({ name: 'heading', key: 'keyed.heading' });
      expect(code(await ctx.api.post('/api/fields:update?filterByTk=keyed.heading', { collectionName: 'uniq' }))).toBe('SCHEMA_INVALID');
      expect((await ctx.api.post('/api/fields:destroy?filterByTk=keyed.heading')).status).toBe(200);
      expect(names(await ctx.api.get('/api/collections/keyed/fields:list'))).not.toContain('heading');
    });

    it('primary-key.test.ts "should throw error when create field in collection that already has primary key"', async () => {
      await ctx.api.collection({ name: 'pkposts', fields: [{ name: 'title', type: 'string' }] });
      const reply = await ctx.api.post('/api/collections/pkposts/fields:create', { name: 'name', type: 'string', primaryKey: true });
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0].message).toContain('already has primary key');
    });

    it('primary-key.test.ts "should throw error when update field in collection that already has primary key" (explicit bigInt id)', async () => {
      const created = await ctx.api.post('/api/collections:create', {
        name: 'pkposts2', fields: [{ name: 'id', type: 'bigInt', primaryKey: true }, { name: 'title', type: 'string' }, { name: 'name', type: 'string' }],
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data).toMatchObject({ idType: 'bigInt', autoGenId: true });
      const reply = await ctx.api.post('/api/collections/pkposts2/fields:update?filterByTk=title', { primaryKey: true });
      expect(reply.status).toBe(409);
      // "should add new primary key" / "should update new primary key": moving the key is refused too (documented difference).
      expect((await ctx.api.post('/api/collections/pkposts2/fields:update?filterByTk=id', { primaryKey: false })).status).toBe(400);
    });

    it('collection-without-id-primary-field.test.ts "should create collection without id primary key" (400: the key is chosen at creation)', async () => {
      expect((await ctx.api.post('/api/collections:create', { name: 'testA', autoGenId: false })).status).toBe(400);
      const created = await ctx.api.post('/api/collections:create', {
        name: 'testA',
        autoGenId: false,
        fields: [{ key: 'test_field', name: 'name', interface: 'input', type: 'string', description: null, uiSchema: { type: 'string', 'x-component': 'Input', title: 'name' }, primaryKey: true }],
      });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data).toMatchObject({ autoGenId: false, filterTargetKey: 'name' });
      expect((await ctx.api.get('/api/collections/testA/fields/name')).body.data).toMatchObject({ primaryKey: true, interface: 'input', uiSchema: { title: 'name' } });
    });
  });
}
