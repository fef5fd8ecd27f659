import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type Reply } from '../support/test-app.js';

/**
 * NocoBase's collection and field options, and its relation fields (sortable hasMany,
 * reverseField, dropping collections), replayed over HTTP. Each case names the NocoBase test
 * file (under packages/plugins/@nocobase/plugin-data-source-main/src/server/__tests__/, or
 * the admin UI's request where no server test covers it) and title.
 */

type Field = Record<string, unknown> & { name: string; key: string };
const fieldsOf = (reply: Reply): Field[] => reply.body.data as Field[];
const names = (reply: Reply): string[] => fieldsOf(reply).map((field) => field.name);
const code = (reply: Reply): string | undefined => reply.body.errors?.[0]?.code;
const ui = (title: string) => ({ title, 'x-component': 'Input' });

for (const dialect of DIALECTS) {
  describe(`NocoBase schema API: options and relations, on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const fieldsOfCollection = async (name: string) => fieldsOf(await ctx.api.get(`/api/collections/${name}/fields:list?paginate=false`));
    const fieldOf = async (collection: string, name: string) => (await fieldsOfCollection(collection)).find((f) => f.name === name);

    it("admin UI 'general' template: sortable, logging, template, view: false, category and an explicit bigInt id are accepted and returned", async () => {
      const body = {
        name: 'general', title: 'General', description: 'made by the UI', autoGenId: true, sortable: true, logging: true, template: 'general', view: false,
        hidden: false, origin: 'main', category: [], shared: false,
        fields: [
          { name: 'id', type: 'bigInt', autoIncrement: true, primaryKey: true, allowNull: false, interface: 'integer', uiSchema: { type: 'number', title: '{{t("ID")}}', 'x-component': 'InputNumber', 'x-read-pretty': true } },
          { name: 'title', type: 'string', interface: 'input', uiSchema: ui('Title') },
        ],
      };
      const created = await ctx.api.post('/api/collections:create', body);
      expect(created.status, created.text).toBe(201);
      expect(created.body.data).toMatchObject({ name: 'general', idType: 'bigInt', autoGenId: true, sortable: true, logging: true, template: 'general', hidden: false, origin: 'main', category: [], unavailableActions: [] });
      const fields = await fieldsOfCollection('general');
      expect(fields.map((f) => f.name)).toEqual(['id', 'createdAt', 'updatedAt', 'title', 'sort']);
      expect(fields[0]).toMatchObject({ type: 'bigInt', primaryKey: true, autoIncrement: true, interface: 'integer', uiSchema: { title: '{{t("ID")}}' } });
      expect(fields[4]).toMatchObject({ name: 'sort', type: 'sort' });
      // The sort field numbers new rows.
      const a = (await ctx.api.post('/api/general:create', { title: 'a' })).body.data;
      const b = (await ctx.api.post('/api/general:create', { title: 'b' })).body.data;
      expect(b.sort).toBeGreaterThan(a.sort);
      // The UI's edit form sends the record back with a new title: only the title changes.
      const { fields: _fields, ...again } = created.body.data;
      const updated = await ctx.api.post('/api/collections:update?filterByTk=general', { ...again, title: 'Renamed', logging: false });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.data).toMatchObject({ title: 'Renamed', logging: false, template: 'general', sortable: true });
      expect(code(await ctx.api.post('/api/collections:update?filterByTk=general', { idType: 'uuid' }))).toBe('SCHEMA_INVALID');
      const listed = await ctx.api.get('/api/collections:list?filter[logging]=false&fields=name,logging');
      expect(listed.body.data).toContainEqual({ name: 'general', logging: false });
    });

    it('an explicit uuid or string id, and snowflakeId as an auto-increment bigInt', async () => {
      const uuid = await ctx.api.post('/api/collections:create', { name: 'uuids', fields: [{ name: 'id', type: 'uuid', primaryKey: true, interface: 'uuid' }] });
      expect(uuid.body.data).toMatchObject({ idType: 'uuid', autoGenId: true });
      expect((await ctx.api.post('/api/uuids:create', {})).body.data.id).toMatch(/^[0-9a-f-]{36}$/);
      const text = await ctx.api.post('/api/collections:create', { name: 'codes', fields: [{ name: 'id', type: 'string', primaryKey: true }] });
      expect(text.body.data).toMatchObject({ autoGenId: false, filterTargetKey: 'id' });
      expect((await ctx.api.post('/api/codes:create', { id: 'A-1' })).body.data.id).toBe('A-1');
      const snowflake = await ctx.api.post('/api/collections:create', { name: 'flakes', fields: [{ name: 'id', type: 'snowflakeId', autoIncrement: false, primaryKey: true, allowNull: false }] });
      expect(snowflake.body.data).toMatchObject({ idType: 'bigInt' });
      expect(code(await ctx.api.post('/api/collections:create', { name: 'clash', idType: 'uuid', fields: [{ name: 'id', type: 'bigInt', primaryKey: true }] }))).toBe('SCHEMA_INVALID');
    });

    it('options with a meaning Corral lacks are refused by name; the same options asking for nothing are accepted', async () => {
      const refused: [string, Record<string, unknown>][] = [
        ['inherits', { inherits: ['general'] }],
        ['view', { view: true }],
        ['tree', { tree: 'adjacencyList' }],
        ['sql', { sql: 'select 1' }],
        ['paranoid', { paranoid: true }],
        ['tableName', { tableName: 'elsewhere' }],
      ];
      for (const [option, extra] of refused) {
        const reply = await ctx.api.post('/api/collections:create', { name: 'refused', ...extra });
        expect(reply.status, option).toBe(400);
        expect(reply.body.errors[0]).toMatchObject({ code: 'SCHEMA_INVALID', field: option });
        expect(reply.body.errors[0].message).toContain(option);
      }
      const accepted = await ctx.api.post('/api/collections:create', { name: 'plain', inherits: [], view: false, tableName: 'plain', paranoid: false });
      expect(accepted.status, accepted.text).toBe(201);
      expect(code(await ctx.api.post('/api/collections:create', { name: 'odd', madeUp: 1 }))).toBe('SCHEMA_INVALID');
    });

    it('sortable as a field name, and turned on later by collections:update', async () => {
      const named = await ctx.api.post('/api/collections:create', { name: 'ranked', sortable: 'position' });
      expect(named.body.data.fields.map((f: Field) => f.name)).toContain('position');
      await ctx.api.collection({ name: 'later' });
      const updated = await ctx.api.post('/api/collections:update?filterByTk=later', { sortable: { name: 'rank', scopeKey: 'status' } });
      expect(updated.status, updated.text).toBe(200);
      expect(await fieldOf('later', 'rank')).toMatchObject({ type: 'sort' });
      expect(updated.body.data.sortable).toEqual({ name: 'rank', scopeKey: 'status' });
      expect(code(await ctx.api.post('/api/collections:create', { name: 'badsort', sortable: 3 }))).toBe('SCHEMA_INVALID');
    });

    it('UI options (interface, uiSchema) on every field type, relations included: stored, returned, kept across updates and in the export', async () => {
      await ctx.api.collection({ name: 'uitags', fields: [{ name: 'label', type: 'string', interface: 'input', uiSchema: ui('Label') }] });
      const created = await ctx.api.post('/api/collections:create', {
        name: 'uiposts',
        fields: [
          { name: 'title', type: 'string', interface: 'input', uiSchema: ui('Title'), description: 'the title' },
          { name: 'body', type: 'text', interface: 'markdown', uiSchema: ui('Body') },
          { name: 'views', type: 'integer', interface: 'integer', uiSchema: ui('Views') },
          { name: 'done', type: 'boolean', interface: 'checkbox', uiSchema: ui('Done') },
          { name: 'when', type: 'date', interface: 'datetime', uiSchema: ui('When') },
          { name: 'meta', type: 'json', interface: 'json', uiSchema: ui('Meta') },
          { name: 'status', type: 'string', interface: 'select', uiSchema: { ...ui('Status'), enum: [{ value: 'draft', label: 'Draft' }] } },
          { name: 'owner', type: 'belongsTo', target: 'uitags', interface: 'm2o', uiSchema: ui('Owner') },
          { name: 'notes', type: 'hasMany', target: 'uitags', foreignKey: 'noteOfId', interface: 'o2m', uiSchema: ui('Notes') },
          { name: 'pinned', type: 'hasOne', target: 'uitags', foreignKey: 'pinnedOfId', interface: 'oho', uiSchema: ui('Pinned') },
          { name: 'tags', type: 'belongsToMany', target: 'uitags', interface: 'm2m', uiSchema: ui('Tags') },
        ],
      });
      expect(created.status, created.text).toBe(201);
      const fields = await fieldsOfCollection('uiposts');
      for (const name of ['title', 'body', 'views', 'done', 'when', 'meta', 'status', 'owner', 'notes', 'pinned', 'tags']) {
        const field = fields.find((f) => f.name === name)!;
        expect(field.interface, name).toEqual(expect.any(String));
        expect((field.uiSchema as { title: string }).title.toLowerCase(), name).toBe(name === 'when' ? 'when' : name);
      }
      // A column change keeps the UI options; a UI-only change needs no DDL; null removes one.
      const widened = await ctx.api.put('/api/collections/uiposts/fields/title', { length: 300 });
      expect(widened.body.data).toMatchObject({ length: 300, interface: 'input', uiSchema: { title: 'Title' }, description: 'the title' });
      const renamed = await ctx.api.put('/api/collections/uiposts/fields/views', { name: 'hits' });
      expect(renamed.body.data).toMatchObject({ name: 'hits', interface: 'integer', uiSchema: { title: 'Views' } });
      const relabelled = await ctx.api.put('/api/collections/uiposts/fields/owner', { uiSchema: ui('Author'), title: 'Author' });
      expect(relabelled.status, relabelled.text).toBe(200);
      expect(relabelled.body.data).toMatchObject({ type: 'belongsTo', target: 'uitags', uiSchema: { title: 'Author' }, title: 'Author', interface: 'm2o' });
      const cleared = await ctx.api.put('/api/collections/uiposts/fields/body', { interface: null });
      expect(cleared.body.data.interface).toBeUndefined();
      // System fields and relation key columns can be relabelled (and nothing else changes).
      expect((await ctx.api.put('/api/collections/uiposts/fields/id', { uiSchema: ui('ID') })).body.data).toMatchObject({ system: 'id', uiSchema: { title: 'ID' } });
      expect((await ctx.api.put('/api/collections/uiposts/fields/ownerId', { interface: 'integer', isForeignKey: true })).status).toBe(200);
      expect((await ctx.api.put('/api/collections/uiposts/fields/id', { type: 'bigInt' })).status).toBe(400);
      // A relation's definition still cannot change in place.
      expect(code(await ctx.api.put('/api/collections/uiposts/fields/owner', { target: 'uiposts' }))).toBe('SCHEMA_CHANGE_UNSAFE');
      // The export keeps them, so a schema file round-trips them.
      const exported = (await ctx.api.get('/api/collections:export')).body.collections.filter((c: { name: string }) => c.name === 'uiposts');
      const exportedFields = exported.flatMap((c: { fields: Field[] }) => c.fields);
      expect(exportedFields.find((f: Field) => f.name === 'title')).toMatchObject({ interface: 'input', uiSchema: { title: 'Title' } });
      expect(exportedFields.find((f: Field) => f.name === 'owner')).toMatchObject({ interface: 'm2o', uiSchema: { title: 'Author' } });
      expect(exportedFields.find((f: Field) => f.name === 'id')).toMatchObject({ primaryKey: true, uiSchema: { title: 'ID' } });
    });

    it('reverseField.test.ts "should update uiSchema" (the field read back, with a new title, sent whole)', async () => {
      await ctx.api.collection({ name: 'ua' });
      const f = await ctx.api.post('/api/collections/ua/fields:create', { name: 'f_i02fjvduwmv', interface: 'input', type: 'string', uiSchema: { type: 'string', 'x-component': 'Input', title: 'A1' } });
      expect(f.status, f.text).toBe(201);
      const updated = await ctx.api.post('/api/collections/ua/fields:update?filterByTk=f_i02fjvduwmv', { ...f.body.data, uiSchema: { ...f.body.data.uiSchema, title: 'A2' } });
      expect(updated.status, updated.text).toBe(200);
      expect((await ctx.api.get('/api/collections/ua/fields:get?filterByTk=f_i02fjvduwmv')).body.data.uiSchema.title).toBe('A2');
    });

    it('reverseField.test.ts "reverseField" and "should sync onDelete options for reverse field"', async () => {
      await ctx.api.collection({ name: 'rtests' });
      await ctx.api.collection({ name: 'rtargets' });
      const made = await ctx.api.post('/api/fields:create', { type: 'hasMany', collectionName: 'rtests', target: 'rtargets', onDelete: 'CASCADE', reverseField: {} });
      expect(made.status, made.text).toBe(201);
      expect(made.body.data).toMatchObject({ type: 'hasMany', collectionName: 'rtests', target: 'rtargets', sourceKey: 'id', onDelete: 'CASCADE' });
      const reverse = (await fieldsOfCollection('rtargets')).filter((f) => f.type === 'belongsTo');
      expect(reverse).toHaveLength(1);
      expect(reverse[0]).toMatchObject({ collectionName: 'rtargets', target: 'rtests', targetKey: 'id', foreignKey: made.body.data.foreignKey, onDelete: 'CASCADE' });
      // "should update reverseField onDelete options": a relation's onDelete is chosen at definition (documented difference).
      expect(code(await ctx.api.post(`/api/fields:update?filterByTk=${reverse[0]!.key}`, { onDelete: 'SET NULL' }))).toBe('SCHEMA_CHANGE_UNSAFE');
    });

    it('reverseField.test.ts "should create reverseField uiSchema"', async () => {
      await ctx.api.collection({ name: 'ra' });
      await ctx.api.collection({ name: 'rb' });
      const reply = await ctx.api.post('/api/collections/ra/fields:create', {
        foreignKey: 'f_qnt8iaony6i', onDelete: 'SET NULL', name: 'f_d5ebrb4h85m', type: 'hasOne', interface: 'oho', target: 'rb',
        uiSchema: { 'x-component': 'RecordPicker', 'x-component-props': { multiple: false, fieldNames: { label: 'id', value: 'id' } }, title: 'B' },
        reverseField: {
          uiSchema: { title: 'A', 'x-component': 'RecordPicker', 'x-component-props': { multiple: false, fieldNames: { label: 'id', value: 'id' } } },
          interface: 'obo', type: 'belongsTo', name: 'f_dctw6v5gsio',
        },
      });
      expect(reply.status, reply.text).toBe(201);
      const reverse = await ctx.api.get('/api/collections/rb/fields:get?filterByTk=f_dctw6v5gsio');
      expect(reverse.body.data).toMatchObject({ type: 'belongsTo', target: 'ra', foreignKey: 'f_qnt8iaony6i', interface: 'obo', uiSchema: { title: 'A' } });
    });

    it('resources/collections.fields.test.ts "remove association field" (the reverse relation stays)', async () => {
      await ctx.api.collection({ name: 'rm1' });
      await ctx.api.collection({ name: 'rm2' });
      expect((await ctx.api.post('/api/collections/rm1/fields:create', { type: 'belongsTo', name: 'rm2', target: 'rm2', reverseField: { name: 'rm1' } })).status).toBe(201);
      expect(await fieldOf('rm2', 'rm1')).toMatchObject({ type: 'hasMany', target: 'rm1', foreignKey: 'rm2Id' });
      expect((await ctx.api.post('/api/collections/rm1/fields:destroy?filterByTk=rm2')).status).toBe(200);
      expect(await fieldOf('rm1', 'rm2')).toBeUndefined();
      expect(await fieldOf('rm2', 'rm1')).toBeDefined();
      expect(await fieldOf('rm1', 'rm2Id')).toBeDefined();
    });

    it('fields/hasMany.test.ts "should create fields with sortable option" and "should reload collection`s fields after foreignKey added"', async () => {
      await ctx.api.collection({ name: 'stests' });
      await ctx.api.collection({ name: 'sfoos', fields: [{ name: 'label', type: 'string' }] });
      const made = await ctx.api.post('/api/fields:create', { name: 'foos', type: 'hasMany', collectionName: 'stests', target: 'sfoos', sortable: true, foreignKey: 'test_id', interface: 'o2m' });
      expect(made.status, made.text).toBe(201);
      expect(made.body.data).toMatchObject({ sortable: true, sortBy: 'test_idSort' });
      expect(await fieldOf('sfoos', 'test_id')).toBeDefined();
      expect(await fieldOf('sfoos', 'test_idSort')).toMatchObject({ type: 'sort' });
      // The association lists in sortBy order unless the request sorts.
      const parent = (await ctx.api.post('/api/stests:create', {})).body.data.id;
      for (const [label, rank] of [['b', 2], ['a', 1], ['c', 3]] as const) {
        await ctx.api.post('/api/sfoos:create', { label, test_id: parent, test_idSort: rank });
      }
      expect((await ctx.api.get(`/api/stests/${parent}/foos:list`)).body.data.map((r: { label: string }) => r.label)).toEqual(['a', 'b', 'c']);
      expect((await ctx.api.get(`/api/stests/${parent}/foos:list?sort=-label`)).body.data.map((r: { label: string }) => r.label)).toEqual(['c', 'b', 'a']);
    });

    it('fields/hasMany.test.ts "should update field with sortable option" (fields:update by key adds the sort column)', async () => {
      await ctx.api.collection({ name: 'utests' });
      await ctx.api.collection({ name: 'ufoos' });
      const made = await ctx.api.post('/api/fields:create', { name: 'foos', type: 'hasMany', collectionName: 'utests', target: 'ufoos', foreignKey: 'test_id' });
      expect(made.body.data.sortBy).toBeUndefined();
      const updated = await ctx.api.post(`/api/fields:update?filterByTk=${made.body.data.key}`, { sortable: true });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.data).toMatchObject({ sortable: true, sortBy: 'test_idSort' });
      expect(await fieldOf('ufoos', 'test_idSort')).toMatchObject({ type: 'sort' });
      expect((await ctx.api.post('/api/ufoos:create', { test_idSort: 5 })).body.data.test_idSort).toBe(5);
      // sortBy may name another target field; off again keeps the column.
      expect((await ctx.api.put('/api/collections/utests/fields/foos', { sortable: false, sortBy: '-createdAt' })).body.data).toMatchObject({ sortBy: '-createdAt' });
      expect(code(await ctx.api.put('/api/collections/utests/fields/foos', { sortBy: 'nope' }))).toBe('SCHEMA_INVALID');
      expect(await fieldOf('ufoos', 'test_idSort')).toBeDefined();
      expect(code(await ctx.api.post('/api/collections/ufoos/fields:create', { name: 'owner', type: 'belongsTo', target: 'utests', sortable: true }))).toBe('SCHEMA_INVALID');
    });

    it('fields/hasMany.test.ts "should generate the foreignKey randomly" and "the parameters are not generated randomly" (keys must exist here)', async () => {
      await ctx.api.collection({ name: 'gtests' });
      await ctx.api.collection({ name: 'gfoos' });
      const made = await ctx.api.post('/api/fields:create', { type: 'hasMany', collectionName: 'gtests', target: 'gfoos', targetKey: 'id' });
      expect(made.status, made.text).toBe(201);
      expect(made.body.data).toMatchObject({ type: 'hasMany', collectionName: 'gtests', target: 'gfoos', sourceKey: 'id' });
      expect(made.body.data.name).toEqual(expect.any(String));
      expect(made.body.data.foreignKey).toEqual(expect.any(String));
      const missing = await ctx.api.post('/api/fields:create', { name: 'foos', type: 'hasMany', collectionName: 'gtests', target: 'gfoos', sourceKey: 'abc', foreignKey: 'def', targetKey: 'ghi' });
      expect(code(missing)).toBe('SCHEMA_INVALID');
    });

    it('resources/collections.test.ts "remove collection 1" and "remove collection 2" (cascade=true drops the relations pointing at it)', async () => {
      await ctx.api.collection({ name: 'del0' });
      expect((await ctx.api.post('/api/collections:destroy?filterByTk=del0')).status).toBe(200);
      await ctx.api.collection({ name: 'del1' });
      await ctx.api.collection({ name: 'del2' });
      await ctx.api.post('/api/collections/del1/fields:create', { type: 'belongsTo', name: 'del2', target: 'del2', reverseField: { name: 'del1' } });
      // NocoBase drops the reverse relation silently; Corral asks for cascade=true (documented difference).
      expect(code(await ctx.api.post('/api/collections:destroy?filterByTk=del1'))).toBe('COLLECTION_IN_USE');
      expect((await ctx.api.post('/api/collections:destroy?filterByTk=del1&cascade=true')).status).toBe(200);
      expect(code(await ctx.api.get('/api/collections/del1'))).toBe('COLLECTION_NOT_FOUND');
      expect(await fieldOf('del2', 'del1')).toBeUndefined();
    });

    it('resources/collections.test.ts "remove collection 3" and docs/relations.md: DELETE a through collection with cascade=true drops both relations', async () => {
      for (const name of ['th1', 'th2', 'th3']) await ctx.api.collection({ name });
      const made = await ctx.api.post('/api/collections/th1/fields:create', { type: 'belongsToMany', name: 'th2', target: 'th2', through: 'th3', reverseField: { name: 'th1' } });
      expect(made.status, made.text).toBe(201);
      expect(await fieldOf('th2', 'th1')).toMatchObject({ type: 'belongsToMany', through: 'th3', foreignKey: 'th2Id', otherKey: 'th1Id' });
      expect(code(await ctx.api.del('/api/collections/th3'))).toBe('COLLECTION_IN_USE');
      const dropped = await ctx.api.del('/api/collections/th3?cascade=true');
      expect(dropped.status, dropped.text).toBe(200);
      expect(code(await ctx.api.get('/api/collections/th3'))).toBe('COLLECTION_NOT_FOUND');
      expect(await fieldOf('th1', 'th2')).toBeUndefined();
      expect(await fieldOf('th2', 'th1')).toBeUndefined();
      // A through collection belongsToMany made by itself goes the same way.
      await ctx.api.post('/api/collections/th1/fields:create', { type: 'belongsToMany', name: 'tags', target: 'th2' });
      const auto = await ctx.api.del('/api/collections/th1_th2?cascade=true');
      expect(auto.status, auto.text).toBe(200);
      expect(await fieldOf('th1', 'tags')).toBeUndefined();
      expect((await ctx.api.post('/api/th1:create', {})).status).toBe(201);
    });

    it('remove-collection.test.ts "should remove association field after collection destroy" (cascade=true; the target must exist first)', async () => {
      expect(code(await ctx.api.post('/api/collections:create', { name: 'rposts', fields: [{ type: 'hasMany', name: 'comments', target: 'rcomments' }] }))).toBe('SCHEMA_INVALID');
      await ctx.api.collection({ name: 'rcomments', fields: [{ type: 'string', name: 'content' }] });
      await ctx.api.collection({ name: 'rposts', fields: [{ type: 'hasMany', name: 'comments', target: 'rcomments' }] });
      expect((await ctx.api.del('/api/collections/rcomments?cascade=true')).status).toBe(200);
      expect(await fieldOf('rposts', 'comments')).toBeUndefined();
      expect(fieldsOf(await ctx.api.get('/api/fields:list?filter[collectionName]=rcomments'))).toEqual([]);
    });
  });
}
