import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { DIALECTS } from '../support/test-database.js';
import { apiFor, testConfig, useDialectApp } from '../support/test-app.js';

for (const dialect of DIALECTS) {
  describe(`schema API on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it('creates a collection with resolved options and serves it in every form', async () => {
      const created = await ctx.api.post('/api/collections:create', {
        name: 'books',
        title: 'Books',
        fields: [{ name: 'title', type: 'string', length: 100 }, { name: 'pages', type: 'integer', min: 1 }],
      });
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe('/api/collections/books');
      expect(created.body.data).toMatchObject({ name: 'books', title: 'Books', timestamps: true, autoGenId: true, idType: 'integer', filterTargetKey: 'id' });
      expect(created.body.data.fields.map((f: { name: string }) => f.name)).toEqual(['id', 'createdAt', 'updatedAt', 'title', 'pages']);
      expect(created.body.data.fields[3]).toEqual({ name: 'title', type: 'string', allowNull: true, unique: false, index: false, length: 100, collectionName: 'books', key: 'books.title' });
      for (const url of ['/api/collections:get/books', '/api/collections:get?filterByTk=books', '/api/collections/books']) {
        const reply = await ctx.api.get(url);
        expect(reply.status, url).toBe(200);
        expect(reply.body.data.name).toBe('books');
      }
      const list = await ctx.api.get('/api/collections:list');
      expect(list.body.data.map((c: { name: string }) => c.name)).toContain('books');
      expect(list.body.meta).toMatchObject({ page: 1, pageSize: 20 });
      const updated = await ctx.api.put('/api/collections/books', { title: 'Library' });
      expect(updated.body.data.title).toBe('Library');
      expect((await ctx.api.post('/api/collections:update/books', { idType: 'uuid' })).body.errors[0].code).toBe('SCHEMA_INVALID');
    });

    it('adds, renames, re-indexes and drops fields while keeping rows', async () => {
      await ctx.api.collection({ name: 'notes', fields: [{ name: 'body', type: 'text' }] });
      const first = (await ctx.api.post('/api/notes:create', { body: 'kept' })).body.data.id;

      const added = await ctx.api.post('/api/collections/notes/fields:create', { name: 'rank', type: 'integer', allowNull: false, defaultValue: 3 });
      expect(added.status).toBe(201);
      expect(added.headers.location).toBe('/api/collections/notes/fields/rank');
      expect((await ctx.api.get(`/api/notes/${first}`)).body.data).toMatchObject({ body: 'kept', rank: 3 });

      const fields = await ctx.api.get('/api/collections/notes/fields:list');
      expect(fields.body.data.map((f: { name: string }) => f.name)).toEqual(['id', 'createdAt', 'updatedAt', 'body', 'rank']);
      expect((await ctx.api.get('/api/collections/notes/fields:get/rank')).body.data).toMatchObject({ type: 'integer', allowNull: false, defaultValue: 3 });
      expect((await ctx.api.get('/api/collections/notes/fields/rank')).body.data.name).toBe('rank');

      const renamed = await ctx.api.post('/api/collections/notes/fields:update/rank', { name: 'priority', max: 5 });
      expect(renamed.status, renamed.text).toBe(200);
      expect((await ctx.api.get(`/api/notes/${first}`)).body.data).toMatchObject({ priority: 3 });
      expect((await ctx.api.post('/api/notes:create', { body: 'x', priority: 6 })).body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'priority' });
      expect((await ctx.api.post('/api/notes:create', { body: 'x', rank: 1 })).body.errors[0].code).toBe('VALUE_UNKNOWN_FIELD');

      expect((await ctx.api.put('/api/collections/notes/fields/priority', { unique: true })).status).toBe(200);
      expect((await ctx.api.post('/api/notes:create', { body: 'y', priority: 3 })).body.errors[0]).toMatchObject({ code: 'UNIQUE_VIOLATION', field: 'priority' });
      expect((await ctx.api.put('/api/collections/notes/fields/priority', { unique: false, index: true })).status).toBe(200);
      expect((await ctx.api.post('/api/notes:create', { body: 'y', priority: 3 })).status).toBe(201);

      expect((await ctx.api.del('/api/collections/notes/fields/priority')).body).toEqual({ data: 1 });
      expect(Object.keys((await ctx.api.get(`/api/notes/${first}`)).body.data)).not.toContain('priority');
      expect((await ctx.api.del('/api/collections/notes/fields/id')).body.errors[0].code).toBe('SCHEMA_INVALID');
      expect((await ctx.api.del('/api/collections/notes/fields/nope')).body.errors[0].code).toBe('FIELD_NOT_FOUND');
      expect((await ctx.api.get('/api/collections/nope/fields:list')).body.errors[0].code).toBe('COLLECTION_NOT_FOUND');
    });

    it('drops a collection with its table, and the name can be used again', async () => {
      await ctx.api.collection({ name: 'temp', fields: [{ name: 'a', type: 'string' }] });
      await ctx.api.post('/api/temp:create', { a: 'x' });
      expect((await ctx.api.post('/api/collections:destroy/temp')).body).toEqual({ data: 1 });
      expect((await ctx.api.get('/api/temp:list')).body.errors[0].code).toBe('COLLECTION_NOT_FOUND');
      await ctx.api.collection({ name: 'temp', fields: [{ name: 'b', type: 'integer' }] });
      expect((await ctx.api.get('/api/temp:list')).body.meta.count).toBe(0);
      expect((await ctx.api.del('/api/collections/temp')).status).toBe(200);
      expect((await ctx.api.del('/api/collections/temp')).body.errors[0].code).toBe('COLLECTION_NOT_FOUND');
    });

    it('supports uuid, nanoid and bigInt ids, custom primary keys and filterTargetKey', async () => {
      for (const idType of ['uuid', 'nanoid', 'bigInt'] as const) {
        const name = `ids_${idType}`;
        await ctx.api.collection({ name, idType, fields: [{ name: 'label', type: 'string' }] });
        const created = (await ctx.api.post(`/api/${name}:create`, { label: idType })).body.data;
        if (idType === 'uuid') expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
        if (idType === 'nanoid') expect(created.id).toMatch(/^[A-Za-z0-9_-]{21}$/);
        if (idType === 'bigInt') expect(created.id).toBe(1);
        expect((await ctx.api.get(`/api/${name}/${encodeURIComponent(created.id)}`)).body.data.label).toBe(idType);
        expect((await ctx.api.put(`/api/${name}/${encodeURIComponent(created.id)}`, { label: 'changed' })).body.data.label).toBe('changed');
      }
      await ctx.api.collection({
        name: 'countries',
        autoGenId: false,
        timestamps: false,
        fields: [{ name: 'code', type: 'string', primaryKey: true, length: 8 }, { name: 'label', type: 'string' }],
      });
      const country = await ctx.api.post('/api/countries:create', { code: 'a/b:c', label: 'odd' });
      expect(country.body.data).toEqual({ code: 'a/b:c', label: 'odd' });
      expect(country.headers.location).toBe('/api/countries/a%2Fb%3Ac');
      expect((await ctx.api.get('/api/countries/a%2Fb%3Ac')).body.data.label).toBe('odd');
      expect((await ctx.api.post('/api/countries:create', { label: 'no key' })).body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'code' });

      await ctx.api.collection({ name: 'articles', filterTargetKey: 'slug', fields: [{ name: 'slug', type: 'string', unique: true, allowNull: false }] });
      await ctx.api.post('/api/articles:create', { slug: 'hello-world' });
      expect((await ctx.api.get('/api/articles:get/hello-world')).body.data.slug).toBe('hello-world');
      expect((await ctx.api.del('/api/articles/hello-world')).body).toEqual({ data: 1 });
      expect((await ctx.api.post('/api/collections:create', { name: 'bad', filterTargetKey: 'nope' })).body.errors[0].code).toBe('SCHEMA_INVALID');
    });

    it('keeps collections, fields and rows across a restart on the same database', async () => {
      await ctx.api.collection({ name: 'durable', fields: [{ name: 'v', type: 'integer' }] });
      await ctx.api.post('/api/collections/durable/fields:create', { name: 'w', type: 'string' });
      await ctx.api.post('/api/durable:create', { v: 1, w: 'a' });
      const second = await buildApp(testConfig(ctx.database));
      try {
        const api = apiFor(second);
        const rows = await api.get('/api/durable:list');
        expect(rows.body.data[0]).toMatchObject({ v: 1, w: 'a' });
        expect((await api.get('/api/collections/durable/fields:list')).body.data.map((f: { name: string }) => f.name)).toContain('w');
      } finally {
        await second.close();
      }
    });

    it('sees a schema change made by another node after its poll', async () => {
      const other = await buildApp(testConfig(ctx.database, { schemaPollMs: 50 }));
      try {
        await ctx.api.collection({ name: 'shared', fields: [{ name: 'v', type: 'integer' }] });
        const api = apiFor(other);
        const started = Date.now();
        let status = 0;
        // Polled every 50 ms, seen within a few polls; the bound is generous for a loaded machine.
        while (Date.now() - started < 10_000) {
          status = (await api.get('/api/shared:list')).status;
          if (status === 200) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // A 200 is the other node having seen the change (the loop's bound only stops a hang).
        expect(status).toBe(200);
      } finally {
        await other.close();
      }
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`schema details on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it('keeps description on collections and fields', async () => {
      await ctx.api.collection({ name: 'described', description: 'what it holds', fields: [{ name: 'a', type: 'string', description: 'the a' }] });
      const got = (await ctx.api.get('/api/collections/described')).body.data;
      expect(got.description).toBe('what it holds');
      expect(got.fields.find((f: { name: string }) => f.name === 'a').description).toBe('the a');
      expect((await ctx.api.put('/api/collections/described', { description: 'changed' })).body.data.description).toBe('changed');
    });

    it('moves past an explicit id, so the next automatic id does not collide', async () => {
      await ctx.api.collection({ name: 'numbered', fields: [{ name: 'a', type: 'string' }] });
      expect((await ctx.api.post('/api/numbered:create', { id: 5, a: 'x' })).body.data.id).toBe(5);
      const next = await ctx.api.post('/api/numbered:create', { a: 'y' });
      expect(next.status, next.text).toBe(201);
      expect(next.body.data.id).toBe(6);
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`field changes that keep every value on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it('widens types and sizes in place, keeping rows, indexes and validation', async () => {
      const api = ctx.api;
      await api.collection({
        name: 'widen',
        fields: [
          { name: 's', type: 'string', length: 5, unique: true },
          { name: 'n', type: 'integer', allowNull: false, defaultValue: 0 },
          { name: 'd', type: 'decimal', precision: 6, scale: 2 },
          { name: 'opt', type: 'string' },
        ],
      });
      await api.post('/api/widen:create', { s: 'abcde', n: 7, d: '1234.56', opt: 'x' });
      expect((await api.post('/api/widen:create', { s: 'abcdefgh' })).body.errors[0].code).toBe('VALIDATION_FAILED');

      const changes: [string, Record<string, unknown>][] = [
        ['s', { length: 20 }],
        ['n', { type: 'bigInt' }],
        ['n', { allowNull: true }],
        ['d', { precision: 10, scale: 3 }],
      ];
      for (const [field, patch] of changes) {
        const reply = await api.put(`/api/collections/widen/fields/${field}`, patch);
        expect(reply.status, `${field} ${JSON.stringify(patch)}: ${reply.text}`).toBe(200);
      }
      const big = await api.post('/api/widen:create', { s: 'abcdefgh', n: '9007199254740993', d: '1234567.891' });
      expect(big.status, big.text).toBe(201);
      expect(big.body.data).toMatchObject({ s: 'abcdefgh', n: '9007199254740993', d: '1234567.891' });
      const rows = (await api.get('/api/widen:list?sort=id&fields=s,n,d')).body.data;
      expect(rows[0]).toEqual({ s: 'abcde', n: 7, d: '1234.560' });
      expect((await api.post('/api/widen:create', { s: 'abcde' })).body.errors[0]).toMatchObject({ code: 'UNIQUE_VIOLATION', field: 's' });
      expect((await api.post('/api/widen:create', { s: 'nulls ok', n: null })).status).toBe(201);

      // Making a field required works only when no stored row holds NULL.
      expect((await api.put('/api/collections/widen/fields/opt', { allowNull: false })).body.errors[0].code).toBe('SCHEMA_CHANGE_UNSAFE');
      await api.post('/api/widen:update?filter={"opt":null}', { opt: 'filled' });
      expect((await api.put('/api/collections/widen/fields/opt', { allowNull: false })).status).toBe(200);
      expect((await api.post('/api/widen:create', { s: 'z', opt: null })).body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'opt' });
    });

    it('refuses changes that could lose values with 409 SCHEMA_CHANGE_UNSAFE', async () => {
      const refused: [string, Record<string, unknown>][] = [
        ['s', { length: 3 }],
        ['s', { type: 'integer' }],
        ['n', { type: 'integer' }],
        ['d', { scale: 1 }],
        ['d', { precision: 5 }],
        ['s', { primaryKey: true }],
      ];
      for (const [field, patch] of refused) {
        const reply = await ctx.api.put(`/api/collections/widen/fields/${field}`, patch);
        expect(reply.status, `${field} ${JSON.stringify(patch)}`).toBe(409);
        expect(reply.body.errors[0].code).toBe('SCHEMA_CHANGE_UNSAFE');
      }
      expect((await ctx.api.get('/api/widen:count')).body.data).toBe(3);
    });
  });
}
