import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

/**
 * Every error this service can produce so far: request → status and code. After each case
 * the stored rows must be exactly as before (nothing half-written).
 */
interface ErrorCase {
  name: string;
  method: string;
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
  code: string;
  field?: string;
  allow?: string;
}

const big = (n: number) => 'x'.repeat(n);
const f = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));

const CASES: ErrorCase[] = [
  { name: 'path outside the templates', method: 'GET', url: '/api/posts/1/tags/2/more', status: 404, code: 'ROUTE_NOT_FOUND' },
  { name: 'malformed action segment', method: 'GET', url: '/api/posts:li-st', status: 404, code: 'ROUTE_NOT_FOUND' },
  { name: 'bare prefix', method: 'GET', url: '/api', status: 404, code: 'ROUTE_NOT_FOUND' },
  { name: 'outside the prefix', method: 'GET', url: '/nothing', status: 404, code: 'ROUTE_NOT_FOUND' },
  { name: 'unknown collection', method: 'GET', url: '/api/nope:list', status: 404, code: 'COLLECTION_NOT_FOUND' },
  { name: 'unknown collection, REST', method: 'GET', url: '/api/nope/1', status: 404, code: 'COLLECTION_NOT_FOUND' },
  { name: 'unknown collection before a REST method check', method: 'PUT', url: '/api/nope', body: {}, status: 404, code: 'COLLECTION_NOT_FOUND' },
  { name: 'unknown association', method: 'GET', url: '/api/posts/1/nope:list', status: 404, code: 'ASSOCIATION_NOT_FOUND' },
  { name: 'unknown action', method: 'GET', url: '/api/posts:frobnicate', status: 404, code: 'ACTION_NOT_FOUND' },
  { name: 'prototype name as action', method: 'GET', url: '/api/posts:constructor', status: 404, code: 'ACTION_NOT_FOUND' },
  { name: 'missing record', method: 'GET', url: '/api/posts:get/999999', status: 404, code: 'RECORD_NOT_FOUND' },
  { name: 'missing field', method: 'GET', url: '/api/collections/posts/fields:get/nope', status: 404, code: 'FIELD_NOT_FOUND' },
  { name: 'read action by POST', method: 'POST', url: '/api/posts:list', status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'GET, HEAD' },
  { name: 'write action by GET', method: 'GET', url: '/api/posts:create', status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'POST, PUT, PATCH, DELETE' },
  { name: 'REST PATCH on a collection', method: 'PATCH', url: '/api/posts', body: {}, status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'GET, HEAD, POST, DELETE' },
  { name: 'REST POST on an item', method: 'POST', url: '/api/posts/1', body: {}, status: 405, code: 'METHOD_NOT_ALLOWED', allow: 'GET, HEAD, PUT, PATCH, DELETE' },
  { name: 'malformed JSON', method: 'POST', url: '/api/posts:create', body: '{"title":', status: 400, code: 'BODY_INVALID_JSON' },
  { name: 'create with a string body', method: 'POST', url: '/api/posts:create', body: '"text"', status: 400, code: 'BODY_INVALID' },
  { name: 'create with an empty array', method: 'POST', url: '/api/posts:create', body: [], status: 400, code: 'BODY_INVALID' },
  { name: 'update with an array', method: 'POST', url: '/api/posts:update/1', body: [{ title: 'x' }], status: 400, code: 'BODY_INVALID' },
  { name: 'path key and filterByTk differ', method: 'GET', url: '/api/posts:get/1?filterByTk=2', status: 400, code: 'KEY_CONFLICT', field: 'filterByTk' },
  { name: 'update without key or filter', method: 'POST', url: '/api/posts:update', body: { title: 'x' }, status: 400, code: 'KEY_REQUIRED' },
  { name: 'destroy with an empty filter', method: 'POST', url: `/api/posts:destroy?filter=${f({})}`, status: 400, code: 'KEY_REQUIRED' },
  { name: 'REST destroy of the whole collection', method: 'DELETE', url: '/api/posts', status: 400, code: 'KEY_REQUIRED' },
  { name: 'get without key or filter', method: 'GET', url: '/api/posts:get', status: 400, code: 'KEY_REQUIRED' },
  { name: 'non-integer key for an integer id', method: 'GET', url: '/api/posts:get/abc', status: 400, code: 'KEY_INVALID', field: 'id' },
  { name: 'two keys on get', method: 'GET', url: '/api/posts:get?filterByTk[]=1&filterByTk[]=2', status: 400, code: 'KEY_INVALID' },
  { name: 'bad percent-encoding in a key', method: 'GET', url: '/api/posts/%E0%A4%A', status: 400, code: 'KEY_INVALID' },
  { name: 'pageSize over the maximum', method: 'GET', url: '/api/posts:list?pageSize=1001', status: 400, code: 'PARAM_INVALID', field: 'pageSize' },
  { name: 'page zero', method: 'GET', url: '/api/posts:list?page=0', status: 400, code: 'PARAM_INVALID', field: 'page' },
  { name: 'paginate not a boolean', method: 'GET', url: '/api/posts:list?paginate=maybe', status: 400, code: 'PARAM_INVALID', field: 'paginate' },
  { name: 'sort as an object', method: 'GET', url: '/api/posts:list?sort[a]=b', status: 400, code: 'PARAM_INVALID', field: 'sort' },
  { name: 'filter not JSON', method: 'GET', url: '/api/posts:list?filter=%7Bnope', status: 400, code: 'FILTER_INVALID' },
  { name: 'filter an array', method: 'GET', url: `/api/posts:list?filter=${f([1])}`, status: 400, code: 'FILTER_INVALID' },
  { name: 'filter on an unknown field', method: 'GET', url: `/api/posts:list?filter=${f({ nope: 1 })}`, status: 400, code: 'FILTER_UNKNOWN_FIELD', field: 'nope' },
  { name: 'filter on a password', method: 'GET', url: `/api/posts:list?filter=${f({ secret: 'x' })}`, status: 400, code: 'FILTER_UNKNOWN_FIELD' },
  { name: 'unknown operator', method: 'GET', url: `/api/posts:list?filter=${f({ views: { $near: 1 } })}`, status: 400, code: 'FILTER_UNKNOWN_OPERATOR' },
  { name: '$gt on a boolean', method: 'GET', url: `/api/posts:list?filter=${f({ published: { $gt: true } })}`, status: 400, code: 'FILTER_OPERATOR_TYPE' },
  { name: 'text value for an integer', method: 'GET', url: `/api/posts:list?filter=${f({ views: 'many' })}`, status: 400, code: 'FILTER_OPERATOR_TYPE' },
  { name: 'filter on json', method: 'GET', url: `/api/posts:list?filter=${f({ meta: 1 })}`, status: 400, code: 'FILTER_OPERATOR_TYPE' },
  { name: 'filter text over 16 KiB', method: 'GET', url: `/api/posts:list?filter=${f({ title: big(17000) })}`, status: 400, code: 'FILTER_TOO_COMPLEX' },
  { name: 'filter deeper than 8', method: 'GET', url: `/api/posts:list?filter=${f({ $not: { $not: { $not: { $not: { $not: { $not: { $not: { $not: { views: 1 } } } } } } } } })}`, status: 400, code: 'FILTER_TOO_COMPLEX' },
  { name: 'more than 200 conditions', method: 'GET', url: `/api/posts:list?filter=${f({ $or: Array.from({ length: 201 }, (_, i) => ({ views: i })) })}`, status: 400, code: 'FILTER_TOO_COMPLEX' },
  { name: 'sort by an unknown field', method: 'GET', url: '/api/posts:list?sort=-nope', status: 400, code: 'SORT_UNKNOWN_FIELD', field: 'nope' },
  { name: 'sort by json', method: 'GET', url: '/api/posts:list?sort=meta', status: 400, code: 'SORT_UNKNOWN_FIELD' },
  { name: 'fields names an unknown field', method: 'GET', url: '/api/posts:list?fields=id,nope', status: 400, code: 'FIELDS_UNKNOWN', field: 'nope' },
  { name: 'except names an unknown field', method: 'GET', url: '/api/posts:get/1?except=nope', status: 400, code: 'FIELDS_UNKNOWN' },
  { name: 'fields asks for a password', method: 'GET', url: '/api/posts:list?fields=secret', status: 400, code: 'FIELDS_UNKNOWN' },
  { name: 'appends names an unknown association', method: 'GET', url: '/api/posts:list?appends=author', status: 400, code: 'APPENDS_UNKNOWN' },
  { name: 'unknown field in the body', method: 'POST', url: '/api/posts:create', body: { title: 'x', nope: 1 }, status: 400, code: 'VALUE_UNKNOWN_FIELD', field: 'nope' },
  { name: 'unknown field in an update', method: 'PUT', url: '/api/posts/1', body: { nope: 1 }, status: 400, code: 'VALUE_UNKNOWN_FIELD', field: 'nope' },
  { name: 'bad type', method: 'POST', url: '/api/posts:create', body: { title: 'x', views: 'many' }, status: 400, code: 'VALIDATION_FAILED', field: 'views' },
  { name: 'missing required field', method: 'POST', url: '/api/posts:create', body: { views: 1 }, status: 400, code: 'VALIDATION_FAILED', field: 'title' },
  { name: 'null for a required field', method: 'PUT', url: '/api/posts/1', body: { title: null }, status: 400, code: 'VALIDATION_FAILED', field: 'title' },
  { name: 'one bad item fails a bulk create', method: 'POST', url: '/api/posts:create', body: [{ title: 'ok' }, { title: 'x', views: -1 }], status: 400, code: 'VALIDATION_FAILED', field: 'views' },
  { name: 'unique violation', method: 'POST', url: '/api/posts:create', body: { title: 'x', slug: 'taken' }, status: 409, code: 'UNIQUE_VIOLATION', field: 'slug' },
  { name: 'unique violation inside a bulk create', method: 'POST', url: '/api/posts:create', body: [{ title: 'a', slug: 'fresh' }, { title: 'b', slug: 'fresh' }], status: 409, code: 'UNIQUE_VIOLATION', field: 'slug' },
  { name: 'unique violation on update', method: 'PUT', url: '/api/posts/2', body: { slug: 'taken' }, status: 409, code: 'UNIQUE_VIOLATION', field: 'slug' },
  { name: 'unknown field type', method: 'POST', url: '/api/collections:create', body: { name: 'c1', fields: [{ name: 'a', type: 'blob' }] }, status: 400, code: 'SCHEMA_INVALID' },
  { name: 'bad collection name', method: 'POST', url: '/api/collections:create', body: { name: '1bad' }, status: 400, code: 'SCHEMA_INVALID' },
  { name: 'reserved collection name', method: 'POST', url: '/api/collections:create', body: { name: 'collections' }, status: 400, code: 'SCHEMA_INVALID' },
  { name: 'collection name of the reference page', method: 'POST', url: '/api/collections:create', body: { name: 'docs' }, status: 400, code: 'SCHEMA_INVALID' },
  { name: 'option that does not apply', method: 'POST', url: '/api/collections:create', body: { name: 'c2', fields: [{ name: 'a', type: 'integer', length: 3 }] }, status: 400, code: 'SCHEMA_INVALID' },
  { name: 'defaultValue of the wrong type', method: 'POST', url: '/api/collections/posts/fields:create', body: { name: 'n', type: 'integer', defaultValue: 'x' }, status: 400, code: 'SCHEMA_INVALID' },
  { name: 'required field added without a default', method: 'POST', url: '/api/collections/posts/fields:create', body: { name: 'n', type: 'integer', allowNull: false }, status: 400, code: 'SCHEMA_INVALID' },
  { name: 'existing collection', method: 'POST', url: '/api/collections:create', body: { name: 'posts' }, status: 409, code: 'COLLECTION_EXISTS' },
  { name: 'existing collection in other case', method: 'POST', url: '/api/collections:create', body: { name: 'POSTS' }, status: 409, code: 'COLLECTION_EXISTS' },
  { name: 'existing field', method: 'POST', url: '/api/collections/posts/fields:create', body: { name: 'title', type: 'string' }, status: 409, code: 'FIELD_EXISTS' },
  { name: 'unique on duplicated data', method: 'POST', url: '/api/collections/posts/fields:update/views', body: { unique: true }, status: 409, code: 'UNIQUE_VIOLATION' },
  { name: 'type change', method: 'POST', url: '/api/collections/posts/fields:update/views', body: { type: 'string' }, status: 409, code: 'SCHEMA_CHANGE_UNSAFE' },
  { name: 'body over the limit', method: 'POST', url: '/api/posts:create', body: { title: big(70 * 1024) }, status: 413, code: 'PAYLOAD_TOO_LARGE' },
  { name: 'text/plain body', method: 'POST', url: '/api/posts:create', body: 'title=x', headers: { 'content-type': 'text/plain' }, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'form body', method: 'POST', url: '/api/posts:create', body: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' }, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
];

for (const dialect of DIALECTS) {
  describe(`error responses on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { bodyLimit: 64 * 1024 });
    let snapshot: string;

    const state = async () => {
      const rows = await ctx.api.get('/api/posts:list?paginate=false&sort=id');
      const schema = await ctx.api.get('/api/collections:list?paginate=false');
      return JSON.stringify([rows.body, schema.body]);
    };

    beforeAll(async () => {
      await ctx.api.collection({
        name: 'posts',
        fields: [
          { name: 'title', type: 'string', allowNull: false },
          { name: 'slug', type: 'string', unique: true },
          { name: 'views', type: 'integer', min: 0, defaultValue: 0 },
          { name: 'published', type: 'boolean' },
          { name: 'meta', type: 'json' },
          { name: 'secret', type: 'password' },
        ],
      });
      await ctx.api.post('/api/posts:create', [{ title: 'one', slug: 'taken' }, { title: 'two', slug: 'other' }]);
      snapshot = await state();
    });

    for (const c of CASES) {
      it(`answers ${c.status} ${c.code} for ${c.name}`, async () => {
        const reply = await ctx.api.request(c.method, c.url, c.body, c.headers);
        expect(reply.status, reply.text).toBe(c.status);
        expect(reply.headers['content-type']).toMatch(/^application\/json/);
        if (c.method !== 'HEAD') {
          expect(reply.body.errors[0].code, reply.text).toBe(c.code);
          expect(typeof reply.body.errors[0].message).toBe('string');
          if (c.field !== undefined) expect(reply.body.errors[0].field).toBe(c.field);
        }
        if (c.allow !== undefined) expect(reply.headers.allow).toBe(c.allow);
        expect(await state()).toBe(snapshot);
      });
    }

    it('reports every failing field of a body, one entry each', async () => {
      const reply = await ctx.api.post('/api/posts:create', { title: 7, views: -3, published: 'yes' });
      expect(reply.status).toBe(400);
      expect(reply.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['published', 'title', 'views']);
      expect(reply.body.errors.every((e: { code: string }) => e.code === 'VALIDATION_FAILED')).toBe(true);
    });

    it('marks which item of a bulk create failed', async () => {
      const reply = await ctx.api.post('/api/posts:create', [{ title: 'a' }, { title: 'b' }, { views: 1 }]);
      expect(reply.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'title', details: { index: 2 } });
    });

    it('ignores an empty JSON object on actions that take no body, as the NocoBase SDK sends one', async () => {
      const first = (await ctx.api.get('/api/posts:list')).body.data[0];
      expect((await ctx.api.request('GET', `/api/posts:get/${first.id}`, {})).status).toBe(200);
    });

    it('sends a request id header and never leaks SQL in an error', async () => {
      const reply = await ctx.api.get('/api/posts:list?sort=nope');
      expect(reply.headers['x-request-id']).toBeTruthy();
      expect(reply.text.toLowerCase()).not.toMatch(/select|sqlite|syntax/);
    });
  });
}
