import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type Reply } from '../support/test-app.js';

/**
 * More of NocoBase's plugin-data-source-main cases (relation keys, through collections,
 * collection options, default values, unique indexes, interface default types), replayed
 * over HTTP. Each case names the NocoBase test file (under
 * packages/plugins/@nocobase/plugin-data-source-main/src/server/__tests__/) and title.
 */

type Field = Record<string, unknown> & { name: string; key: string };
const fieldsOf = (reply: Reply): Field[] => reply.body.data as Field[];
const code = (reply: Reply): string | undefined => reply.body.errors?.[0]?.code;

for (const dialect of DIALECTS) {
  describe(`NocoBase schema API: more plugin-data-source-main cases, on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const fieldOf = async (collection: string, name: string) => fieldsOf(await ctx.api.get(`/api/collections/${collection}/fields:list?paginate=false`)).find((f) => f.name === name);

    it('through.test.ts "case 1": explicit integer ids, a named through with reverseField, a hasMany sharing its key', async () => {
      for (const name of ['resumes', 'jobs', 'matches']) {
        const made = await ctx.api.post('/api/collections:create', { name, fields: [{ name: 'id', type: 'integer', autoIncrement: true, primaryKey: true, allowNull: false }] });
        expect(made.status, made.text).toBe(201);
      }
      const jobs = await ctx.api.post('/api/collections/resumes/fields:create', {
        name: 'jobs', type: 'belongsToMany', foreignKey: 'rid', otherKey: 'jid', reverseField: { type: 'belongsToMany', name: 'resumes' }, target: 'jobs', through: 'matches',
      });
      expect(jobs.status, jobs.text).toBe(201);
      const matches = await ctx.api.post('/api/collections/resumes/fields:create', { name: 'matches2', type: 'hasMany', target: 'matches', foreignKey: 'rid', reverseField: { name: 'resume' } });
      expect(matches.status, matches.text).toBe(201);
      expect(await fieldOf('matches', 'resume')).toMatchObject({ type: 'belongsTo', target: 'resumes', foreignKey: 'rid' });
      const job = (await ctx.api.post('/api/jobs:create', {})).body.data.id;
      const resume = await ctx.api.post('/api/resumes:create', { jobs: [job] });
      expect(resume.status, resume.text).toBe(201);
      expect((await ctx.api.get('/api/matches:list')).body.data[0]).toMatchObject({ id: 1, rid: 1, jid: 1 });
      expect((await ctx.api.get(`/api/jobs/${job}/resumes:list`)).body.data.map((r: { id: number }) => r.id)).toEqual([resume.body.data.id]);
    });

    it('fields/belongs-to-many.test.ts "should check association keys" and "should throw error when through table foreign keys are same name"', async () => {
      await ctx.api.collection({ name: 'bposts', fields: [{ type: 'string', name: 'title' }] });
      await ctx.api.collection({ name: 'btags', fields: [{ type: 'string', name: 'name' }] });
      await ctx.api.collection({ name: 'postsTags', fields: [{ type: 'string', name: 'postId' }, { type: 'string', name: 'tagId' }] });
      const wrongKeys = await ctx.api.post('/api/fields:create', {
        collectionName: 'bposts', type: 'belongsToMany', name: 'tags', target: 'btags', through: 'postsTags', sourceKey: 'id', targetKey: 'id', foreignKey: 'postId', otherKey: 'tagId',
      });
      expect(code(wrongKeys)).toBe('SCHEMA_INVALID');
      const same = await ctx.api.post('/api/fields:create', { name: 'bs', type: 'belongsToMany', collectionName: 'bposts', target: 'btags', sourceKey: 'id', targetKey: 'id', foreignKey: 'a_id', otherKey: 'a_id' });
      expect(code(same)).toBe('SCHEMA_INVALID');
    });

    it('fields/belongs-to-many.test.ts "should define belongs to many when change alias name" (a relation may share its through name here)', async () => {
      for (const name of ['ba', 'bb', 't1']) await ctx.api.post('/api/collections:create', { name, fields: [{ type: 'bigInt', name: 'id', primaryKey: true, autoIncrement: true }] });
      const values = { type: 'belongsToMany', target: 'bb', through: 't1', collectionName: 'ba', sourceKey: 'id', targetKey: 'id', foreignKey: 'a_id', otherKey: 'b_id' };
      // NocoBase refuses the name t1 (Sequelize's alias clashes with the through model); Corral has no such clash.
      expect((await ctx.api.post('/api/fields:create', { name: 't1', ...values })).status).toBe(201);
      expect((await ctx.api.post('/api/fields:create', { name: 'xxx', ...values })).status).toBe(201);
    });

    it('fields/belongs-to-many.test.ts "should create belongsToMany field" and "should belongs to many fields after through collection destroyed"', async () => {
      await ctx.api.collection({ name: 'tags', fields: [{ type: 'string', name: 'name' }] });
      await ctx.api.collection({ name: 'mposts', fields: [{ type: 'string', name: 'title' }] });
      const made = await ctx.api.post('/api/fields:create', { name: 'tags', type: 'belongsToMany', collectionName: 'mposts', interface: 'm2m', through: 'post_tags' });
      expect(made.status, made.text).toBe(201);
      const through = await ctx.api.get('/api/collections/post_tags');
      expect(through.body.data.sortable ?? false).toBe(false);
      expect((await ctx.api.post('/api/mposts:create', [{ title: 'p1', tags: [{ name: 't1' }] }, { title: 'p2', tags: [{ name: 't2' }] }])).status).toBe(201);
      expect((await ctx.api.del('/api/collections/post_tags?cascade=true')).status).toBe(200);
      expect(fieldsOf(await ctx.api.get('/api/fields:list?filter[collectionName]=mposts&filter[name]=tags'))).toEqual([]);
    });

    it('fields/belongsTo.test.ts "should check belongs to association keys" and "should load belongsTo field" (the target must exist first)', async () => {
      await ctx.api.collection({ name: 'kposts', fields: [{ type: 'string', name: 'name' }, { type: 'bigInt', name: 'postId' }] });
      await ctx.api.collection({ name: 'ktags', fields: [{ type: 'string', name: 'name' }] });
      expect(code(await ctx.api.post('/api/fields:create', { collectionName: 'kposts', type: 'belongsTo', name: 'ktags', targetKey: 'name', foreignKey: 'postId' }))).toBe('SCHEMA_INVALID');
      const early = await ctx.api.post('/api/collections:create', { name: 'orders', fields: [{ type: 'integer', name: 'amount' }, { type: 'belongsTo', name: 'kusers', targetKey: 'uid', foreignKey: 'userId' }] });
      expect(code(early)).toBe('SCHEMA_INVALID');
    });

    it('fields/hasOne.test.ts "should generate the foreignKey randomly" and "the parameters are not generated randomly" (keys must exist here)', async () => {
      await ctx.api.collection({ name: 'otests' });
      await ctx.api.collection({ name: 'ofoos' });
      const made = await ctx.api.post('/api/fields:create', { type: 'hasOne', collectionName: 'otests', target: 'ofoos' });
      expect(made.body.data).toMatchObject({ type: 'hasOne', collectionName: 'otests', target: 'ofoos', sourceKey: 'id' });
      expect(made.body.data.foreignKey).toEqual(expect.any(String));
      expect(code(await ctx.api.post('/api/fields:create', { name: 'foo', type: 'hasOne', collectionName: 'otests', target: 'ofoos', sourceKey: 'abc', foreignKey: 'def' }))).toBe('SCHEMA_INVALID');
    });

    it('collections.repository.test.ts "should create collection with optional/required duplicator option", "case 1", "case 2", "should create collection with description"', async () => {
      const rules = await ctx.api.post('/api/collections:create', { name: 'dumped', dumpRules: { group: 'business' }, description: 'for tests', fields: [{ type: 'string', name: 'title' }] });
      expect(rules.body.data).toMatchObject({ name: 'dumped', dumpRules: { group: 'business' }, description: 'for tests' });
      const unnamed = await ctx.api.post('/api/collections:create', {});
      expect(unnamed.status, unnamed.text).toBe(201);
      expect(unnamed.body.data.name).toMatch(/^t_[a-z0-9]{11}$/);
      expect((await ctx.api.post('/api/collections:create', { name: 'named' })).body.data).toMatchObject({ name: 'named' });
    });

    it('collections.repository.test.ts "should update association field" (collections.fields:update with key and collectionName sent along)', async () => {
      await ctx.api.collection({ name: 'ua', fields: [{ name: 'title', type: 'string' }] });
      await ctx.api.collection({ name: 'uc', uiSchema: { title: 'c-title' }, fields: [{ type: 'string', name: 'title' }, { type: 'belongsTo', name: 'a', target: 'ua' }] });
      const updated = await ctx.api.post('/api/collections/uc/fields:update?filterByTk=a', { key: 'whatever', collectionName: 'uc', uiSchema: { title: 'c-hello-world' } });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.data).toMatchObject({ type: 'belongsTo', uiSchema: { title: 'c-hello-world' } });
      expect((await ctx.api.get('/api/collections/uc')).body.data.uiSchema).toEqual({ title: 'c-title' });
    });

    it('collections.repository.test.ts: destroying several fields by one filter, a timestamp, or a foreign key column is refused (documented differences)', async () => {
      await ctx.api.collection({ name: 'dtests', fields: [{ type: 'date', name: 'dateA' }, { type: 'date', name: 'date_a' }, { type: 'integer', name: 'a' }] });
      await ctx.api.collection({ name: 'dtarget' });
      // "should destroy when fields refer to the same field": one field per request.
      expect(code(await ctx.api.post('/api/fields:destroy?filter={"collectionName":"dtests","name":{"$in":["dateA","date_a"]}}'))).toBe('KEY_INVALID');
      // "should not destroy timestamps columns": automatic fields stay.
      expect((await ctx.api.post('/api/fields:destroy?filterByTk=dtests.createdAt')).status).toBe(400);
      // "should destroy relation field after foreignKey destroyed": an existing plain column cannot become a foreign key…
      expect(code(await ctx.api.post('/api/fields:create', { name: 'g1', foreignKey: 'a', target: 'dtarget', type: 'belongsTo', collectionName: 'dtests', interface: 'm2o' }))).toBe('SCHEMA_INVALID');
      // …and a relation's key column goes with its relation, not on its own.
      await ctx.api.post('/api/fields:create', { name: 'g2', foreignKey: 'a1', target: 'dtarget', type: 'belongsTo', collectionName: 'dtests', interface: 'm2o' });
      expect((await ctx.api.post('/api/fields:destroy?filterByTk=dtests.a1')).status).toBe(400);
      expect((await ctx.api.post('/api/fields:destroy?filterByTk=dtests.g2')).status).toBe(200);
      expect(await fieldOf('dtests', 'a1')).toBeUndefined();
    });

    it('fields-interface-default-type.test.ts: the interface gives the type when none is sent; an explicit type wins', async () => {
      await ctx.api.collection({ name: 'withInterfaceDefault' });
      const amount = await ctx.api.post('/api/fields:create', { name: 'amount', interface: 'number', collectionName: 'withInterfaceDefault' });
      expect(amount.body.data.type).toBe('double');
      expect((await ctx.api.post('/api/withInterfaceDefault:create', { amount: 12.5 })).body.data.amount).toBe(12.5);
      expect((await ctx.api.post('/api/fields:create', { name: 'note', interface: 'input', collectionName: 'withInterfaceDefault' })).body.data.type).toBe('string');
      expect((await ctx.api.post('/api/fields:create', { name: 'ratio', interface: 'number', type: 'float', collectionName: 'withInterfaceDefault' })).body.data.type).toBe('float');
    });

    it('field-options/default-value.test.ts "should be updated", "should be cleaned", "should replace object defaultValue instead of merge"', async () => {
      await ctx.api.collection({ name: 'dv' });
      await ctx.api.post('/api/collections/dv/fields:create', { name: 'field1', type: 'string', defaultValue: 'abc' });
      expect((await ctx.api.post('/api/dv:create', {})).body.data.field1).toBe('abc');
      await ctx.api.post('/api/collections/dv/fields:update?filterByTk=field1', { type: 'string', defaultValue: 'cba' });
      expect((await ctx.api.post('/api/dv:create', {})).body.data.field1).toBe('cba');
      await ctx.api.post('/api/collections/dv/fields:update?filterByTk=field1', { type: 'string', defaultValue: null });
      expect((await ctx.api.post('/api/dv:create', {})).body.data.field1).toBeNull();
      await ctx.api.post('/api/collections/dv/fields:create', { name: 'field2', type: 'json', defaultValue: { keep: true, nested: { a: 1 } } });
      await ctx.api.post('/api/collections/dv/fields:update?filterByTk=field2', { type: 'json', defaultValue: { nested: { b: 2 } } });
      expect((await ctx.api.get('/api/fields:get?filterByTk=dv.field2')).body.data.defaultValue).toEqual({ nested: { b: 2 } });
    });

    it('field-options/indexes.test.ts "create unique constraint after added duplicated records" and "field value cannot be duplicated with unique index" (409 here)', async () => {
      await ctx.api.collection({ name: 'ix' });
      const field = await ctx.api.post('/api/collections/ix/fields:create', { name: 'title', type: 'string' });
      await ctx.api.post('/api/ix:create', { title: 't1' });
      const second = (await ctx.api.post('/api/ix:create', { title: 't1' })).body.data.id;
      expect(code(await ctx.api.post(`/api/fields:update?filterByTk=${field.body.data.key}`, { unique: true }))).toBe('UNIQUE_VIOLATION');
      expect((await ctx.api.post('/api/ix:create', { title: 't1' })).status).toBe(201);
      expect(second).toBeGreaterThan(1);
      expect((await ctx.api.post('/api/ix:destroy?filter={"title":"t1","id":{"$ne":1}}')).status).toBe(200);
      expect((await ctx.api.post(`/api/fields:update?filterByTk=${field.body.data.key}`, { unique: true })).status).toBe(200);
      expect(code(await ctx.api.post('/api/ix:create', { title: 't1' }))).toBe('UNIQUE_VIOLATION');
    });
  });
}
