import { describe, expect, it } from 'vitest';
import { normalizeCollection } from '../../src/schema/normalize-collection.js';
import { SchemaSnapshot } from '../../src/schema/schema-snapshot.js';
import { checkContract, operationOf, UNRESOLVED } from '../support/contract-check.js';

const posts = normalizeCollection({ name: 'posts', fields: [{ name: 'title', type: 'string' }, { name: 'views', type: 'integer', allowNull: false }] }).def;
const snapshot = new SchemaSnapshot(1, [posts], 'sqlite');
const check = (method: string, url: string, status: number, body: unknown): void => checkContract(method, url, status, 'application/json', body, snapshot, '/api', false);

describe('the contract check', () => {
  it.each([
    ['GET', '/api/posts', 'posts.list'],
    ['GET', '/api/posts/1?fields=title', 'posts.get'],
    ['PUT', '/api/posts/1', 'posts.update'],
    ['POST', '/api/posts:create', 'posts.create'],
    ['DELETE', '/api/posts:destroy/1', 'posts.destroy'],
    ['POST', '/api/collections/posts/fields:list', 'collections.fields.list'],
    ['GET', '/healthz', 'healthz'],
    ['GET', '/api/nothing/here/at/all/x', UNRESOLVED],
    ['GET', '/api/openapi.json', undefined],
  ])('routes %s %s to %s', (method, url, operationId) => {
    expect(operationOf(method, url, snapshot, '/api')).toBe(operationId);
  });

  it('accepts answers that match the document', () => {
    check('GET', '/api/posts:get/1', 200, { data: { id: 1, title: null, views: 3, createdAt: '2026-01-02T03:04:05.000Z', updatedAt: '2026-01-02T03:04:05.000Z' } });
    check('GET', '/api/posts:list', 200, { data: [], meta: { count: 0, page: 1, pageSize: 20, totalPage: 0 } });
    check('GET', '/api/posts:list?simplePaginate=true', 200, { data: [], meta: { page: 1, pageSize: 20, hasNext: false } });
    check('GET', '/api/posts:get/9', 404, { errors: [{ code: 'RECORD_NOT_FOUND', message: 'no posts record matches' }] });
  });

  it.each([
    ['a value of the wrong type', 'GET', '/api/posts:get/1', 200, { data: { views: 'many' } }, /must be integer/],
    ['an unknown field', 'GET', '/api/posts:get/1', 200, { data: { titel: 'x' } }, /additional properties/],
    ['a date that is not ISO', 'GET', '/api/posts:get/1', 200, { data: { createdAt: 'yesterday' } }, /date-time/],
    ['a meta of no paging mode', 'GET', '/api/posts:list', 200, { data: [], meta: { page: 1 } }, /oneOf|required/],
    ['an undocumented status', 'GET', '/api/posts:list', 418, { errors: [{ code: 'INTERNAL', message: 'x' }] }, /not documented/],
    ['an error body without a code', 'GET', '/api/posts:get/1', 404, { errors: [{ message: 'x' }] }, /code/],
    ['a success where no operation exists', 'GET', '/api/posts:frobnicate', 200, { data: 1 }, /no documented operation/],
  ])('fails on %s', (_what, method, url, status, body, message) => {
    expect(() => check(method, url, status, body)).toThrow(message);
  });
});
