import type { AddressInfo } from 'node:net';
import type { APIClient } from '@nocobase/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { defineBlog } from '../support/blog-schema.js';
import { loadSdk, rejection } from '../support/nocobase-sdk.js';
import { apiFor, TEST_ROOT, testConfig } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

type ActionName = 'create' | 'list' | 'get' | 'update' | 'destroy' | 'count' | 'add' | 'set' | 'remove' | 'toggle';
type Resource = Record<ActionName, (params?: Record<string, unknown>) => Promise<{ status: number; data: any }>>;

/** The NocoBase SDK's association resources (`api.resource('posts.comments', 1)`), unchanged, on a real socket. */
for (const dialect of DIALECTS) {
  describe(`@nocobase/sdk association resources on ${dialect}`, () => {
    let database: TestDatabase;
    let built: BuiltApp;
    let api: APIClient;
    const resource = (name: string, of?: unknown) => api.resource(name, of) as unknown as Resource;

    beforeAll(async () => {
      const { APIClient } = await loadSdk();
      database = await createTestDatabase(dialect);
      built = await buildApp(testConfig(database));
      await defineBlog(apiFor(built));
      await built.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = built.app.server.address() as AddressInfo;
      api = new APIClient({ baseURL: `http://127.0.0.1:${port}/api` });
      // The SDK's own sign-in: X-Authenticator: basic, then Authorization: Bearer on every request.
      await api.auth.signIn({ account: TEST_ROOT.email, password: TEST_ROOT.password }, 'basic');
      await resource('posts').create({ values: [{ title: 'one' }, { title: 'two' }] });
      await resource('tags').create({ values: [{ label: 'x' }, { label: 'y' }] });
    });

    afterAll(async () => {
      await built?.close();
      await database?.drop();
    });

    it('creates and lists through a hasMany association resource', async () => {
      const comments = resource('posts.comments', 1);
      const created = await comments.create({ values: { body: 'hello' } });
      expect(created.status).toBe(201);
      expect(created.data.data).toMatchObject({ body: 'hello', postId: 1 });
      await comments.create({ values: { body: 'again' } });
      const listed = await comments.list({ sort: ['-id'], fields: ['id', 'body'] });
      expect(listed.data.data.map((c: { body: string }) => c.body)).toEqual(['again', 'hello']);
      expect(listed.data.meta.count).toBe(2);
      expect((await resource('posts.comments', 2).list()).data.data).toEqual([]);
      const got = await comments.get({ filterByTk: created.data.data.id });
      expect(got.data.data.body).toBe('hello');
      const updated = await comments.update({ filterByTk: created.data.data.id, values: { body: 'changed' } });
      expect(updated.data.data.body).toBe('changed');
      const other = await rejection(resource('posts.comments', 2).get({ filterByTk: created.data.data.id }));
      expect(other.status).toBe(404);
      const destroyed = await comments.destroy({ filterByTk: created.data.data.id });
      expect(destroyed.data).toEqual({ data: 1 });
    });

    it('links through a belongsToMany association resource with add, set, remove and toggle', async () => {
      const tags = resource('posts.tags', 1);
      expect((await tags.add({ values: [1, 2] })).data).toEqual({ data: null });
      expect((await tags.list()).data.data.map((t: { label: string }) => t.label)).toEqual(['x', 'y']);
      await tags.remove({ values: [1] });
      await tags.toggle({ values: [1, 2] });
      expect((await tags.list()).data.data.map((t: { label: string }) => t.label)).toEqual(['x']);
      await tags.set({ values: [2] });
      expect((await tags.count()).data).toEqual({ data: 1 });
    });

    it('reads and sets a to-one association, and appends on the parent', async () => {
      await resource('authors').create({ values: { name: 'ann' } });
      const author = resource('posts.author', 2);
      // axios cannot send a bare number as a body; the key travels as filterByTk.
      await author.set({ filterByTk: 1 });
      expect((await author.get()).data.data.name).toBe('ann');
      const post = await resource('posts').get({ filterByTk: 2, appends: ['author', 'comments'] });
      expect(post.data.data).toMatchObject({ title: 'two', author: { name: 'ann' }, comments: [] });
      const filtered = await resource('posts').list({ filter: { 'author.name': 'ann' }, fields: ['title'] });
      expect(filtered.data.data).toEqual([{ title: 'two' }]);
    });
  });
}
