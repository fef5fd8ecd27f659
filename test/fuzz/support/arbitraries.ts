/**
 * Generators for hostile-but-legal HTTP requests against the fuzz schema: paths in both
 * styles, query strings (JSON and qs forms), filters and bodies. `hostile: true` adds the
 * inputs that the safety rails of API.md section 12 are about (reserved names, deep JSON,
 * odd methods and charsets, browser headers, bad request ids).
 */
import fc from 'fast-check';
import qs from 'qs';
import { RELATIONS, SCALAR_FIELDS } from './fuzz-schema.js';

export interface FuzzRequest {
  method: string;
  /** Below the API prefix, already encoded as it goes on the wire. */
  path: string;
  /** Without the leading '?'; may be empty. */
  query: string;
  /** Raw body text; absent for no body. */
  body?: string;
  headers: Record<string, string>;
}

export interface GeneratorOptions {
  hostile: boolean;
}

const SEED_NAMES = ['people', 'teams', 'tags', 'notes', 'profiles', 'people_tags'];
const FIELD_NAMES = [...SCALAR_FIELDS.map((f) => f.name), 'id', 'createdAt', 'updatedAt', 'teamId', 'name', 'label', 'text', 'bio'];
const RELATION_NAMES = RELATIONS.map((r) => r.name);
const ACTIONS = ['list', 'get', 'count', 'create', 'update', 'destroy', 'add', 'set', 'remove', 'toggle', 'getInfo'];
const OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$notIn', '$exists', '$notExists', '$like', '$foo', 'eq'];

/** Names a hostile client tries: catalogue tables, prototype keys, too long, odd case. */
const RESERVED_NAMES = ['pg_shadow', 'pg_description', 'sqlite_master', 'information_schema', 'mysql', 'sys', 'corral_x', 'ctid', 'xmin', 'oid', 'rowid', '__proto__', 'constructor', 'prototype'];

const oddText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('', ' ', '%', '%zz', '%3A', ':', '::', '..', '.', '-', '\u0000', '\u202e', '😀', 'a b', 'a/b', 'a?b', 'a#b', 'NULL', 'null', 'undefined', 'true', '1e309', '-0', '0x10'),
);

/** Percent-encodes some characters (always those that would break the URL), leaving others raw. */
const encodeSegment = (text: string, raw: boolean): string =>
  raw ? text.replace(/[^A-Za-z0-9_:%.~-]/gu, (c) => encodeURIComponent(c)) : encodeURIComponent(text);

const segment = fc.tuple(oddText, fc.boolean()).map(([text, raw]) => encodeSegment(text, raw));

const collectionName = (hostile: boolean): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...SEED_NAMES) },
    { weight: 1, arbitrary: fc.constantFrom('People', 'collections', 'nope', 'a'.repeat(63), 'a'.repeat(64)) },
    { weight: 1, arbitrary: hostile ? fc.constantFrom(...RESERVED_NAMES) : segment },
  );

const keyText = fc.oneof(
  fc.integer({ min: -2, max: 12 }).map(String),
  fc.constantFrom('00000000-0000-4000-8000-000000000001', '1.5', '99999999999999999999', 'code1', '1,2', ' 1'),
  oddText,
);

const keySegment = fc.tuple(keyText, fc.boolean()).map(([text, raw]) => encodeSegment(text, raw));

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

/** Field names of each seed collection (and what a filter may reach through relations). */
const COLLECTION_FIELDS: Record<string, string[]> = {
  people: [...SCALAR_FIELDS.map((f) => f.name), 'id', 'createdAt', 'updatedAt', 'teamId'],
  teams: ['id', 'name', 'createdAt'],
  tags: ['id', 'label', 'updatedAt'],
  notes: ['id', 'text', 'peopleId', 'personId'],
  profiles: ['id', 'bio', 'peopleId'],
  people_tags: ['peopleId', 'tagId', 'personId'],
};

/** A field path in a filter, sort or fields list: a field, an association path, or noise. */
const fieldPathFor = (names: string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...names) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...RELATION_NAMES), fc.constantFrom('id', 'name', 'label', 'text', 'bio', 'nope', 'team')).map(([a, b]) => `${a}.${b}`) },
    { weight: 1, arbitrary: fc.constantFrom(...FIELD_NAMES, 'team.notes.id', 'tags.people.title', 'a..b', '.', '') },
    { weight: 1, arbitrary: oddText },
  );

/** Scalar values of every wire type, odd ones included. */
const scalarValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: -5, max: 10 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.constantFrom(1e308, -1e308, 5e-324, 2147483648, -2147483649, 9007199254740993, -0, 0.1, 1.005),
  fc.constantFrom('9223372036854775807', '-9223372036854775809', '0000-01-01', '9999-12-31T23:59:59.999Z', '10000-01-01', '24:00:00', '23:59:60', 'Infinity', '+1', ' 1 ', '1_000', '١٢٣', '𝟙', '0.000', '-0.00', '1e-7', 'T', 'Z'),
  fc.constantFrom('2026-01-02T03:04:05Z', '2026-02-30', '12:00', '25:00', '00000000-0000-4000-8000-000000000001', '1e3', '9223372036854775808', '-0', 'NaN', '%', "' or 1=1 --", '"', '\\', '\u0000', 'draft', 'person 1'),
);

const jsonValue = (depth: number): fc.Arbitrary<unknown> => fc.jsonValue({ maxDepth: depth });

/** A filter tree: field conditions, operators, $and/$or/$not, association paths, junk. */
const filterFor = (fieldPath: fc.Arbitrary<string>): fc.Arbitrary<unknown> =>
  fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('condition'),
      fc.dictionary(fieldPath, tie('condition'), { maxKeys: 3 }),
      fc.record({ $and: fc.array(tie('node'), { maxLength: 3 }) }),
      fc.record({ $or: fc.array(tie('node'), { maxLength: 3 }) }),
      fc.record({ $not: tie('node') }),
      jsonValue(3),
    ),
    condition: fc.oneof(
      fc.dictionary(fieldPath, scalarValue, { minKeys: 1, maxKeys: 2 }),
      fc.tuple(fieldPath, fc.constantFrom(...OPERATORS), fc.oneof(scalarValue, fc.array(scalarValue, { maxLength: 4 }), jsonValue(2))).map(([f, op, v]) => ({ [f]: { [op]: v } })),
    ),
  })).node;

const nameListFor = (fieldPath: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    fc.array(fieldPath, { maxLength: 4 }).map((names) => names.join(',')),
    fc.array(fc.tuple(fc.boolean(), fieldPath).map(([desc, f]) => (desc ? `-${f}` : f)), { maxLength: 3 }).map((names) => names.join(',')),
  );

const pageNumber = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 5 }).map(String) },
  { weight: 1, arbitrary: fc.oneof(fc.integer({ min: -1, max: 1001 }).map(String), fc.constantFrom('', 'x', '1.5', '1e3', '99999999999', '0')) },
);

/** Mostly a value that is fine, sometimes one that is not. */
const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>): fc.Arbitrary<T> => fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: bad });

const QUERY_PARAMS = ['filter', 'sort', 'fields', 'except', 'appends', 'page', 'pageSize', 'paginate', 'filterByTk', 'whitelist', 'updateAssociationValues', 'cascade', 'garbage'] as const;

/** One query string for a collection with these fields, mixing the JSON and qs nested forms. */
const queryFor = (names: string[]): fc.Arbitrary<string> => {
  const fieldPath = fieldPathFor(names);
  const filter = filterFor(fieldPath);
  const nameList = nameListFor(fieldPath);
  const parts = fc.record(
      {
        filter: fc.oneof(
          filter.map((f) => `filter=${encodeURIComponent(JSON.stringify(f))}`),
          filter.map((f) => qs.stringify({ filter: f })),
          oddText.map((t) => `filter=${encodeURIComponent(t)}`),
        ),
        sort: nameList.map((s) => `sort=${encodeURIComponent(s)}`),
        fields: nameList.map((s) => `fields=${encodeURIComponent(s)}`),
        except: nameList.map((s) => `except=${encodeURIComponent(s)}`),
        appends: fc.oneof(
          fc.array(fc.constantFrom(...RELATION_NAMES, 'team.id', 'tags.label'), { maxLength: 3 }).map((a) => `appends=${a.join(',')}`),
          fc.array(fieldPath, { maxLength: 3 }).map((a) => qs.stringify({ appends: a }, { arrayFormat: 'brackets' })),
        ),
        page: pageNumber.map((p) => `page=${encodeURIComponent(p)}`),
        pageSize: pageNumber.map((p) => `pageSize=${encodeURIComponent(p)}`),
        paginate: mostly(fc.constantFrom('paginate=false', 'paginate=true', 'simplePaginate=true'), fc.constant('paginate=x')),
        filterByTk: fc.oneof(
          keyText.map((k) => `filterByTk=${encodeURIComponent(k)}`),
          fc.array(keyText, { maxLength: 4 }).map((ks) => qs.stringify({ filterByTk: ks }, { arrayFormat: 'brackets' })),
          fc.array(keyText, { maxLength: 3 }).map((ks) => qs.stringify({ filterByTk: ks }, { arrayFormat: 'indices' })),
        ),
        whitelist: nameList.map((s) => `whitelist=${encodeURIComponent(s)}`),
        updateAssociationValues: fc.constantFrom(...RELATION_NAMES, 'nope').map((s) => `updateAssociationValues=${s}`),
        cascade: mostly(fc.constantFrom('cascade=true', 'cascade=false'), fc.constant('cascade=maybe')),
        garbage: fc.oneof(
          fc.string({ maxLength: 20 }).map((t) => t.replace(/[^\x21-\x7e]|#/gu, (c) => encodeURIComponent(c))),
          fc.constantFrom('a[b][c][d][e][f][g][h][i][j][k][l]=1', 'filter[$and][0][id]=1', 'filter[title][$in][1001]=x', '&&&', '=', 'a=%', '%%', 'page[]=1', 'sort[][x]=1'),
        ),
      },
  );
  return fc
    .tuple(parts, fc.shuffledSubarray([...QUERY_PARAMS], { maxLength: 4 }))
    .map(([values, chosen]) => chosen.map((name) => values[name]).join('&'));
};

const QUERIES: Record<string, fc.Arbitrary<string>> = Object.fromEntries(Object.entries(COLLECTION_FIELDS).map(([name, names]) => [name, queryFor(names)]));
const anyQuery = queryFor(FIELD_NAMES);

/** A value for one field of people, valid or not. */
const fieldValue = fc.oneof(scalarValue, jsonValue(3), fc.array(scalarValue, { maxLength: 3 }));

const relationValue = fc.oneof(
  fc.integer({ min: -1, max: 10 }),
  fc.constantFrom('00000000-0000-4000-8000-000000000001', 'code1', null),
  fc.record({ name: fc.string({ maxLength: 10 }) }, { requiredKeys: [] }),
  fc.record({ id: keyText, label: fc.string({ maxLength: 5 }), text: fc.string({ maxLength: 5 }), bio: fc.string({ maxLength: 5 }) }, { requiredKeys: [] }),
  fc.array(fc.oneof(fc.integer({ min: 0, max: 10 }), fc.record({ text: fc.string({ maxLength: 5 }) }), fc.string({ maxLength: 8 })), { maxLength: 3 }),
);

const itemBody = fc.dictionary(
  fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...FIELD_NAMES, ...RELATION_NAMES) }, { weight: 1, arbitrary: oddText }),
  fc.oneof(fieldValue, relationValue),
  { maxKeys: 6 },
);

/** Nesting well inside every limit (the hostile generator goes past them). */
const nested = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { k: value };
  return value;
};

const bodyValue = (hostile: boolean): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 6, arbitrary: itemBody },
    { weight: 2, arbitrary: fc.array(itemBody, { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.oneof(scalarValue, jsonValue(4)) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 100 }).map((depth) => ({ meta: nested(depth) })) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 200_000 }).map((n) => ({ title: 'y'.repeat(Math.min(n, 60)), body: 'x'.repeat(n) })) },
    // A bulk create at the item limit whose last item is wrong: nothing may be stored.
    { weight: 1, arbitrary: fc.integer({ min: 999, max: 1001 }).map((n) => [...Array.from({ length: n }, () => ({ title: 'bulk' })), { amount: 'not a number', nope: 1 }]) },
    // Definitions for the schema resources (collections, fields).
    {
      weight: 2,
      arbitrary: fc.record(
        {
          name: hostile ? fc.oneof(oddText, fc.constantFrom(...RESERVED_NAMES), fc.constant('f'.repeat(60))) : fc.oneof(oddText, fc.constantFrom('fz_x', 'fz_y', 'People', 'title')),
          type: fc.oneof(fc.constantFrom('string', 'integer', 'json', 'belongsTo', 'belongsToMany', 'hasMany', 'nope'), oddText),
          target: fc.constantFrom('people', 'tags', 'nope'),
          fields: fc.array(fc.record({ name: hostile ? fc.oneof(oddText, fc.constantFrom(...RESERVED_NAMES)) : oddText, type: fc.constantFrom('string', 'integer', 'boolean', 'x') }, { requiredKeys: [] }), { maxLength: 3 }),
          length: fc.oneof(fc.integer(), fc.string({ maxLength: 3 })),
          allowNull: fc.oneof(fc.boolean(), fc.constant('no')),
          defaultValue: scalarValue,
        },
        { requiredKeys: [] },
      ),
    },
  );

const rawBodyText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('{', '[1,', '{"a":}', 'null', '""', '0', 'true', '{"title":"\\ud800"}', '{"title":1}{"title":2}', '\ufeff{}', '   '),
);

/**
 * JSON nested deeper than any limit, written as text: building it as a value and calling
 * JSON.stringify would overflow this process's stack first.
 */
export const deepJsonText = fc.integer({ min: 401, max: 20_000 }).map((depth) => `{"meta":${'['.repeat(depth)}"leaf"${']'.repeat(depth)}}`);

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

const YEAR_1000 = new Date('1000-01-01T00:00:00.000Z');
const YEAR_9999 = new Date('9999-12-31T23:59:59.999Z');
const validDate = fc.date({ min: YEAR_1000, max: YEAR_9999, noInvalidDate: true });
const twoDigits = (max: number): fc.Arbitrary<string> => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));

/** Values of the right type for every field of people, so writes also succeed. */
const personBody = fc.record(
  {
    title: fc.string({ maxLength: 40 }),
    body: fc.string({ unit: 'grapheme', maxLength: 100 }),
    amount: fc.integer({ min: -1000, max: 1000 }),
    big: fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String), fc.maxSafeInteger()),
    ratio: fc.double({ noNaN: true, noDefaultInfinity: true }),
    score: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 })),
    price: fc.integer({ min: -9_999_999, max: 9_999_999 }).map((n) => (n / 100).toFixed(2)),
    active: fc.oneof(fc.boolean(), fc.constantFrom('true', 'false', '1', '0')),
    seenAt: fc.oneof(validDate.map((d) => d.toISOString()), fc.integer({ min: 0, max: 4_102_444_800_000 })),
    day: validDate.map((d) => d.toISOString().slice(0, 10)),
    clock: fc.tuple(twoDigits(23), twoDigits(59), twoDigits(59)).map(([h, m, sec]) => `${h}:${m}:${sec}`),
    meta: jsonValue(4),
    list: fc.array(jsonValue(2), { maxLength: 4 }),
    ref: fc.uuid(),
    code: fc.stringMatching(/^[A-Za-z0-9_-]{1,21}$/),
    secret: fc.string({ maxLength: 30 }),
    rank: fc.integer({ min: 0, max: 1000 }),
    status: fc.constantFrom('draft', 'published'),
    slug: fc.stringMatching(/^[a-z0-9-]{0,8}$/),
    team: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.record({ name: fc.string({ maxLength: 8 }) }), fc.constant(null)),
    tags: fc.array(fc.record({ label: fc.string({ maxLength: 8 }) }), { maxLength: 3 }),
    notes: fc.array(fc.record({ text: fc.string({ maxLength: 20 }) }), { maxLength: 3 }),
    profile: fc.oneof(fc.record({ bio: fc.string({ maxLength: 20 }) }), fc.constant(null)),
  },
  { requiredKeys: [] },
);

const simpleBody = (names: string[]): fc.Arbitrary<unknown> =>
  fc.dictionary(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: oddText }), fc.oneof(fc.string({ maxLength: 12 }), scalarValue), { maxKeys: 3 });

/** Numbers JSON.parse reads as Infinity, -0 or beyond 64 bits, for each numeric field; marked raw. */
const extremeNumbers = (collection: string): fc.Arbitrary<unknown> =>
  fc
    .tuple(fc.constantFrom(...(collection === 'people' ? ['amount', 'big', 'ratio', 'score', 'price', 'rank', 'seenAt', 'active'] : ['id', 'name', 'label'])), fc.constantFrom('1e999', '-1e999', '-0', '1E+2', '123456789012345678901234567890', '0.1e-400', '-9223372036854775809'))
    .map(([field, number]) => new RawJson(`{"${field}":${number}}`));

/** JSON text sent as is (JSON.stringify cannot write Infinity or big numbers). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Serialises a generated body, keeping raw JSON text as it is. */
export const bodyText = (value: unknown): string => (value instanceof RawJson ? value.text : JSON.stringify(value));

/** A body for a write to this collection: mostly of the right shape, sometimes wrong. */
const bodyFor = (collection: string): fc.Arbitrary<unknown> => {
  const item = collection === 'people' ? fc.oneof({ weight: 4, arbitrary: personBody }, { weight: 1, arbitrary: itemBody }) : simpleBody(COLLECTION_FIELDS[collection] ?? FIELD_NAMES);
  return fc.oneof({ weight: 6, arbitrary: item }, { weight: 2, arbitrary: fc.array(item, { maxLength: 4 }) }, { weight: 1, arbitrary: bodyValue(false) }, { weight: 1, arbitrary: extremeNumbers(collection) });
};

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
