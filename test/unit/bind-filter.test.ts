import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors/api-error.js';
import { bindFilter, MAX_FILTER_CONDITIONS, MAX_FILTER_DEPTH, MAX_IN_VALUES } from '../../src/plan/bind-filter.js';
import { evaluateFilter } from '../../src/plan/evaluate-filter.js';
import { matchesNullRow } from '../../src/plan/null-row.js';
import { parseTimeZone } from '../../src/request/time-zone.js';
import type { FilterNode } from '../../src/plan/filter-node.js';
import type { Collection, Item } from '../../src/schema/collection.js';
import { collectionOf } from '../support/collection-of.js';

/** Pure tests of the binder: raw filter → FilterNode, or the right FILTER_* error. No database. */

const posts = collectionOf({
  name: 'posts',
  fields: [
    { name: 'title', type: 'string' },
    { name: 'views', type: 'integer' },
    { name: 'big', type: 'bigInt' },
    { name: 'price', type: 'decimal', precision: 10, scale: 3 },
    { name: 'active', type: 'boolean' },
    { name: 'at', type: 'date' },
    { name: 'day', type: 'dateOnly' },
    { name: 'meta', type: 'json' },
    { name: 'tags', type: 'array' },
    { name: 'secret', type: 'password' },
  ],
});

const field = (name: string) => posts.fields.get(name)!;

function codeOf(filter: unknown): string | undefined {
  try {
    bindFilter(filter, posts);
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

/** A filter nesting `levels` objects deep: 1 is a plain condition, each `$not` adds one. */
function nested(levels: number): unknown {
  let filter: unknown = { views: 1 };
  for (let i = 1; i < levels; i++) filter = { $not: filter };
  return filter;
}

const ERROR_CASES: [code: string, filter: unknown][] = [
  ['FILTER_INVALID', 'views'],
  ['FILTER_INVALID', 5],
  ['FILTER_INVALID', null],
  ['FILTER_INVALID', [{ views: 1 }]],
  ['FILTER_INVALID', { $and: 5 }],
  ['FILTER_INVALID', { $and: 'x' }],
  ['FILTER_INVALID', { $or: true }],
  ['FILTER_INVALID', { $and: [5] }],
  ['FILTER_INVALID', { $or: [{ views: 1 }, 'x'] }],
  ['FILTER_INVALID', { $and: [null] }],
  ['FILTER_INVALID', { $not: 5 }],
  ['FILTER_INVALID', { $not: [{ views: 1 }] }],
  ['FILTER_UNKNOWN_FIELD', { nope: 1 }],
  ['FILTER_UNKNOWN_FIELD', { Views: 1 }],
  ['FILTER_UNKNOWN_FIELD', { secret: 'x' }],
  ['FILTER_UNKNOWN_FIELD', { secret: { $eq: null } }],
  ['FILTER_UNKNOWN_FIELD', { views: { nested: 1 } }],
  ['FILTER_UNKNOWN_FIELD', { 'views.x': 1 }],
  ['FILTER_UNKNOWN_FIELD', { $and: [{ views: 1 }, { nope: 2 }] }],
  ['FILTER_UNKNOWN_FIELD', { $not: { nope: 2 } }],
  ['FILTER_UNKNOWN_OPERATOR', { views: { $foo: 1 } }],
  ['FILTER_UNKNOWN_OPERATOR', { views: { $EQ: 1 } }],
  ['FILTER_UNKNOWN_OPERATOR', { $xor: [] }],
  ['FILTER_UNKNOWN_OPERATOR', { $eq: 1 }],
  ['FILTER_UNKNOWN_OPERATOR', { $or: [{ views: { $bogus: 1 } }] }],
  ['FILTER_OPERATOR_TYPE', { meta: { $eq: 1 } }],
  ['FILTER_OPERATOR_TYPE', { meta: null }],
  ['FILTER_OPERATOR_TYPE', { tags: { $in: [] } }],
  ['FILTER_OPERATOR_TYPE', { active: { $gt: true } }],
  ['FILTER_OPERATOR_TYPE', { active: { $lte: false } }],
  ['FILTER_OPERATOR_TYPE', { active: 'maybe' }],
  ['FILTER_OPERATOR_TYPE', { views: { $gt: null } }],
  ['FILTER_OPERATOR_TYPE', { views: { $gt: [1] } }],
  ['FILTER_OPERATOR_TYPE', { views: { $lt: { a: 1 } } }],
  ['FILTER_OPERATOR_TYPE', { views: 'abc' }],
  ['FILTER_OPERATOR_TYPE', { views: 1.5 }],
  ['FILTER_OPERATOR_TYPE', { views: 2147483648 }],
  ['FILTER_OPERATOR_TYPE', { views: true }],
  ['FILTER_OPERATOR_TYPE', { views: { $eq: { a: 1 } } }],
  ['FILTER_OPERATOR_TYPE', { views: { $in: 1.5 } }],
  ['FILTER_OPERATOR_TYPE', { views: { $notIn: true } }],
  ['FILTER_OPERATOR_TYPE', { views: { $in: ['x'] } }],
  ['FILTER_OPERATOR_TYPE', { views: { $eq: [1, 'x'] } }],
  ['FILTER_OPERATOR_TYPE', { big: '9223372036854775808' }],
  ['FILTER_OPERATOR_TYPE', { price: '1.2345' }],
  ['FILTER_OPERATOR_TYPE', { at: '2026-02-30' }],
  ['FILTER_OPERATOR_TYPE', { at: 'yesterday' }],
  ['FILTER_OPERATOR_TYPE', { day: '2026-13-01' }],
  ['FILTER_OPERATOR_TYPE', { title: true }],
  ['FILTER_OPERATOR_TYPE', { title: Number.NaN }],
  ['FILTER_UNKNOWN_FIELD', { 'secret.$eq': 'x' }],
  ['FILTER_UNKNOWN_FIELD', { 'nope.$eq': 'x' }],
  ['FILTER_UNKNOWN_OPERATOR', { 'views.$foo': 1 }],
  ['FILTER_OPERATOR_TYPE', { title: 'nul \u0000' }],
  ['FILTER_TOO_COMPLEX', nested(MAX_FILTER_DEPTH + 1)],
  ['FILTER_TOO_COMPLEX', { $and: Array.from({ length: MAX_FILTER_CONDITIONS + 1 }, (_, i) => ({ views: i })) }],
  ['FILTER_TOO_COMPLEX', { views: { $in: Array.from({ length: MAX_IN_VALUES + 1 }, (_, i) => i) } }],
];

describe('bindFilter errors', () => {
  it.each(ERROR_CASES.map(([code, filter]) => [code, JSON.stringify(filter)?.slice(0, 80) ?? String(filter), filter] as const))(
    'answers %s for %s',
    (code, _label, filter) => {
      expect(codeOf(filter)).toBe(code);
    },
  );

  it('names the field in FILTER_UNKNOWN_FIELD and FILTER_OPERATOR_TYPE', () => {
    for (const [filter, name] of [[{ nope: 1 }, 'nope'], [{ views: 'x' }, 'views'], [{ active: { $gt: true } }, 'active']] as const) {
      try {
        bindFilter(filter, posts);
        expect.unreachable();
      } catch (error) {
        expect((error as ApiError).entries[0]!.field).toBe(name);
      }
    }
  });

  it('answers every binding error with status 400', () => {
    for (const [, filter] of ERROR_CASES) {
      try {
        bindFilter(filter, posts);
      } catch (error) {
        expect((error as ApiError).status).toBe(400);
      }
    }
  });
});

describe('bindFilter limits', () => {
  it(`accepts ${MAX_FILTER_DEPTH} levels of nesting and refuses ${MAX_FILTER_DEPTH + 1}`, () => {
    expect(codeOf(nested(MAX_FILTER_DEPTH))).toBeUndefined();
    expect(codeOf(nested(MAX_FILTER_DEPTH + 1))).toBe('FILTER_TOO_COMPLEX');
    let viaAnd: unknown = { views: 1 };
    for (let i = 1; i < MAX_FILTER_DEPTH; i++) viaAnd = { $and: [viaAnd] };
    expect(codeOf(viaAnd)).toBeUndefined();
    expect(codeOf({ $or: [viaAnd] })).toBe('FILTER_TOO_COMPLEX');
  });

  it(`accepts ${MAX_FILTER_CONDITIONS} conditions and refuses ${MAX_FILTER_CONDITIONS + 1}, however they are spread`, () => {
    const conditions = (n: number) => Array.from({ length: n }, (_, i) => ({ views: i }));
    expect(codeOf({ $and: conditions(MAX_FILTER_CONDITIONS) })).toBeUndefined();
    expect(codeOf({ $or: conditions(MAX_FILTER_CONDITIONS + 1) })).toBe('FILTER_TOO_COMPLEX');
    const half = MAX_FILTER_CONDITIONS / 2;
    // Two operators on one field are two conditions.
    const pairs = Array.from({ length: half }, (_, i) => ({ views: { $gt: i, $lt: i + 10 } }));
    expect(codeOf({ $and: pairs })).toBeUndefined();
    expect(codeOf({ $and: pairs, title: 'x' })).toBe('FILTER_TOO_COMPLEX');
  });

  it(`accepts ${MAX_IN_VALUES} values in a list and counts the list as one condition`, () => {
    const values = Array.from({ length: MAX_IN_VALUES }, (_, i) => i);
    expect(codeOf({ views: { $in: values } })).toBeUndefined();
    expect(codeOf({ views: { $notIn: values } })).toBeUndefined();
    expect(codeOf({ views: values })).toBeUndefined();
  });
});

describe('bindFilter meaning', () => {
  const views = field('views');
  const cases: [label: string, filter: unknown, node: FilterNode][] = [
    ['an empty filter is no condition', {}, { kind: 'const', value: true }],
    ['{"$and":[]} is no condition', { $and: [] }, { kind: 'const', value: true }],
    ['{"$or":[]} is no condition', { $or: [] }, { kind: 'const', value: true }],
    ['an empty operator object is no condition', { views: {} }, { kind: 'const', value: true }],
    ['a bare value means $eq', { views: 5 }, { kind: 'compare', field: views, op: 'eq', value: 5 }],
    ['a bare null means IS NULL', { views: null }, { kind: 'isNull', field: views, negate: false }],
    ['$eq null means IS NULL', { views: { $eq: null } }, { kind: 'isNull', field: views, negate: false }],
    ['$ne null means IS NOT NULL', { views: { $ne: null } }, { kind: 'isNull', field: views, negate: true }],
    ['$ne also matches NULL', { views: { $ne: 5 } }, {
      kind: 'or', items: [{ kind: 'compare', field: views, op: 'ne', value: 5 }, { kind: 'isNull', field: views, negate: false }],
    }],
    ['an empty $in matches nothing', { views: { $in: [] } }, { kind: 'const', value: false }],
    ['an empty $notIn matches everything', { views: { $notIn: [] } }, { kind: 'const', value: true }],
    ['$in [null] is IS NULL', { views: { $in: [null] } }, { kind: 'isNull', field: views, negate: false }],
    ['$notIn [null] is IS NOT NULL', { views: { $notIn: [null] } }, { kind: 'isNull', field: views, negate: true }],
    ['$in with null also matches NULL', { views: { $in: [1, null] } }, {
      kind: 'or', items: [{ kind: 'in', field: views, values: [1], negate: false }, { kind: 'isNull', field: views, negate: false }],
    }],
    ['$notIn matches NULL', { views: { $notIn: [1, 2] } }, {
      kind: 'or', items: [{ kind: 'in', field: views, values: [1, 2], negate: true }, { kind: 'isNull', field: views, negate: false }],
    }],
    ['$notIn with null excludes NULL', { views: { $notIn: [1, null] } }, {
      kind: 'and', items: [{ kind: 'in', field: views, values: [1], negate: true }, { kind: 'isNull', field: views, negate: true }],
    }],
    ['$eq with an array means IN', { views: { $eq: [1, 2] } }, { kind: 'in', field: views, values: [1, 2], negate: false }],
    ['a bare array means IN', { views: [1, 2] }, { kind: 'in', field: views, values: [1, 2], negate: false }],
    ['$eq with an empty array matches nothing', { views: { $eq: [] } }, { kind: 'const', value: false }],
    ['$ne with an empty array matches everything', { views: { $ne: [] } }, { kind: 'const', value: true }],
    ['$ne with an array means NOT IN, NULL included', { views: { $ne: [3] } }, {
      kind: 'or', items: [{ kind: 'in', field: views, values: [3], negate: true }, { kind: 'isNull', field: views, negate: false }],
    }],
    ['qs text is coerced to the field type', { views: { $gt: '5' } }, { kind: 'compare', field: views, op: 'gt', value: 5 }],
    ['qs comma text is a list', { views: { $in: '1,2' } }, { kind: 'in', field: views, values: [1, 2], negate: false }],
    ['qs indexed objects are a list', { views: { $in: { 0: '1', 1: '2' } } }, { kind: 'in', field: views, values: [1, 2], negate: false }],
    ['qs boolean text is a boolean', { active: 'true' }, { kind: 'compare', field: field('active'), op: 'eq', value: true }],
    ['qs $or as an indexed object', { $or: { 0: { views: '1' }, 1: { views: '2' } } }, {
      kind: 'or', items: [{ kind: 'compare', field: views, op: 'eq', value: 1 }, { kind: 'compare', field: views, op: 'eq', value: 2 }],
    }],
    ['several operators on one field are ANDed', { views: { $gte: 1, $lt: 9 } }, {
      kind: 'and', items: [{ kind: 'compare', field: views, op: 'gte', value: 1 }, { kind: 'compare', field: views, op: 'lt', value: 9 }],
    }],
    ['a group of one is its member', { $and: [{ views: 1 }] }, { kind: 'compare', field: views, op: 'eq', value: 1 }],
    ['a false member empties an $and', { $and: [{ views: 1 }, { views: { $in: [] } }] }, { kind: 'const', value: false }],
    ['a true member fills an $or', { $or: [{ views: 1 }, { views: { $notIn: [] } }] }, { kind: 'const', value: true }],
    ['$not wraps its condition', { $not: { views: 1 } }, { kind: 'not', item: { kind: 'compare', field: views, op: 'eq', value: 1 } }],
    ['a dotted operator key is the operator on the field', { 'views.$gt': 1 }, { kind: 'compare', field: views, op: 'gt', value: 1 }],
    ['dotted keys inside $or', { $or: [{ 'views.$eq': 1 }, { 'title.$eq': 'a' }] }, {
      kind: 'or', items: [{ kind: 'compare', field: views, op: 'eq', value: 1 }, { kind: 'compare', field: field('title'), op: 'eq', value: 'a' }],
    }],
    ['a number against a text field is its decimal text', { title: { $eq: 123 } }, { kind: 'compare', field: field('title'), op: 'eq', value: '123' }],
    ['numbers in a text $in are their decimal text', { title: { $in: [123, 1.5] } }, { kind: 'in', field: field('title'), values: ['123', '1.5'], negate: false }],
    ['a single $in value is a list of one', { views: { $in: 5 } }, { kind: 'in', field: views, values: [5], negate: false }],
    ['$in null is an empty list: nothing', { views: { $in: null } }, { kind: 'const', value: false }],
    ['$notIn null is an empty list: everything', { views: { $notIn: null } }, { kind: 'const', value: true }],
  ];
  it.each(cases)('%s', (_label, filter, node) => {
    expect(bindFilter(filter, posts)).toEqual(node);
  });

  it('parses operands to canonical values: bigint, Date, exact decimal text', () => {
    expect(bindFilter({ big: '9007199254740993' }, posts)).toMatchObject({ value: 9007199254740993n });
    expect(bindFilter({ at: '2026-01-02T05:04:05+02:00' }, posts)).toMatchObject({ value: new Date('2026-01-02T03:04:05.000Z') });
    expect(bindFilter({ price: 1.5 }, posts)).toMatchObject({ value: '1.5' });
  });
});

describe('evaluateFilter', () => {
  const item = (values: Partial<Item>): Item => ({ id: 1, title: null, views: null, big: null, price: null, active: null, at: null, day: null, ...values });
  const matches = (filter: unknown, values: Partial<Item>) => evaluateFilter(bindFilter(filter, posts), item(values));

  it('keeps bigInt neighbours beyond 2^53 apart', () => {
    expect(matches({ big: '9007199254740993' }, { big: '9007199254740993' })).toBe(true);
    expect(matches({ big: '9007199254740993' }, { big: '9007199254740992' })).toBe(false);
    expect(matches({ big: { $gt: '9007199254740992' } }, { big: '9007199254740993' })).toBe(true);
    expect(matches({ big: { $lt: 10 } }, { big: 9 })).toBe(true);
  });

  it('compares decimals by value, not by text', () => {
    expect(matches({ price: '1.5' }, { price: '1.500' })).toBe(true);
    expect(matches({ price: { $gt: '10' } }, { price: '9.000' })).toBe(false);
    expect(matches({ price: { $gt: '-10' } }, { price: '-9.500' })).toBe(true);
    expect(matches({ price: { $in: [2, '1.5'] } }, { price: '1.500' })).toBe(true);
  });

  it('is two-valued: comparisons on NULL are false, negative operators match NULL', () => {
    expect(matches({ views: { $gt: 1 } }, {})).toBe(false);
    expect(matches({ $not: { views: { $gt: 1 } } }, {})).toBe(true);
    expect(matches({ views: { $ne: 1 } }, {})).toBe(true);
    expect(matches({ views: { $notIn: [1] } }, {})).toBe(true);
    expect(matches({ views: { $notIn: [1, null] } }, {})).toBe(false);
    expect(matches({ views: { $in: [1] } }, {})).toBe(false);
  });

  it('orders strings by code point and dates as instants', () => {
    expect(matches({ title: { $lt: 'a' } }, { title: 'Z' })).toBe(true);
    expect(matches({ title: { $lt: 'é' } }, { title: 'z' })).toBe(true);
    expect(matches({ title: { $gt: '\uffff' } }, { title: '🎉' })).toBe(true);
    expect(matches({ at: { $eq: '2026-01-02T05:04:05+02:00' } }, { at: '2026-01-02T03:04:05.000Z' })).toBe(true);
  });
});

describe('bindFilter: the operators beyond comparison', () => {
  const title = field('title');
  const at = field('at');
  const day = field('day');
  const tags = field('tags');

  it('refuses operators on field types they do not fit with FILTER_OPERATOR_TYPE', () => {
    for (const filter of [
      { views: { $includes: '1' } }, { at: { $like: '2026%' } }, { title: { $dateOn: '2026' } }, { title: { $anyOf: ['a'] } },
      { active: { $between: [false, true] } }, { title: { $isTruly: true } }, { meta: { $anyOf: ['a'] } }, { tags: { $includes: 'a' } },
      { at: { $dateOn: 'soon' } }, { tags: { $anyOf: [{ a: 1 }] } }, { tags: { $match: [null] } }, { title: { $empty: 'maybe' } },
      { views: { $between: [1, 2, 3] } }, { views: { $between: [1, null] } }, { title: { $includes: { a: { b: 1 } } } },
    ]) expect(codeOf(filter), JSON.stringify(filter)).toBe('FILTER_OPERATOR_TYPE');
  });

  it('reads substring terms as canonical, distinct values and the not forms as NOT … OR NULL', () => {
    expect(bindFilter({ title: { $includes: ['a', 'a', 'b'] } }, posts)).toEqual({ kind: 'text', field: title, op: 'includes', values: ['a', 'b'] });
    expect(bindFilter({ title: { $notEndWith: 'x' } }, posts)).toEqual({
      kind: 'or', items: [{ kind: 'not', item: { kind: 'text', field: title, op: 'endsWith', values: ['x'] } }, { kind: 'isNull', field: title, negate: false }],
    });
    expect(bindFilter({ title: { $notIncludes: [] } }, posts)).toEqual({ kind: 'const', value: true });
  });

  it('binds array operands as distinct strings and numbers in canonical order', () => {
    expect(bindFilter({ tags: { $match: ['b', 1, 'a', 'b', '1'] } }, posts)).toEqual({ kind: 'array', field: tags, op: 'match', values: ['"1"', '"a"', '"b"', '1'].map((t) => JSON.parse(t)) });
    expect(bindFilter({ tags: { $match: [] } }, posts)).toEqual({ kind: 'array', field: tags, op: 'empty', values: [] });
    expect(bindFilter({ tags: { $anyOf: [] } }, posts)).toEqual({ kind: 'const', value: false });
  });

  it('turns date periods into half-open ranges, in UTC or the given zone', () => {
    expect(bindFilter({ at: { $dateOn: '2026-01' } }, posts)).toEqual({
      kind: 'and', items: [
        { kind: 'compare', field: at, op: 'gte', value: new Date('2026-01-01T00:00:00.000Z') },
        { kind: 'compare', field: at, op: 'lt', value: new Date('2026-02-01T00:00:00.000Z') },
      ],
    });
    expect(bindFilter({ at: { $dateBefore: '2026' } }, posts, parseTimeZone('+05:30'))).toEqual(
      { kind: 'compare', field: at, op: 'lt', value: new Date('2025-12-31T18:30:00.000Z') },
    );
    expect(bindFilter({ day: { $dateAfter: '2026W01' } }, posts)).toEqual({ kind: 'compare', field: day, op: 'gte', value: '2026-01-05' });
    // No bound beyond year 9999: an open range never sends an out-of-range value.
    expect(bindFilter({ at: { $dateAfter: '9999' } }, posts)).toEqual({ kind: 'const', value: false });
    expect(bindFilter({ at: { $dateNotAfter: '9999' } }, posts)).toEqual({ kind: 'const', value: true });
  });

  it('names the exceeded limit in details', () => {
    let error: unknown;
    try {
      bindFilter(nested(MAX_FILTER_DEPTH + 1), posts);
    } catch (caught) {
      error = caught;
    }
    expect((error as ApiError).entries[0]).toMatchObject({ code: 'FILTER_TOO_COMPLEX', details: { limit: 'depth', max: MAX_FILTER_DEPTH } });
  });

  it('evaluates the new operators as API.md says', () => {
    const item = (values: Partial<Item>): Item => ({ id: 1, title: null, tags: null, active: null, at: null, ...values });
    const matches = (filter: unknown, values: Partial<Item>) => evaluateFilter(bindFilter(filter, posts), item(values));
    expect(matches({ title: { $includes: 'APP' } }, { title: 'apple' })).toBe(true);
    expect(matches({ title: { $includes: 'É' } }, { title: 'é' })).toBe(false);
    expect(matches({ title: { $includes: '%' } }, { title: 'abc' })).toBe(false);
    expect(matches({ title: { $notIncludes: 'a' } }, {})).toBe(true);
    expect(matches({ title: { $like: 'a_c' } }, { title: 'abc' })).toBe(true);
    expect(matches({ title: { $like: 'A%' } }, { title: 'abc' })).toBe(false);
    expect(matches({ title: { $iLike: 'A%' } }, { title: 'abc' })).toBe(true);
    expect(matches({ title: { $like: '%\\%' } }, { title: '5%' })).toBe(true);
    expect(matches({ tags: { $anyOf: [1] } }, { tags: ['1'] })).toBe(false);
    expect(matches({ tags: { $match: ['a', 'b'] } }, { tags: ['b', 'a', 'a'] })).toBe(true);
    expect(matches({ tags: { $match: ['a'] } }, { tags: ['a', true] })).toBe(false);
    expect(matches({ tags: { $empty: true } }, { tags: [] })).toBe(true);
    expect(matches({ active: { $isFalsy: true } }, {})).toBe(true);
    expect(matches({ at: { $dateOn: '2026' } }, { at: '2026-12-31T23:59:59.999Z' })).toBe(true);
    expect(matches({ at: { $dateOn: '2026' } }, { at: '2027-01-01T00:00:00.000Z' })).toBe(false);
  });
});

describe('matchesNullRow (what a row without related rows is tested as below a path)', () => {
  it.each([
    [{ views: null }, true],
    [{ 'views.$notExists': true }, true],
    [{ title: { $empty: true } }, true],
    [{ title: { $ne: 'a' } }, true],
    [{ title: { $notIncludes: 'a' } }, true],
    [{ $not: { views: { $gt: 1 } } }, true],
    [{ views: 1 }, false],
    [{ 'views.$exists': true }, false],
    [{ title: { $includes: '' } }, false],
    [{ $and: [{ views: null }, { title: 'a' }] }, false],
    [{ $or: [{ views: null }, { title: 'a' }] }, true],
  ])('%j → %s', (filter, want) => {
    const node = bindFilter(filter, posts);
    expect(matchesNullRow(node)).toBe(want);
    // The same answer as the in-memory evaluator on an item whose every field is NULL.
    expect(evaluateFilter(node, Object.fromEntries(posts.fieldList.map((f) => [f.name, null])))).toBe(want);
  });
});
