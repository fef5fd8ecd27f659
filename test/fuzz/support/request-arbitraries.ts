/**
 * Generators for whole HTTP requests against the fuzz schema: paths in both
 * styles, query strings (JSON and qs forms), filters and bodies. `hostile: true` adds the
 * inputs that the safety rails of API.md section 12 are about (reserved names, deep JSON,
 * odd methods and charsets, browser headers, bad request ids).
 */
import fc from 'fast-check';
import { bodyFor, bodyText, bodyValue, rawBodyText, deepJsonText } from './body-arbitraries.js';
import { QUERIES, anyQuery } from './query-arbitraries.js';
import { ACTIONS, RELATION_NAMES, RESERVED_NAMES, SEED_NAMES, keySegment, oddText, segment, encodeSegment } from './value-arbitraries.js';

export interface FuzzRequest {
  method: string;
  /** Below the API prefix, already encoded as it goes on the wire. */
  path: string;
  /** Without the leading '?'; may be empty. */
  query: string;
  /** Raw body text (bytes for multipart bodies); absent for no body. */
  body?: string | Buffer;
  headers: Record<string, string>;
}

export interface GeneratorOptions {
  hostile: boolean;
}

const collectionName = (hostile: boolean): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...SEED_NAMES) },
    { weight: 1, arbitrary: fc.constantFrom('People', 'collections', 'nope', 'a'.repeat(63), 'a'.repeat(64)) },
    { weight: 1, arbitrary: hostile ? fc.constantFrom(...RESERVED_NAMES) : segment },
  );

const actionName = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...ACTIONS) }, { weight: 1, arbitrary: oddText.map((t) => encodeSegment(t, true)) });

const associationName = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...RELATION_NAMES) }, { weight: 1, arbitrary: fc.constantFrom('fields', 'team', 'nope', 'title') });

function pathArb(hostile: boolean): fc.Arbitrary<string> {
  const c = collectionName(hostile);
  return fc.oneof(
    c,
    fc.tuple(c, actionName).map(([a, b]) => `${a}:${b}`),
    fc.tuple(c, actionName, keySegment).map(([a, b, k]) => `${a}:${b}/${k}`),
    fc.tuple(c, keySegment).map(([a, k]) => `${a}/${k}`),
    fc.tuple(c, keySegment, associationName).map(([a, k, r]) => `${a}/${k}/${r}`),
    fc.tuple(c, keySegment, associationName, actionName).map(([a, k, r, b]) => `${a}/${k}/${r}:${b}`),
    fc.tuple(c, keySegment, associationName, keySegment).map(([a, k, r, k2]) => `${a}/${k}/${r}/${k2}`),
    fc.tuple(c, keySegment, associationName, actionName, keySegment).map(([a, k, r, b, k2]) => `${a}/${k}/${r}:${b}/${k2}`),
    fc.constantFrom('collections', 'collections:list', 'collections:get/people', 'collections/people/fields', 'collections/people/fields:get/title', 'app:getInfo'),
    // Garbage: any number of segments, empty ones and trailing slashes included.
    fc.array(segment, { maxLength: 6 }).map((parts) => parts.join('/')),
  );
}

const contentType = (hostile: boolean): fc.Arbitrary<string | undefined> =>
  hostile
    ? fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', undefined)
    : fc.oneof({ weight: 8, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') }, { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'APPLICATION/JSON', undefined) });

const methodArb = (hostile: boolean): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE') },
    { weight: 1, arbitrary: hostile ? fc.constantFrom('HEAD', 'OPTIONS', 'QUERY', 'PROPFIND', 'TRACE') : fc.constantFrom('HEAD', 'OPTIONS') },
  );

export const hostileHeaders = fc.record(
  {
    origin: fc.constantFrom('http://evil.example', 'null', 'http://localhost:3000'),
    host: fc.constantFrom('evil.example', 'localhost', '127.0.0.1:80', '[::1]', 'attacker.localhost.example'),
    'x-request-id': fc.oneof(fc.string({ maxLength: 200 }), fc.constantFrom('<script>alert(1)</script>', 'x'.repeat(8000), 'ok-id_1.2:3')),
  },
  { requiredKeys: [] },
);

type Op = readonly [method: string, action: string, key: boolean];
const DATA_OPS: readonly Op[] = [
  ['GET', 'list', false], ['GET', 'get', true], ['GET', 'count', false], ['POST', 'count', false], ['GET', 'get', false],
  ['POST', 'create', false], ['PUT', 'update', true], ['POST', 'update', true], ['PATCH', 'update', true], ['POST', 'update', false],
  ['POST', 'destroy', true], ['DELETE', 'destroy', true], ['POST', 'destroy', false],
];
const LINK_OPS: readonly Op[] = [...DATA_OPS, ['POST', 'add', false], ['POST', 'set', false], ['POST', 'remove', false], ['POST', 'toggle', false], ['POST', 'toggle', true]];
const REST_ACTION: Record<string, string> = { list: 'GET', get: 'GET', create: 'POST', update: 'PUT', destroy: 'DELETE' };

const existingKey = fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 1, max: 6 }).map(String) }, { weight: 1, arbitrary: keySegment });

/** A path of either style from parts; REST when asked and the action has a REST form. */
function styledPath(base: string, op: Op, key: string, rest: boolean): { method: string; path: string } {
  const [method, action, withKey] = op;
  if (rest && REST_ACTION[action] !== undefined) {
    const restMethod = action === 'update' && method === 'PATCH' ? 'PATCH' : REST_ACTION[action]!;
    return { method: restMethod, path: withKey ? `${base}/${key}` : base };
  }
  return { method, path: `${base}:${action}${withKey ? `/${key}` : ''}` };
}

/** Requests a client of the API would plausibly send to one collection. */
export const dataRequest: fc.Arbitrary<FuzzRequest> = fc.constantFrom(...SEED_NAMES).chain((collection) =>
  fc
    .record({
      op: fc.constantFrom(...DATA_OPS),
      key: existingKey,
      rest: fc.boolean(),
      query: fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 2, arbitrary: QUERIES[collection]! }),
      body: bodyFor(collection),
    })
    .map(({ op, key, rest, query, body }) => {
      const { method, path } = styledPath(collection, op, key, rest);
      return withBody({ method, path, query, headers: {} }, method === 'GET' ? undefined : bodyText(body), 'application/json');
    }),
);

const LINK_TARGET_FIELDS: Record<string, string> = { team: 'teams', profile: 'profiles', notes: 'notes', tags: 'tags' };

/** Requests on association paths of people: routes, link actions and nested bodies. */
const associationRequest: fc.Arbitrary<FuzzRequest> = fc.constantFrom(...RELATION_NAMES).chain((association) => {
  const target = LINK_TARGET_FIELDS[association]!;
  return fc
    .record({
      op: fc.constantFrom(...LINK_OPS),
      source: existingKey,
      key: existingKey,
      rest: fc.boolean(),
      query: fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 2, arbitrary: QUERIES[target]! }),
      body: fc.oneof(
        bodyFor(target),
        fc.array(fc.oneof(fc.integer({ min: 0, max: 8 }), fc.constantFrom('00000000-0000-4000-8000-000000000001', 'x')), { maxLength: 4 }),
        fc.integer({ min: 0, max: 8 }),
        fc.record({ tk: fc.integer({ min: 0, max: 8 }) }),
      ),
    })
    .map(({ op, source, key, rest, query, body }) => {
      const { method, path } = styledPath(`people/${source}/${association}`, op, key, rest);
      return withBody({ method, path, query, headers: {} }, method === 'GET' ? undefined : bodyText(body), 'application/json');
    });
});

function withBody(request: FuzzRequest, body: string | undefined, type: string | undefined): FuzzRequest {
  if (body === undefined || request.method === 'GET' || request.method === 'HEAD') return request;
  return { ...request, body, headers: { ...(type === undefined ? {} : { 'content-type': type }), ...request.headers } };
}

/** Anything: odd paths, methods, queries, bodies and content types, mostly refused. */
const chaoticRequest = (hostile: boolean): fc.Arbitrary<FuzzRequest> =>
  fc
    .record({
      method: methodArb(hostile),
      path: pathArb(hostile),
      query: fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: 3, arbitrary: anyQuery }),
      body: fc.oneof(
        { weight: 2, arbitrary: fc.constant(undefined) },
        { weight: 6, arbitrary: bodyValue(hostile).map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: hostile ? fc.oneof(rawBodyText, deepJsonText) : rawBodyText },
      ),
      contentType: contentType(hostile),
      headers: hostile ? hostileHeaders : fc.constant({}),
    })
    .map(({ method, path, query, body, contentType: type, headers }) => withBody({ method, path, query, headers: headers as Record<string, string> }, body, type));

export function requestArb(options: GeneratorOptions): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 4, arbitrary: dataRequest },
    { weight: 3, arbitrary: associationRequest },
    { weight: 3, arbitrary: chaoticRequest(options.hostile) },
  );
}
