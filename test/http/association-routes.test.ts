import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';

/**
 * Every row of seed section 4.2, in each style and key form, on a hasMany (posts.comments)
 * and a belongsToMany (posts.tags) association. Each row names the request and what must be
 * true of the answer and of the stored rows afterwards.
 */
interface RouteCase {
  operation: 'create' | 'list' | 'get' | 'update' | 'destroy';
  style: string;
  method: string;
  url: (post: number | string, item: number | string, association: string) => string;
  body?: Record<string, unknown>;
  status: number;
}

const ROUTES: RouteCase[] = [
  { operation: 'create', style: 'action', method: 'POST', url: (p, _i, a) => `/api/posts/${p}/${a}:create`, body: { name: 'new' }, status: 201 },
  { operation: 'create', style: 'REST', method: 'POST', url: (p, _i, a) => `/api/posts/${p}/${a}`, body: { name: 'new' }, status: 201 },
  { operation: 'list', style: 'action', method: 'GET', url: (p, _i, a) => `/api/posts/${p}/${a}:list`, status: 200 },
  { operation: 'list', style: 'REST', method: 'GET', url: (p, _i, a) => `/api/posts/${p}/${a}`, status: 200 },
  { operation: 'get', style: 'action, query form', method: 'GET', url: (p, i, a) => `/api/posts/${p}/${a}:get?filterByTk=${i}`, status: 200 },
  { operation: 'get', style: 'action, path form', method: 'GET', url: (p, i, a) => `/api/posts/${p}/${a}:get/${i}`, status: 200 },
  { operation: 'get', style: 'REST (seed: action-style path)', method: 'GET', url: (p, i, a) => `/api/posts/${p}/${a}:get/${i}`, status: 200 },
  { operation: 'get', style: 'plain REST', method: 'GET', url: (p, i, a) => `/api/posts/${p}/${a}/${i}`, status: 200 },
  { operation: 'update', style: 'action, query form', method: 'POST', url: (p, i, a) => `/api/posts/${p}/${a}:update?filterByTk=${i}`, body: { name: 'changed' }, status: 200 },
  { operation: 'update', style: 'action, path form', method: 'POST', url: (p, i, a) => `/api/posts/${p}/${a}:update/${i}`, body: { name: 'changed' }, status: 200 },
  { operation: 'update', style: 'REST (seed: PUT on action-style path)', method: 'PUT', url: (p, i, a) => `/api/posts/${p}/${a}:update/${i}`, body: { name: 'changed' }, status: 200 },
  { operation: 'update', style: 'plain REST', method: 'PUT', url: (p, i, a) => `/api/posts/${p}/${a}/${i}`, body: { name: 'changed' }, status: 200 },
  { operation: 'destroy', style: 'action, query form', method: 'POST', url: (p, i, a) => `/api/posts/${p}/${a}:destroy?filterByTk=${i}`, status: 200 },
  { operation: 'destroy', style: 'action, path form', method: 'POST', url: (p, i, a) => `/api/posts/${p}/${a}:destroy/${i}`, status: 200 },
  { operation: 'destroy', style: 'REST', method: 'DELETE', url: (p, i, a) => `/api/posts/${p}/${a}/${i}`, status: 200 },
];

const ITEM_ROUTES = ROUTES.filter((route) => route.operation === 'get' || route.operation === 'update' || route.operation === 'destroy');

interface Item {
  id: number;
  name: string;
  postId?: number | null;
}

/** The two association kinds under test: how to put a target inside a post's association. */
interface AssociationCase {
  association: 'comments' | 'tags';
  /** Creates a target row named `name` linked to `post`; returns its id. */
  seed(api: TestApi, post: number, name: string): Promise<number>;
  /** Ids of the posts a target is linked to, read from the stored rows. */
  linkedPosts(api: TestApi, item: number): Promise<number[]>;
}

const ASSOCIATIONS: AssociationCase[] = [
  {
    association: 'comments',
    seed: async (api, post, name) => {
      const reply = await api.post('/api/comments:create', { name, postId: post });
      expect(reply.status, reply.text).toBe(201);
      return reply.body.data.id;
    },
    linkedPosts: async (api, item) => {
      const reply = await api.get(`/api/comments/${item}`);
      expect(reply.status, reply.text).toBe(200);
      return reply.body.data.postId === null ? [] : [reply.body.data.postId];
    },
  },
  {
    association: 'tags',
    seed: async (api, post, name) => {
      const tag = await api.post('/api/tags:create', { name });
      expect(tag.status, tag.text).toBe(201);
      const link = await api.post('/api/posts_tags:create', { postId: post, tagId: tag.body.data.id });
      expect(link.status, link.text).toBe(201);
      return tag.body.data.id;
    },
    linkedPosts: async (api, item) => {
      const reply = await api.get(`/api/posts_tags:list?paginate=false&sort=postId&filter=${encodeURIComponent(JSON.stringify({ tagId: item }))}`);
      expect(reply.status, reply.text).toBe(200);
      return reply.body.data.map((row: { postId: number }) => row.postId);
    },
  },
];

for (const dialect of DIALECTS) {
  describe(`association routes of seed 4.2 on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    beforeAll(async () => {
      await ctx.api.collection({ name: 'comments', fields: [{ name: 'name', type: 'string' }] });
      await ctx.api.collection({ name: 'tags', fields: [{ name: 'name', type: 'string' }] });
      await ctx.api.collection({
        name: 'posts',
        fields: [
          { name: 'title', type: 'string' },
          { name: 'comments', type: 'hasMany' },
          { name: 'tags', type: 'belongsToMany' },
        ],
      });
    });

    for (const kind of ASSOCIATIONS) {
      const a = kind.association;
      describe(`${a} (${a === 'comments' ? 'hasMany' : 'belongsToMany'})`, () => {
        let api: TestApi;
        let post: number;
        let otherPost: number;
        let first: number;
        let second: number;
        let foreign: number;

        /** Names inside the association of `post`, by id. */
        const names = async (source = post) => {
          const reply = await api.get(`/api/posts/${source}/${a}:list?sort=id&paginate=false`);
          expect(reply.status, reply.text).toBe(200);
          return (reply.body.data as Item[]).map((item) => item.name);
        };

        beforeEach(async () => {
          api = ctx.api;
          post = (await api.post('/api/posts:create', { title: 'one' })).body.data.id;
          otherPost = (await api.post('/api/posts:create', { title: 'two' })).body.data.id;
          first = await kind.seed(api, post, 'first');
          second = await kind.seed(api, post, 'second');
          foreign = await kind.seed(api, otherPost, 'foreign');
        });

        for (const route of ROUTES) {
          it(`${route.operation} (${route.style}): ${route.method} ${route.url(1, 2, a)}`, async () => {
            const reply = await api.request(route.method, route.url(post, first, a), route.body);
            expect(reply.status, reply.text).toBe(route.status);
            switch (route.operation) {
              case 'create': {
                const created = reply.body.data as Item;
                expect(created).toMatchObject({ name: 'new' });
                if (a === 'comments') expect(created.postId).toBe(post);
                expect(reply.headers.location).toBe(`/api/${a}/${created.id}`);
                expect(await names()).toEqual(['first', 'second', 'new']);
                expect(await kind.linkedPosts(api, created.id)).toEqual([post]);
                expect(await names(otherPost)).toEqual(['foreign']);
                break;
              }
              case 'list':
                expect((reply.body.data as Item[]).map((item) => item.name)).toEqual(['first', 'second']);
                expect(reply.body.meta).toEqual({ count: 2, page: 1, pageSize: 20, totalPage: 1 });
                break;
              case 'get':
                expect(reply.body.data).toMatchObject({ id: first, name: 'first' });
                expect(Object.keys(reply.body.data).sort()).toEqual(
                  a === 'comments' ? ['createdAt', 'id', 'name', 'postId', 'updatedAt'] : ['createdAt', 'id', 'name', 'updatedAt'],
                );
                break;
              case 'update':
                expect(reply.body.data).toMatchObject({ id: first, name: 'changed' });
                expect(await names()).toEqual(['changed', 'second']);
                expect((await api.get(`/api/${a}/${first}`)).body.data.name).toBe('changed');
                expect(await kind.linkedPosts(api, first)).toEqual([post]);
                break;
              case 'destroy':
                expect(reply.body).toEqual({ data: 1 });
                expect(await names()).toEqual(['second']);
                // destroy deletes the target row itself, not only the link
                expect((await api.get(`/api/${a}/${first}`)).status).toBe(404);
                if (a === 'tags') expect(await kind.linkedPosts(api, first)).toEqual([]);
                expect(await names(otherPost)).toEqual(['foreign']);
                break;
            }
          });
        }

        it('HEAD on an association item answers like GET without a body', async () => {
          const reply = await api.request('HEAD', `/api/posts/${post}/${a}/${first}`);
          expect(reply.status).toBe(200);
          expect(reply.text).toBe('');
        });

        it('an item of another source is 404 for get, update and destroy in every form, and stays unchanged', async () => {
          for (const route of ITEM_ROUTES) {
            const reply = await api.request(route.method, route.url(post, foreign, a), route.body);
            expect(reply.status, `${route.method} ${route.url(post, foreign, a)}: ${reply.text}`).toBe(404);
            expect(reply.body.errors[0].code).toBe('RECORD_NOT_FOUND');
          }
          const stored = await api.get(`/api/${a}/${foreign}`);
          expect(stored.status).toBe(200);
          expect(stored.body.data.name).toBe('foreign');
          expect(await kind.linkedPosts(api, foreign)).toEqual([otherPost]);
          expect(await names()).toEqual(['first', 'second']);
          expect(await names(otherPost)).toEqual(['foreign']);
        });

        it('a key that does not exist is 404 for get, update and destroy in every form', async () => {
          for (const route of ITEM_ROUTES) {
            const reply = await api.request(route.method, route.url(post, 999999, a), route.body);
            expect(reply.status, `${route.method} ${route.url(post, 999999, a)}: ${reply.text}`).toBe(404);
            expect(reply.body.errors[0].code).toBe('RECORD_NOT_FOUND');
          }
          expect(await names()).toEqual(['first', 'second']);
        });

        it('a missing source item is 404 RECORD_NOT_FOUND in every route, and nothing is created', async () => {
          const before = (await api.get(`/api/${a}:list`)).body.meta.count;
          for (const route of ROUTES) {
            const reply = await api.request(route.method, route.url(999999, first, a), route.body);
            expect(reply.status, `${route.method} ${route.url(999999, first, a)}: ${reply.text}`).toBe(404);
            expect(reply.body.errors[0].code).toBe('RECORD_NOT_FOUND');
          }
          expect((await api.get(`/api/${a}:list`)).body.meta.count).toBe(before);
          expect(await names()).toEqual(['first', 'second']);
          expect((await api.get(`/api/${a}/${first}`)).body.data.name).toBe('first');
        });

        it('update and destroy of an association item need a key', async () => {
          const update = await api.post(`/api/posts/${post}/${a}:update`, { name: 'all' });
          expect(update.status, update.text).toBe(400);
          expect(update.body.errors[0].code).toBe('KEY_REQUIRED');
          const destroy = await api.post(`/api/posts/${post}/${a}:destroy`);
          expect(destroy.status, destroy.text).toBe(400);
          expect(destroy.body.errors[0].code).toBe('KEY_REQUIRED');
          expect(await names()).toEqual(['first', 'second']);
        });

        it('path key and filterByTk must agree', async () => {
          const reply = await api.get(`/api/posts/${post}/${a}:get/${first}?filterByTk=${second}`);
          expect(reply.status).toBe(400);
          expect(reply.body.errors[0].code).toBe('KEY_CONFLICT');
        });

        it('count reads only the association', async () => {
          const reply = await api.get(`/api/posts/${post}/${a}:count`);
          expect(reply.status, reply.text).toBe(200);
          expect(reply.body).toEqual({ data: 2 });
        });
      });
    }

    it('an unknown association is 404 ASSOCIATION_NOT_FOUND in every route', async () => {
      const api = ctx.api;
      const post = (await api.post('/api/posts:create', { title: 'p' })).body.data.id;
      for (const route of ROUTES) {
        const reply = await api.request(route.method, route.url(post, 1, 'nope'), route.body);
        expect(reply.status, `${route.method} ${route.url(post, 1, 'nope')}: ${reply.text}`).toBe(404);
        expect(reply.body.errors[0].code).toBe('ASSOCIATION_NOT_FOUND');
      }
      // a plain field is not an association either
      const field = await api.get(`/api/posts/${post}/title:list`);
      expect(field.status).toBe(404);
      expect(field.body.errors[0].code).toBe('ASSOCIATION_NOT_FOUND');
    });

    it('an unknown action on an association is 404 ACTION_NOT_FOUND', async () => {
      const api = ctx.api;
      const post = (await api.post('/api/posts:create', { title: 'p' })).body.data.id;
      const reply = await api.post(`/api/posts/${post}/comments:explode`);
      expect(reply.status).toBe(404);
      expect(reply.body.errors[0].code).toBe('ACTION_NOT_FOUND');
    });
  });
}
