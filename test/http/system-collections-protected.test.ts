import { describe, expect, it } from 'vitest';
import { systemCollectionNames } from '../../src/schema/system-collection-tables.js';
import { expectError } from '../support/access-leak-fixture.js';
import { useDialectApp, type Reply, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * Issue 37, finding 8: the system collections (src/schema/protected.ts) are never dropped,
 * renamed or reshaped through the collections and fields API, whatever the route form: 409
 * COLLECTION_PROTECTED, and the table and its definition are as before. Fields a client adds
 * to a system collection stay the client's to change and drop; user collections drop as ever.
 */

/** Every system collection with one of its built-in fields (not the id). */
const SYSTEM: Readonly<Record<string, string>> = {
  roles: 'title',
  users: 'email',
  apiKeys: 'role',
  rolesResourcesScopes: 'scope',
  webhooks: 'url',
  attachments: 'sha256',
};

/** The key field (roles are keyed by name, the others by an automatic id). */
const keyOf = (collection: string): string => (collection === 'roles' ? 'name' : 'id');

type Send = (api: TestApi, collection: string, field: string) => Promise<Reply>;

/** Dropping, renaming or moving the collection. */
const COLLECTION_FORMS: readonly [string, Send][] = [
  ['DELETE /collections/<c>', (api, c) => api.del(`/api/collections/${c}`)],
  ['DELETE /collections/<c>?cascade=true', (api, c) => api.del(`/api/collections/${c}?cascade=true`)],
  ['collections:destroy?filterByTk=<c>', (api, c) => api.post(`/api/collections:destroy?filterByTk=${c}`)],
  ['collections:destroy/<c>', (api, c) => api.post(`/api/collections:destroy/${c}`)],
  ['collections:destroy?filterByTk=<c>&cascade=true', (api, c) => api.post(`/api/collections:destroy?filterByTk=${c}&cascade=true`)],
  ['collections:update?filterByTk=<c> {name}', (api, c) => api.post(`/api/collections:update?filterByTk=${c}`, { name: `${c}Renamed` })],
  ['collections:update/<c> {name}', (api, c) => api.post(`/api/collections:update/${c}`, { name: `${c}Renamed` })],
  ['PUT /collections/<c> {name}', (api, c) => api.put(`/api/collections/${c}`, { name: `${c}Renamed` })],
  ['PATCH /collections/<c> {name}', (api, c) => api.request('PATCH', `/api/collections/${c}`, { name: `${c}Renamed` })],
  ['collections:update/<c> {tableName}', (api, c) => api.post(`/api/collections:update/${c}`, { tableName: `${c}_moved` })],
  ['collections:update/<c> {system: false}', (api, c) => api.post(`/api/collections:update/${c}`, { system: false })],
];

/** Dropping, renaming or reshaping a built-in field. */
const FIELD_FORMS: readonly [string, Send][] = [
  ['DELETE /collections/<c>/fields/<f>', (api, c, f) => api.del(`/api/collections/${c}/fields/${f}`)],
  ['collections/<c>/fields:destroy?filterByTk=<f>', (api, c, f) => api.post(`/api/collections/${c}/fields:destroy?filterByTk=${f}`)],
  ['collections/<c>/fields:destroy/<f>', (api, c, f) => api.post(`/api/collections/${c}/fields:destroy/${f}`)],
  ['fields:destroy?filterByTk=<c>.<f>', (api, c, f) => api.post(`/api/fields:destroy?filterByTk=${c}.${f}`)],
  ['fields:destroy?filter[collectionName]=<c>&filter[name]=<f>', (api, c, f) => api.post(`/api/fields:destroy?filter[collectionName]=${c}&filter[name]=${f}`)],
  ['DELETE /collections/<c>/fields/<key>', (api, c) => api.del(`/api/collections/${c}/fields/${keyOf(c)}`)],
  ['PUT /collections/<c>/fields/<f> {type}', (api, c, f) => api.put(`/api/collections/${c}/fields/${f}`, { type: 'text' })],
  ['PATCH /collections/<c>/fields/<f> {name}', (api, c, f) => api.request('PATCH', `/api/collections/${c}/fields/${f}`, { name: `${f}Renamed` })],
  ['collections/<c>/fields:update?filterByTk=<f> {name}', (api, c, f) => api.post(`/api/collections/${c}/fields:update?filterByTk=${f}`, { name: `${f}Renamed` })],
  ['fields:update?filterByTk=<c>.<f> {type}', (api, c, f) => api.post(`/api/fields:update?filterByTk=${c}.${f}`, { type: 'date' })],
  ['fields:update?filter… {name}', (api, c, f) => api.post(`/api/fields:update?filter[collectionName]=${c}&filter[name]=${f}`, { name: `${f}Renamed` })],
  ['fields:update/<c>.<f> {allowNull}', (api, c, f) => api.post(`/api/fields:update/${c}.${f}`, { allowNull: true, unique: true })],
  ['PUT /collections/<c>/fields/<key> {type}', (api, c) => api.put(`/api/collections/${c}/fields/${keyOf(c)}`, { type: 'text' })],
];

/** What must not move: the definition as collections:get shows it, and the rows as a list reads them. */
async function state(api: TestApi, collection: string): Promise<{ definition: unknown; rows: unknown }> {
  const definition = await api.get(`/api/collections/${collection}`);
  expect(definition.status, definition.text).toBe(200);
  const rows = await api.get(`/api/${collection}:list?paginate=false`);
  expect(rows.status, rows.text).toBe(200);
  return { definition: definition.body.data, rows: rows.body.data };
}

for (const dialect of DIALECTS) {
  describe(`system collections are protected on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it('the table covers every system collection', () => {
      expect(Object.keys(SYSTEM).sort()).toEqual([...systemCollectionNames()].sort());
    });

    for (const [collection, field] of Object.entries(SYSTEM)) {
      it(`refuses every destructive form on ${collection} with 409 COLLECTION_PROTECTED and leaves it intact`, async () => {
        // One row at least where the root can make one without side effects elsewhere.
        if (collection === 'rolesResourcesScopes') expect((await ctx.api.post('/api/rolesResourcesScopes:create', { key: 'mine', name: 'Mine', scope: { createdById: '{{$user.id}}' } })).status).toBe(201);
        const before = await state(ctx.api, collection);
        for (const [form, send] of [...COLLECTION_FORMS, ...FIELD_FORMS]) {
          const reply = await send(ctx.api, collection, field);
          expect(reply.status, `${form} on ${collection}.${field}: ${reply.text}`).toBe(409);
          expect(reply.body.errors[0].code, `${form} on ${collection}.${field}`).toBe('COLLECTION_PROTECTED');
        }
        expect(await state(ctx.api, collection)).toEqual(before);
      });
    }

    it('lists system collections with system: true and their built-in fields with builtIn: true', async () => {
      const list = await ctx.api.get('/api/collections:list?paginate=false');
      expect(list.status, list.text).toBe(200);
      const system = (list.body.data as { name: string; system?: boolean }[]).filter((collection) => collection.system === true).map((collection) => collection.name);
      expect(system.sort()).toEqual([...systemCollectionNames()].sort());
      const users = (await ctx.api.get('/api/collections/users/fields:list?paginate=false')).body.data as { name: string; builtIn?: true }[];
      expect(users.filter((f) => f.builtIn !== true)).toEqual([]);
      const filtered = await ctx.api.get('/api/collections:list?paginate=false&filter[system]=true&fields=name');
      expect((filtered.body.data as { name: string }[]).map((c) => c.name).sort()).toEqual([...systemCollectionNames()].sort());
    });

    it('a system collection still takes a new title, UI options and its own record sent back', async () => {
      // NocoBase's UI sends the record back without its fields (sent, they ask for a change: 400 on any collection).
      const { fields: _fields, ...current } = (await ctx.api.get('/api/collections/users')).body.data;
      const retitled = await ctx.api.post('/api/collections:update/users', { ...current, title: 'People' });
      expect(retitled.status, retitled.text).toBe(200);
      expect(retitled.body.data).toMatchObject({ name: 'users', title: 'People', system: true });
      const email = (await ctx.api.get('/api/collections/users/fields/email')).body.data;
      const relabelled = await ctx.api.put('/api/collections/users/fields/email', { ...email, title: 'E-mail', uiSchema: { title: 'E-mail' } });
      expect(relabelled.status, relabelled.text).toBe(200);
      expect(relabelled.body.data).toMatchObject({ name: 'email', type: 'string', title: 'E-mail', builtIn: true });
      expectError(await ctx.api.post('/api/collections:create', { name: 'lookalike', system: true, fields: [] }), 400, 'SCHEMA_INVALID');
    });

    it('a field added to users is the client\'s: changed, renamed and dropped', async () => {
      const added = await ctx.api.post('/api/collections/users/fields:create', { name: 'phone', type: 'string', length: 20 });
      expect(added.status, added.text).toBe(201);
      expect(added.body.data.builtIn).toBeUndefined();
      const root = (await ctx.api.get('/api/users:list?filter[username]=root')).body.data[0].id;
      expect((await ctx.api.post(`/api/users:update/${root}`, { phone: '+1 555' })).status).toBe(200);
      const widened = await ctx.api.put('/api/collections/users/fields/phone', { length: 40 });
      expect(widened.status, widened.text).toBe(200);
      const renamed = await ctx.api.post('/api/fields:update?filterByTk=users.phone', { name: 'mobile' });
      expect(renamed.status, renamed.text).toBe(200);
      expect((await ctx.api.get(`/api/users/${root}`)).body.data.mobile).toBe('+1 555');
      expect((await ctx.api.del('/api/collections/users/fields/mobile')).body).toEqual({ data: 1 });
      expect(Object.keys((await ctx.api.get(`/api/users/${root}`)).body.data)).not.toContain('mobile');
    });

    it('a relation added to users (and one pointing at it) is dropped as usual', async () => {
      await ctx.api.collection({ name: 'diaries', fields: [{ name: 'title', type: 'string' }, { name: 'owner', type: 'belongsTo', target: 'users' }] });
      const added = await ctx.api.post('/api/collections/users/fields:create', { name: 'diaries', type: 'hasMany', target: 'diaries', foreignKey: 'ownerId' });
      expect(added.status, added.text).toBe(201);
      expect((await ctx.api.del('/api/collections/users/fields/diaries')).body).toEqual({ data: 1 });
      expectError(await ctx.api.del('/api/collections/users'), 409, 'COLLECTION_PROTECTED');
      expect((await ctx.api.del('/api/collections/diaries')).body).toEqual({ data: 1 });
      expect((await ctx.api.get('/api/users:list')).status).toBe(200);
    });

    it('a relation through a system collection, or sharing a built-in key column, drops without taking them along', async () => {
      await ctx.api.collection({ name: 'badges', fields: [{ name: 'title', type: 'string' }] });
      expect((await ctx.api.post('/api/rolesResourcesScopes:create', { key: 'kept', name: 'Kept', scope: {} })).status).toBe(201);
      const original = { scopes: await state(ctx.api, 'rolesResourcesScopes'), attachments: await state(ctx.api, 'attachments') };
      // A belongsToMany through rolesResourcesScopes adds its key columns there (a client's fields)…
      const through = await ctx.api.post('/api/collections/badges/fields:create', { name: 'scopes', type: 'belongsToMany', target: 'roles', through: 'rolesResourcesScopes', foreignKey: 'badgeId', otherKey: 'badgeRole' });
      expect(through.status, through.text).toBe(201);
      // …and a second relation shares attachments.createdById, the key column of the built-in createdBy.
      const shared = await ctx.api.post('/api/collections/users/fields:create', { name: 'uploads', type: 'hasMany', target: 'attachments', foreignKey: 'createdById' });
      expect(shared.status, shared.text).toBe(201);
      expect((await ctx.api.del('/api/collections/badges/fields/scopes')).body).toEqual({ data: 1 });
      expect((await ctx.api.del('/api/collections/users/fields/uploads')).body).toEqual({ data: 1 });
      expect({ scopes: await state(ctx.api, 'rolesResourcesScopes'), attachments: await state(ctx.api, 'attachments') }).toEqual(original);
      // Dropping the collection that made the relation takes it, never the system collection it went through.
      expect((await ctx.api.post('/api/collections/badges/fields:create', { name: 'scopes', type: 'belongsToMany', target: 'roles', through: 'rolesResourcesScopes', foreignKey: 'badgeId', otherKey: 'badgeRole' })).status).toBe(201);
      expect((await ctx.api.del('/api/collections/badges?cascade=true')).body).toEqual({ data: 1 });
      expect(await state(ctx.api, 'rolesResourcesScopes')).toEqual(original.scopes);
    });

    it('a filter form names exactly one collection or field, and a built-in one is refused', async () => {
      const cases: [string, number, string][] = [
        ['/api/collections:destroy?filter[name]=users', 400, 'KEY_REQUIRED'],
        ['/api/collections:destroy?filter[system]=true', 400, 'KEY_REQUIRED'],
        ['/api/collections/users/fields:destroy?filter[name]=password', 400, 'KEY_REQUIRED'],
        ['/api/fields:destroy?filter[collectionName]=users', 400, 'KEY_INVALID'],
        ['/api/fields:destroy?filter[collectionName]=users&filter[name]=password', 409, 'COLLECTION_PROTECTED'],
      ];
      for (const [url, status, code] of cases) expectError(await ctx.api.post(url), status, code);
      expect((await ctx.api.get('/api/collections/users/fields/password')).status).toBe(200);
      // collections:setIndexes replaces the indexes a client declared: the built-in unique columns are field options, untouched.
      const indexed = await ctx.api.post('/api/collections:setIndexes/users', { indexes: [] });
      expect(indexed.status, indexed.text).toBe(200);
      expect((await ctx.api.get('/api/collections/users/fields/email')).body.data).toMatchObject({ unique: true, builtIn: true });
    });

    it('user collections are still dropped by every form', async () => {
      const forms: [string, (name: string) => Promise<Reply>][] = [
        ['DELETE', (name) => ctx.api.del(`/api/collections/${name}`)],
        ['filterByTk', (name) => ctx.api.post(`/api/collections:destroy?filterByTk=${name}`)],
        ['path', (name) => ctx.api.post(`/api/collections:destroy/${name}`)],
      ];
      for (const [form, drop] of forms) {
        const name = `scratch_${form === 'DELETE' ? 'rest' : form === 'path' ? 'path' : 'tk'}`;
        await ctx.api.collection({ name, fields: [{ name: 'note', type: 'string' }] });
        const dropped = await drop(name);
        expect(dropped.body, `${form}: ${dropped.text}`).toEqual({ data: 1 });
        expectError(await ctx.api.get(`/api/collections/${name}`), 404, 'COLLECTION_NOT_FOUND');
      }
    });
  });
}
