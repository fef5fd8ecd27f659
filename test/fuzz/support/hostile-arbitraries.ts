/**
 * Generators aimed at the safety rails of API.md section 12, each with the answer the rail
 * promises: reserved names, browser headers and request ids, and client mistakes that the
 * HTTP layer or the body parser must answer in the envelope.
 */
import fc from 'fast-check';
import { deepJsonText } from './body-arbitraries.js';
import { dataRequest, type FuzzRequest } from './request-arbitraries.js';

export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Collection names section 12 refuses on every dialect. */
export const RESERVED_COLLECTION_NAMES = ['pg_shadow', 'pg_description', 'pg_class', 'PG_roles', 'sqlite_master', 'sqlite_sequence', 'Sqlite_x', 'corral_collections', 'corral_x', 'information_schema', 'mysql', 'performance_schema', 'sys'];
/** Field names section 12 refuses on every dialect. */
export const RESERVED_FIELD_NAMES = ['__proto__', 'constructor', 'prototype', 'ctid', 'xmin', 'xmax', 'oid', 'tableoid', 'rowid', '_rowid_', 'oid'];

/** What a hostile request must get, besides the envelope without 5xx. */
export type Expectation =
  | { kind: 'refused'; status: number; codes: string[] }
  | { kind: 'no5xx' };

export interface HostileCase {
  request: FuzzRequest;
  expect: Expectation;
  /** Requests that must still answer without 5xx afterwards (the collection stays usable). */
  followUps: FuzzRequest[];
}

const json = (method: string, path: string, body: unknown, query = ''): FuzzRequest => ({
  method,
  path,
  query,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json' },
});
const get = (path: string): FuzzRequest => ({ method: 'GET', path, query: '', headers: {} });

/** Creating collections and fields with reserved or over-long names. */
export const reservedNameCase: fc.Arbitrary<HostileCase> = fc.oneof(
  fc.constantFrom(...RESERVED_COLLECTION_NAMES).map((name) => ({
    request: json('POST', 'collections:create', { name, timestamps: false, fields: [{ name: 'title', type: 'string' }] }),
    expect: { kind: 'refused' as const, status: 400, codes: ['SCHEMA_INVALID'] },
    followUps: [get(`${name}:list`), get(`${name}/1`), json('PUT', `${name}/2`, { title: 'x' })],
  })),
  fc.constantFrom(...RESERVED_FIELD_NAMES).map((name) => ({
    request: json('POST', 'collections/notes/fields:create', { name, type: 'string' }),
    expect: { kind: 'refused' as const, status: 400, codes: ['SCHEMA_INVALID'] },
    followUps: [get('notes:list'), json('POST', 'notes:create', { text: 'after', [name]: 'x' }), get('notes/1')],
  })),
  // Generated names (through tables, constraints, indexes) longer than a database allows.
  fc.integer({ min: 50, max: 63 }).map((length) => {
    const name = `l${'o'.repeat(length - 1)}`;
    return {
      request: json('POST', 'collections:create', { name, fields: [{ name: 'tags', type: 'belongsToMany', target: 'tags' }, { name: 'team', type: 'belongsTo', target: 'teams' }] }),
      expect: { kind: 'no5xx' as const },
      followUps: [get(`${name}:list?appends=tags`), json('POST', `${name}:create`, { tags: [] }), get(`${name}/1/tags`)],
    };
  }),
);

/** Data requests from a browser page or through a rebound DNS name, with odd request ids. */
export const browserCase: fc.Arbitrary<HostileCase> = fc
  .tuple(
    dataRequest,
    fc.record(
      {
        origin: fc.constantFrom('http://evil.example', 'null', 'https://attacker.example:8443'),
        host: fc.constantFrom('evil.example', 'attacker.localhost.example', 'rebind.example:80'),
        'x-request-id': fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom('<script>alert(1)</script>', 'x'.repeat(8000), 'ok-id_1.2:3', 'a b', 'é')),
      },
      { requiredKeys: [] },
    ),
  )
  .map(([request, headers]) => {
    const hostile = headers.origin !== undefined || headers.host !== undefined;
    const codes = [...(headers.origin !== undefined ? ['ORIGIN_FORBIDDEN'] : []), ...(headers.host !== undefined ? ['HOST_FORBIDDEN'] : [])];
    return {
      request: { ...request, headers: { ...request.headers, ...headers } },
      expect: hostile ? { kind: 'refused' as const, status: 403, codes } : { kind: 'no5xx' as const },
      followUps: [],
    };
  });

/** Client mistakes that section 12 and the documented body rules answer with 4xx (`{}` is a valid `set`: it unlinks all). */
export const clientMistakeCase: fc.Arbitrary<HostileCase> = fc.oneof(
  fc.constantFrom('QUERY', 'PROPFIND', 'TRACE').map((method) => ({
    request: { method, path: 'people', query: '', headers: {} },
    expect: { kind: 'no5xx' as const },
    followUps: [],
  })),
  deepJsonText.map((body) => ({
    request: { method: 'POST', path: 'people:create', query: '', body, headers: { 'content-type': 'application/json' } },
    expect: { kind: 'refused' as const, status: 400, codes: ['BODY_INVALID', 'VALIDATION_FAILED', 'BODY_INVALID_JSON'] },
    followUps: [get('people:list?pageSize=1000')],
  })),
  fc.constantFrom('utf-16', 'utf-16le', 'latin1', 'iso-8859-1').map((charset) => ({
    request: { method: 'POST', path: 'notes:create', query: '', body: '{"text":"x"}', headers: { 'content-type': `application/json; charset=${charset}` } },
    expect: { kind: 'refused' as const, status: 415, codes: ['UNSUPPORTED_MEDIA_TYPE'] },
    followUps: [],
  })),
  fc.constantFrom('people/1', 'people:update/1', 'notes/1').map((path) => ({
    request: { method: path.includes(':') ? 'POST' : 'PUT', path, query: '', body: 'null', headers: { 'content-type': 'application/json' } },
    expect: { kind: 'refused' as const, status: 400, codes: ['BODY_INVALID'] },
    followUps: [],
  })),
  fc.constantFrom('people/1/tags:add', 'people/1/tags:remove', 'people/1/tags:toggle').map((path) => ({
    request: json('POST', path, {}),
    expect: { kind: 'refused' as const, status: 400, codes: ['BODY_INVALID'] },
    followUps: [],
  })),
);
