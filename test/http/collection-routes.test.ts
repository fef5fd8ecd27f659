import { beforeEach, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';

/**
 * Every row of seed section 4.1, in each style and key form. Each row names the request and
 * what must be true of the answer and of the stored rows afterwards.
 */
interface RouteCase {
  operation: 'create' | 'list' | 'get' | 'update' | 'destroy';
  style: string;
  method: string;
  url: (id: number) => string;
  body?: Record<string, unknown>;
  status: number;
}

const ROUTES: RouteCase[] = [
  { operation: 'create', style: 'action', method: 'POST', url: () => '/api/posts:create', body: { title: 'new' }, status: 201 },
  { operation: 'create', style: 'REST', method: 'POST', url: () => '/api/posts', body: { title: 'new' }, status: 201 },
  { operation: 'list', style: 'action', method: 'GET', url: () => '/api/posts:list', status: 200 },
  { operation: 'list', style: 'REST', method: 'GET', url: () => '/api/posts', status: 200 },
  { operation: 'get', style: 'action, query form', method: 'GET', url: (id) => `/api/posts:get?filterByTk=${id}`, status: 200 },
  { operation: 'get', style: 'action, path form', method: 'GET', url: (id) => `/api/posts:get/${id}`, status: 200 },
  { operation: 'get', style: 'REST', method: 'GET', url: (id) => `/api/posts/${id}`, status: 200 },
  { operation: 'update', style: 'action, query form', method: 'POST', url: (id) => `/api/posts:update?filterByTk=${id}`, body: { title: 'changed' }, status: 200 },
  { operation: 'update', style: 'action, path form', method: 'POST', url: (id) => `/api/posts:update/${id}`, body: { title: 'changed' }, status: 200 },
  { operation: 'update', style: 'REST', method: 'PUT', url: (id) => `/api/posts/${id}`, body: { title: 'changed' }, status: 200 },
  { operation: 'destroy', style: 'action, query form', method: 'POST', url: (id) => `/api/posts:destroy?filterByTk=${id}`, status: 200 },
  { operation: 'destroy', style: 'action, path form', method: 'POST', url: (id) => `/api/posts:destroy/${id}`, status: 200 },
  { operation: 'destroy', style: 'REST', method: 'DELETE', url: (id) => `/api/posts/${id}`, status: 200 },
];

for (const dialect of DIALECTS) {
  describe(`collection routes of seed 4.1 on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let api: TestApi;
    let first: number;
    let second: number;

    beforeEach(async () => {
      api = ctx.api;
      if (ctx.built.schema.snapshot.get('posts') === undefined) {
        await api.collection({ name: 'posts', fields: [{ name: 'title', type: 'string' }, { name: 'views', type: 'integer', defaultValue: 0 }] });
      }
      await api.post('/api/posts:destroy', undefined).then(() => undefined);
      const all = await api.get('/api/posts:list?paginate=false');
      for (const item of all.body.data) await api.del(`/api/posts/${item.id}`);
      first = (await api.post('/api/posts:create', { title: 'first' })).body.data.id;
      second = (await api.post('/api/posts:create', { title: 'second' })).body.data.id;
    });

    for (const route of ROUTES) {
      it(`${route.operation} (${route.style}): ${route.method} ${route.url(1)}`, async () => {
        const reply = await api.request(route.method, route.url(first), route.body);
        expect(reply.status, reply.text).toBe(route.status);
        const list = (await api.get('/api/posts:list?sort=id')).body.data as { id: number; title: string }[];
        switch (route.operation) {
          case 'create':
            expect(reply.body.data).toMatchObject({ title: 'new', views: 0 });
            expect(reply.headers.location).toBe(`/api/posts/${reply.body.data.id}`);
            expect(list.map((item) => item.title)).toEqual(['first', 'second', 'new']);
            break;
          case 'list':
            expect(reply.body.data.map((item: { title: string }) => item.title)).toEqual(['first', 'second']);
            expect(reply.body.meta).toEqual({ count: 2, page: 1, pageSize: 20, totalPage: 1 });
            break;
          case 'get':
            expect(reply.body.data).toMatchObject({ id: first, title: 'first', views: 0 });
            expect(Object.keys(reply.body.data).sort()).toEqual(['createdAt', 'id', 'title', 'updatedAt', 'views']);
            break;
          case 'update':
            expect(reply.body.data).toMatchObject({ id: first, title: 'changed' });
            expect(list.map((item) => item.title)).toEqual(['changed', 'second']);
            break;
          case 'destroy':
            expect(reply.body).toEqual({ data: 1 });
            expect(list.map((item) => item.id)).toEqual([second]);
            break;
        }
      });
    }

    it('answers 404 RECORD_NOT_FOUND for a missing key on get, update and destroy in every form', async () => {
      for (const route of ROUTES.filter((r) => r.operation === 'get' || r.operation === 'update' || r.operation === 'destroy')) {
        const reply = await api.request(route.method, route.url(999999), route.body);
        expect(reply.status, `${route.method} ${route.url(999999)}`).toBe(404);
        expect(reply.body.errors[0].code).toBe('RECORD_NOT_FOUND');
      }
      expect((await api.get('/api/posts:list')).body.meta.count).toBe(2);
    });

    it('HEAD answers like GET without a body', async () => {
      const reply = await api.request('HEAD', `/api/posts/${first}`);
      expect(reply.status).toBe(200);
      expect(reply.text).toBe('');
    });

    it('updates and destroys several rows by a key array and by filter, never all rows by accident', async () => {
      const third = (await api.post('/api/posts:create', { title: 'third' })).body.data.id;
      const updated = await api.post(`/api/posts:update?filterByTk[]=${first}&filterByTk[]=${second}`, { views: 7 });
      expect(updated.status).toBe(200);
      expect(updated.body.data.map((item: { views: number }) => item.views)).toEqual([7, 7]);
      const byFilter = await api.post(`/api/posts:update?filter=${encodeURIComponent(JSON.stringify({ views: 7 }))}`, { views: 8 });
      expect(byFilter.body.data).toHaveLength(2);
      expect((await api.post('/api/posts:update', { views: 1 })).body.errors[0].code).toBe('KEY_REQUIRED');
      expect((await api.post('/api/posts:update?filter={}', { views: 1 })).body.errors[0].code).toBe('KEY_REQUIRED');
      expect((await api.post('/api/posts:destroy?filter={}')).body.errors[0].code).toBe('KEY_REQUIRED');
      expect((await api.del('/api/posts')).body.errors[0].code).toBe('KEY_REQUIRED');
      const destroyed = await api.post(`/api/posts:destroy?filterByTk=${JSON.stringify([first, third])}`);
      expect(destroyed.body).toEqual({ data: 2 });
      const rest = await api.get('/api/posts:list');
      expect(rest.body.data.map((item: { id: number }) => item.id)).toEqual([second]);
      expect(rest.body.data[0].views).toBe(8);
    });
  });
}
