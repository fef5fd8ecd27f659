import type { AddressInfo } from 'node:net';
import type { APIClient } from '@nocobase/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { loadSdk, rejection } from '../support/nocobase-sdk.js';
import { TEST_ROOT, testConfig } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

/** The actions used here; the SDK types a resource as an index signature. */
type ActionName = 'create' | 'list' | 'get' | 'update' | 'destroy' | 'count' | 'updateOrCreate';
type Resource = Record<ActionName, (params?: Record<string, unknown>) => Promise<{ status: number; data: any }>>;

interface Post {
  id: number;
  title: string;
  views: number;
  status: string | null;
}

for (const dialect of DIALECTS) {
  describe(`@nocobase/sdk against Corral on ${dialect}`, () => {
    let database: TestDatabase;
    let built: BuiltApp;
    let api: APIClient;

    beforeAll(async () => {
      const { APIClient } = await loadSdk();
      database = await createTestDatabase(dialect);
      built = await buildApp(testConfig(database));
      await built.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = built.app.server.address() as AddressInfo;
      api = new APIClient({ baseURL: `http://127.0.0.1:${port}/api` });
      // The SDK's own sign-in: X-Authenticator: basic, then Authorization: Bearer on every request.
      await api.auth.signIn({ account: TEST_ROOT.email, password: TEST_ROOT.password }, 'basic');
    });

    afterAll(async () => {
      await built?.close();
      await database?.drop();
    });

    const resource = (name: string, of?: unknown): Resource => api.resource(name, of) as unknown as Resource;
    const posts = () => resource('posts');

    it('creates a collection through collections:create', async () => {
      const response = await resource('collections').create({
        values: {
          name: 'posts',
          fields: [
            { name: 'title', type: 'string' },
            { name: 'views', type: 'integer', defaultValue: 0 },
            { name: 'status', type: 'string' },
          ],
        },
      });
      expect(response.status).toBe(201);
      expect(response.data.data).toMatchObject({ name: 'posts' });
      const listed = await resource('collections').list();
      expect(listed.data.data.map((c: { name: string }) => c.name)).toContain('posts');
      const fields = await resource('collections.fields', 'posts').list();
      expect(fields.status).toBe(200);
      expect(fields.data.data.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['id', 'title', 'views', 'status']));
    });

    it('create, bulk create, list with filter/sort/fields/page', async () => {
      const one = await posts().create({ values: { title: 'a', views: 3, status: 'draft' } });
      expect(one.status).toBe(201);
      expect(one.data.data).toMatchObject({ title: 'a', views: 3, status: 'draft' });
      expect(typeof one.data.data.id).toBe('number');
      const bulk = await posts().create({
        values: [
          { title: 'b', views: 10, status: 'published' },
          { title: 'c', views: 7, status: 'published' },
          { title: 'd', views: 20, status: 'draft' },
          { title: 'e', views: 6 },
        ],
      });
      expect(bulk.status).toBe(201);
      expect(bulk.data.data).toHaveLength(4);

      const page1 = await posts().list({
        filter: { views: { $gt: 5 } },
        sort: ['-views'],
        fields: ['id', 'title'],
        page: 1,
        pageSize: 2,
      });
      expect(page1.status).toBe(200);
      expect(page1.data.data.map((p: Post) => p.title)).toEqual(['d', 'b']);
      expect(Object.keys(page1.data.data[0]).sort()).toEqual(['id', 'title']);
      expect(page1.data.meta).toEqual({ count: 4, page: 1, pageSize: 2, totalPage: 2 });

      const page2 = await posts().list({ filter: { views: { $gt: 5 } }, sort: ['-views'], fields: ['id', 'title'], page: 2, pageSize: 2 });
      expect(page2.data.data.map((p: Post) => p.title)).toEqual(['c', 'e']);
      expect(page2.data.meta).toMatchObject({ count: 4, page: 2, pageSize: 2, totalPage: 2 });

      // A comma string and except/appends-free defaults work as the SDK sends them too.
      const all = await posts().list({ sort: 'title', except: ['status'] });
      expect(all.data.data.map((p: Post) => p.title)).toEqual(['a', 'b', 'c', 'd', 'e']);
      expect(all.data.data[0]).not.toHaveProperty('status');
    });

    it('list with $and/$or, filterByTk arrays and strict nulls', async () => {
      const and = await posts().list({
        filter: { $and: [{ status: 'published' }, { views: { $gte: 8 } }] },
        sort: ['id'],
      });
      expect(and.data.data.map((p: Post) => p.title)).toEqual(['b']);

      const or = await posts().list({
        filter: { $or: [{ status: { $eq: null } }, { title: { $in: ['a', 'c'] } }] },
        sort: ['title'],
      });
      expect(or.data.data.map((p: Post) => p.title)).toEqual(['a', 'c', 'e']);

      const ids = (await posts().list({ sort: ['id'] })).data.data.map((p: Post) => p.id) as number[];
      const byKeys = await posts().list({ filterByTk: [ids[0], ids[2]], sort: ['id'] });
      expect(byKeys.data.data.map((p: Post) => p.id)).toEqual([ids[0], ids[2]]);

      // The SDK drops a filter's "*" key; an empty filter object lists everything.
      const star = await posts().list({ filter: { '*': {}, status: 'draft' }, sort: ['title'] });
      expect(star.data.data.map((p: Post) => p.title)).toEqual(['a', 'd']);
    });

    it('create() and update() without values send no body: a row of defaults, then no change (NocoBase create-action.test.ts "create with empty values")', async () => {
      const created = await posts().create();
      expect(created.status).toBe(201);
      expect(created.data.data).toMatchObject({ title: null, views: 0, status: null });
      const id = created.data.data.id as number;
      const updated = await posts().update({ filterByTk: id });
      expect(updated.status).toBe(200);
      expect(updated.data.data).toMatchObject({ id, title: null, views: 0 });
      const upserted = await posts().updateOrCreate({ filterKeys: ['title'] });
      expect(upserted.status).toBe(200);
      expect(upserted.data.data.id).toBe(id);
      expect((await posts().destroy({ filterByTk: id })).status).toBe(200);
    });

    it('get, update, destroy by filterByTk', async () => {
      const created = await posts().create({ values: { title: 'temp', views: 1 } });
      const id = created.data.data.id as number;

      const got = await posts().get({ filterByTk: id });
      expect(got.status).toBe(200);
      expect(got.data.data).toMatchObject({ id, title: 'temp', views: 1 });

      const gotFields = await posts().get({ filterByTk: id, fields: ['title'] });
      expect(gotFields.data.data).toEqual({ title: 'temp' });

      const updated = await posts().update({ filterByTk: id, values: { title: 'changed', views: 2 } });
      expect(updated.status).toBe(200);
      expect(updated.data.data).toMatchObject({ id, title: 'changed', views: 2 });
      expect((await posts().get({ filterByTk: id })).data.data).toMatchObject({ title: 'changed', views: 2 });

      const byFilter = await posts().update({ filter: { title: 'changed' }, values: { status: 'x' } });
      expect(byFilter.status).toBe(200);
      expect(byFilter.data.data).toEqual([expect.objectContaining({ id, status: 'x' })]);

      const destroyed = await posts().destroy({ filterByTk: id });
      expect(destroyed.status).toBe(200);
      expect(destroyed.data).toEqual({ data: 1 });

      const missing = await rejection(posts().get({ filterByTk: id }));
      expect(missing.status).toBe(404);
      expect(missing.data.errors[0].code).toBe('RECORD_NOT_FOUND');
    });

    it('errors arrive as rejected promises with the error envelope', async () => {
      const missing = await rejection(posts().get({ filterByTk: 987654 }));
      expect(missing.status).toBe(404);
      expect(missing.data.errors[0].code).toBe('RECORD_NOT_FOUND');

      const noCollection = await rejection(resource('nothing_here').list());
      expect(noCollection.status).toBe(404);
      expect(noCollection.data.errors[0].code).toBe('COLLECTION_NOT_FOUND');

      const badFilter = await rejection(posts().list({ filter: { nope: 1 } }));
      expect(badFilter.status).toBe(400);
      expect(badFilter.data.errors[0].code).toBe('FILTER_UNKNOWN_FIELD');

      const unknownValue = await rejection(posts().create({ values: { title: 'x', nope: 1 } }));
      expect(unknownValue.status).toBe(400);
      expect(unknownValue.data.errors[0].code).toBe('VALUE_UNKNOWN_FIELD');

      const noKey = await rejection(posts().destroy());
      expect(noKey.status).toBe(400);
      expect(noKey.data.errors[0].code).toBe('KEY_REQUIRED');
    });

    it('count through a GET request', async () => {
      const counted = await api.request({ url: 'posts:count', method: 'get', params: { filter: JSON.stringify({ status: 'published' }) } });
      expect(counted.status).toBe(200);
      expect(counted.data).toEqual({ data: 2 });
    });

    // The SDK's resource proxy sends GET only for `get` and `list` and POST (body `{}`) for every
    // other action, so `count` accepts POST as well as GET (see docs/api.md).
    it('count through the resource proxy (sent as POST)', async () => {
      const counted = await posts().count({ filter: { status: 'published' } });
      expect(counted.status).toBe(200);
      expect(counted.data).toEqual({ data: 2 });
    });

    it('api.request with a url and params', async () => {
      const response = await api.request({ url: 'posts:list', method: 'get', params: { pageSize: 1, sort: ['-views'] } });
      expect(response.data.data.map((p: Post) => p.title)).toEqual(['d']);
      expect(response.data.meta).toMatchObject({ pageSize: 1, page: 1 });
      const info = await api.request({ url: 'app:getInfo' });
      expect(info.data.data).toMatchObject({ dialect });
    });

    // The resource proxy sends POST for every action but get and list.
    it("api.resource('app').getInfo() (sent as POST)", async () => {
      const info = await (api.resource('app') as unknown as { getInfo(): Promise<{ status: number; data: any }> }).getInfo();
      expect(info.status).toBe(200);
      expect(info.data.data).toMatchObject({ name: 'corral', dialect });
    });

    it('collections:list honours filter, sort, fields and paging', async () => {
      for (const name of ['zebras', 'apples', 'mangos']) {
        expect((await resource('collections').create({ values: { name, title: name.toUpperCase(), timestamps: name !== 'apples', fields: [{ name: 'label', type: 'string' }] } })).status).toBe(201);
      }
      const collections = resource('collections');
      const filtered = await collections.list({ filter: { name: { $in: ['zebras', 'apples', 'mangos'] } }, sort: ['-name'], fields: ['name', 'title'] });
      expect(filtered.data.data).toEqual([{ name: 'zebras', title: 'ZEBRAS' }, { name: 'mangos', title: 'MANGOS' }, { name: 'apples', title: 'APPLES' }]);
      expect(filtered.data.meta).toEqual({ count: 3, page: 1, pageSize: 20, totalPage: 1 });
      const paged = await collections.list({ filter: { name: { $in: ['zebras', 'apples', 'mangos'] } }, sort: ['name'], fields: ['name'], page: 2, pageSize: 2 });
      expect(paged.data).toEqual({ data: [{ name: 'zebras' }], meta: { count: 3, page: 2, pageSize: 2, totalPage: 2 } });
      const untimed = await collections.list({ filter: { timestamps: false }, fields: ['name'] });
      expect(untimed.data.data).toEqual([{ name: 'apples' }]);
      const simple = await collections.list({ filter: { name: { $notIn: ['posts', 'users', 'roles', 'apiKeys'] } }, simplePaginate: true, pageSize: 1, sort: ['name'], fields: ['name'] });
      expect(simple.data).toEqual({ data: [{ name: 'apples' }], meta: { page: 1, pageSize: 1, hasNext: true } });
      const unknown = await rejection(collections.list({ filter: { colour: 'red' } }));
      expect(unknown.status).toBe(400);
      expect(unknown.data.errors[0].code).toBe('FILTER_UNKNOWN_FIELD');
      const badFields = await rejection(collections.list({ fields: ['colour'] }));
      expect(badFields.data.errors[0].code).toBe('FIELDS_UNKNOWN');
    });

    it('collections/<c>/fields:list honours filter, sort, fields and paging', async () => {
      const fields = resource('collections.fields', 'posts');
      const strings = await fields.list({ filter: { type: 'string' }, sort: ['-name'], fields: ['name', 'type'] });
      expect(strings.data.data).toEqual([{ name: 'title', type: 'string' }, { name: 'status', type: 'string' }]);
      const required = await fields.list({ filter: { $and: [{ allowNull: false }, { primaryKey: { $ne: true } }] }, fields: ['name'] });
      expect(required.data.data).toEqual([{ name: 'createdAt' }, { name: 'updatedAt' }]);
      const page = await fields.list({ sort: ['name'], fields: ['name'], pageSize: 2, page: 2 });
      expect(page.data.data).toEqual([{ name: 'status' }, { name: 'title' }]);
      expect(page.data.meta).toMatchObject({ count: 6, totalPage: 3 });
    });

    it('signs out and in again through api.auth', async () => {
      const checked = await api.request({ url: 'auth:check' });
      expect(checked.data.data).toMatchObject({ email: TEST_ROOT.email, roles: ['root'] });
      expect(checked.data.data).not.toHaveProperty('password');
      const token = api.auth.token;
      await api.auth.signOut();
      expect(api.auth.token).toBeFalsy();
      const anonymous = await rejection(posts().list());
      expect(anonymous.status).toBe(401);
      expect(anonymous.data.errors[0].code).toBe('AUTH_REQUIRED');
      // The old token is revoked at once.
      const revoked = await rejection(api.request({ url: 'posts:list', headers: { Authorization: `Bearer ${token}` } }));
      expect(revoked.data.errors[0].code).toBe('AUTH_INVALID_TOKEN');
      const signedIn = await api.auth.signIn({ account: 'root', password: TEST_ROOT.password }, 'basic');
      expect(signedIn.data.data.user).toMatchObject({ email: TEST_ROOT.email });
      expect((await posts().list()).status).toBe(200);
    });
  });
}
