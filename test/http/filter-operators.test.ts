import { beforeAll, describe, expect, it } from 'vitest';
import { bindFilter } from '../../src/plan/bind-filter.js';
import { evaluateFilter } from '../../src/plan/evaluate-filter.js';
import type { Collection, Item } from '../../src/schema/collection.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';

/**
 * Every filter operator of API.md §5 over HTTP, with its NULL, empty, case and wildcard edges,
 * on every dialect. Each case names the ids it must return; the in-memory evaluator must agree.
 */

const COLLECTION = {
  name: 'gadgets',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'body', type: 'text' },
    { name: 'views', type: 'integer' },
    { name: 'active', type: 'boolean' },
    { name: 'at', type: 'date' },
    { name: 'day', type: 'dateOnly' },
    { name: 'tags', type: 'array' },
    { name: 'meta', type: 'json' },
  ],
};

/** Rows get ids 1..n in this order. */
const ROWS = [
  /* 1 */ { name: 'Apple', body: 'Red fruit', views: 1, active: true, at: '2026-01-01T00:00:00.000Z', day: '2026-01-01', tags: ['red', 'fruit'] },
  /* 2 */ { name: 'apple pie', body: 'dessert', views: 5, active: false, at: '2025-12-31T23:59:59.999Z', day: '2025-12-31', tags: ['Fruit', 'sweet'] },
  /* 3 */ { name: '100%', body: '', views: 10, active: null, at: '2026-03-31T23:00:00.000Z', day: '2026-03-31', tags: [] },
  /* 4 */ { name: 'a_b', body: null, views: null, active: true, at: '2026-04-01T00:00:00.000Z', day: '2026-04-01', tags: [1, 2] },
  /* 5 */ { name: 'x\\y', body: 'line\nbreak', views: -3, active: false, at: '2026-01-26T12:00:00.000Z', day: '2026-01-26', tags: ['1'] },
  /* 6 */ { name: '', body: 'École', views: 0, active: null, at: null, day: null, tags: null },
  /* 7 */ { name: null, body: 'école ÉCOLE', views: 7, active: true, at: '2026-02-01T10:30:00.000Z', day: '2026-02-01', tags: ['red'] },
  /* 8 */ { name: 'ABC', body: 'abc%', views: 3, active: null, at: '2027-01-01T00:00:00.000Z', day: '2027-01-01', tags: ['sweet', 'red', 'fruit'] },
];

type Case = [label: string, filter: unknown, ids: number[]];

const CASES: Case[] = [
  // Equality, comparison, membership, ranges.
  ['$eq', { views: { $eq: 5 } }, [2]],
  ['$ne matches NULL', { views: { $ne: 5 } }, [1, 3, 4, 5, 6, 7, 8]],
  ['$between is inclusive', { views: { $between: [1, 5] } }, [1, 2, 8]],
  ['$notBetween matches NULL', { views: { $notBetween: [1, 5] } }, [3, 4, 5, 6, 7]],
  ['$notIn matches NULL', { views: { $notIn: [1, 5] } }, [3, 4, 5, 6, 7, 8]],
  // Substrings: case-insensitive (ASCII), wildcards literal, NULL only for the not forms.
  ['$includes folds ASCII case', { name: { $includes: 'APP' } }, [1, 2]],
  ['$includes reads % literally', { name: { $includes: '%' } }, [3]],
  ['$includes reads _ literally', { name: { $includes: '_' } }, [4]],
  ['$includes reads \\ literally', { name: { $includes: '\\' } }, [5]],
  ['$includes an empty term matches every non-NULL value', { name: { $includes: '' } }, [1, 2, 3, 4, 5, 6, 8]],
  ['$includes with a list ORs the terms', { name: { $includes: ['pie', 'abc'] } }, [2, 8]],
  ['$includes with an empty list matches nothing', { name: { $includes: [] } }, []],
  ['$notIncludes matches NULL', { name: { $notIncludes: 'apple' } }, [3, 4, 5, 6, 7, 8]],
  ['$notIncludes with a list ANDs the terms', { name: { $notIncludes: ['apple', 'b'] } }, [3, 5, 6, 7]],
  ['$startsWith', { name: { $startsWith: 'a' } }, [1, 2, 4, 8]],
  ['$startsWith reads % literally', { name: { $startsWith: '10%' } }, []],
  ['$startsWith a term ending in %', { name: { $startsWith: '100%' } }, [3]],
  ['$notStartsWith matches NULL', { name: { $notStartsWith: 'a' } }, [3, 5, 6, 7]],
  ['$endsWith', { name: { $endsWith: 'PIE' } }, [2]],
  ['$endWith is an alias', { name: { $endWith: 'le' } }, [1]],
  ['$notEndsWith matches NULL', { name: { $notEndsWith: 'e' } }, [3, 4, 5, 6, 7, 8]],
  ['$notEndWith is an alias', { name: { $notEndWith: 'e' } }, [3, 4, 5, 6, 7, 8]],
  ['non-ASCII letters compare exactly', { body: { $includes: 'école' } }, [7]],
  ['non-ASCII upper case is not folded', { body: { $includes: 'ÉCOLE' } }, [6, 7]],
  ['$includes finds a newline', { body: { $includes: 'e\nb' } }, [5]],
  ['$endsWith on text ignores no trailing newline', { body: { $endsWith: 'line' } }, []],
  // Raw patterns.
  ['$like is case-sensitive', { name: { $like: 'a%' } }, [2, 4]],
  ['$like _ is one character', { name: { $like: 'a_b' } }, [4]],
  ['$like \\ escapes a wildcard', { name: { $like: '%\\%' } }, [3]],
  ['$like * and ? are literal', { name: { $like: '*' } }, []],
  ['$iLike folds ASCII case', { name: { $iLike: 'a%' } }, [1, 2, 4, 8]],
  ['$notLike matches NULL', { name: { $notLike: 'a%' } }, [1, 3, 5, 6, 7, 8]],
  ['$notILike matches NULL', { name: { $notILike: '%E' } }, [3, 4, 5, 6, 7, 8]],
  ['$like on text spans a newline with %', { body: { $like: 'line%' } }, [5]],
  // Empty and presence.
  ['$empty on a string is NULL or empty', { name: { $empty: true } }, [6, 7]],
  ['$notEmpty on a string', { name: { $notEmpty: true } }, [1, 2, 3, 4, 5, 8]],
  ['$empty on text', { body: { $empty: true } }, [3, 4]],
  ['$empty on an array is NULL or []', { tags: { $empty: true } }, [3, 6]],
  ['$notEmpty on an array', { tags: { $notEmpty: true } }, [1, 2, 4, 5, 7, 8]],
  ['$empty on a number is NULL', { views: { $empty: true } }, [4]],
  ['$empty on json is NULL', { meta: { $empty: true } }, [1, 2, 3, 4, 5, 6, 7, 8]],
  ['$exists on a field is NOT NULL', { views: { $exists: true } }, [1, 2, 3, 5, 6, 7, 8]],
  ['$notExists on a field is NULL', { views: { $notExists: true } }, [4]],
  ['$isTruly', { active: { $isTruly: true } }, [1, 4, 7]],
  ['$isFalsy is false or NULL', { active: { $isFalsy: true } }, [2, 3, 5, 6, 8]],
  // Date periods on a date field (UTC).
  ['$dateOn a year', { at: { $dateOn: '2026' } }, [1, 3, 4, 5, 7]],
  ['$dateOn a quarter ends before its last instant plus one', { at: { $dateOn: '2026Q1' } }, [1, 3, 5, 7]],
  ['$dateOn an ISO week (Monday 2026-01-26 to Sunday 2026-02-01)', { at: { $dateOn: '2026W05' } }, [5, 7]],
  ['$dateOn a month', { at: { $dateOn: '2026-01' } }, [1, 5]],
  ['$dateOn a day', { at: { $dateOn: '2025-12-31' } }, [2]],
  ['$dateOn an hour', { at: { $dateOn: '2026-02-01T10' } }, [7]],
  ['$dateOn a minute', { at: { $dateOn: '2026-02-01T10:30' } }, [7]],
  ['$dateOn a minute that misses', { at: { $dateOn: '2026-02-01T10:31' } }, []],
  ['$dateOn an instant', { at: { $dateOn: '2025-12-31T23:59:59.999Z' } }, [2]],
  ['$dateOn an instant with an offset', { at: { $dateOn: '2026-01-01T01:00:00.000+01:00' } }, [1]],
  ['$dateOn [from, to] spans both', { at: { $dateOn: ['2026-01', '2026-02'] } }, [1, 5, 7]],
  ['$dateBetween', { at: { $dateBetween: ['2025-12-31', '2026-01-01'] } }, [1, 2]],
  ['$dateNotOn matches NULL', { at: { $dateNotOn: '2026' } }, [2, 6, 8]],
  ['$dateBefore is before the start', { at: { $dateBefore: '2026' } }, [2]],
  ['$dateNotBefore matches NULL', { at: { $dateNotBefore: '2026' } }, [1, 3, 4, 5, 6, 7, 8]],
  ['$dateAfter is after the end', { at: { $dateAfter: '2026Q1' } }, [4, 8]],
  ['$dateNotAfter matches NULL', { at: { $dateNotAfter: '2026Q1' } }, [1, 2, 3, 5, 6, 7]],
  ['$dateOn year 9999 has no upper bound to send', { at: { $dateOn: '9999' } }, []],
  ['$dateNotBefore year 1000 is every present value and NULL', { at: { $dateNotBefore: '1000' } }, [1, 2, 3, 4, 5, 6, 7, 8]],
  // Date periods on a dateOnly field.
  ['dateOnly $dateOn a month', { day: { $dateOn: '2026-01' } }, [1, 5]],
  ['dateOnly $dateOn a quarter', { day: { $dateOn: '2026Q1' } }, [1, 3, 5, 7]],
  ['dateOnly $dateOn an hour is its day', { day: { $dateOn: '2026-02-01T10' } }, [7]],
  ['dateOnly $dateOn an instant is its UTC day', { day: { $dateOn: '2026-01-01T01:00:00+02:00' } }, [2]],
  ['dateOnly $dateAfter', { day: { $dateAfter: '2026-03' } }, [4, 8]],
  ['dateOnly $dateNotOn matches NULL', { day: { $dateNotOn: '2026' } }, [2, 6, 8]],
  // Arrays.
  ['$anyOf overlaps', { tags: { $anyOf: ['red', 'sweet'] } }, [1, 2, 7, 8]],
  ['$anyOf is case-sensitive', { tags: { $anyOf: ['fruit'] } }, [1, 8]],
  ['$anyOf tells numbers from strings', { tags: { $anyOf: [1] } }, [4]],
  ['$anyOf a string "1"', { tags: { $anyOf: ['1'] } }, [5]],
  ['$anyOf an empty list matches nothing', { tags: { $anyOf: [] } }, []],
  ['$noneOf matches NULL', { tags: { $noneOf: ['red'] } }, [2, 3, 4, 5, 6]],
  ['$match is the same set, any order', { tags: { $match: ['fruit', 'red'] } }, [1]],
  ['$match with a repeated value', { tags: { $match: ['red', 'red'] } }, [7]],
  ['$match numbers', { tags: { $match: [2, 1] } }, [4]],
  ['$match [] is the empty array', { tags: { $match: [] } }, [3]],
  ['$notMatch matches NULL', { tags: { $notMatch: ['red'] } }, [1, 2, 3, 4, 5, 6, 8]],
  ['$arrayEmpty', { tags: { $arrayEmpty: true } }, [3]],
  ['$arrayNotEmpty', { tags: { $arrayNotEmpty: true } }, [1, 2, 4, 5, 7, 8]],
  // Combined.
  ['$not of a negative operator', { $not: { name: { $notIncludes: 'apple' } } }, [1, 2]],
  ['$or of families', { $or: [{ tags: { $anyOf: [1] } }, { at: { $dateOn: '2027' } }] }, [4, 8]],
];

/** [filter, error code]: each must answer 400 with the code. */
const ERRORS: [unknown, string][] = [
  [{ views: { $includes: '1' } }, 'FILTER_OPERATOR_TYPE'],
  [{ name: { $anyOf: ['a'] } }, 'FILTER_OPERATOR_TYPE'],
  [{ name: { $dateOn: '2026' } }, 'FILTER_OPERATOR_TYPE'],
  [{ at: { $dateOn: '2026-13' } }, 'FILTER_OPERATOR_TYPE'],
  [{ at: { $dateOn: '2025W53' } }, 'FILTER_OPERATOR_TYPE'],
  [{ at: { $dateOn: '0999' } }, 'FILTER_OPERATOR_TYPE'],
  [{ active: { $gt: true } }, 'FILTER_OPERATOR_TYPE'],
  [{ name: { $isTruly: true } }, 'FILTER_OPERATOR_TYPE'],
  [{ tags: { $eq: ['a'] } }, 'FILTER_OPERATOR_TYPE'],
  [{ tags: { $anyOf: [true] } }, 'FILTER_OPERATOR_TYPE'],
  [{ views: { $between: [1] } }, 'FILTER_OPERATOR_TYPE'],
  [{ name: { $like: 5 } }, 'FILTER_OPERATOR_TYPE'],
  [{ name: { $contains: 'a' } }, 'FILTER_UNKNOWN_OPERATOR'],
];

const encode = (value: unknown): string => encodeURIComponent(JSON.stringify(value));
const sorted = (ids: number[]): number[] => [...ids].sort((a, b) => a - b);

for (const dialect of DIALECTS) {
  describe(`filter operators on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let api: TestApi;
    let collection: Collection;
    let items: Item[];

    beforeAll(async () => {
      api = ctx.api;
      await api.collection(COLLECTION);
      const created = await api.post('/api/gadgets:create', ROWS);
      expect(created.status, created.text).toBe(201);
      collection = ctx.built.schema.snapshot.get('gadgets')!;
      items = (await api.get('/api/gadgets:list?paginate=false&sort=id')).body.data as Item[];
    });

    it.each(CASES)('%s', async (_label, filter, want) => {
      const reply = await api.get(`/api/gadgets:list?paginate=false&filter=${encode(filter)}`);
      expect(reply.status, reply.text).toBe(200);
      expect(sorted((reply.body.data as Item[]).map((item) => item.id as number))).toEqual(want);
      const node = bindFilter(filter, collection);
      expect(items.filter((item) => evaluateFilter(node, item)).map((item) => item.id)).toEqual(want);
      const count = await api.get(`/api/gadgets:count?filter=${encode(filter)}`);
      expect(count.body.data).toBe(want.length);
    });

    it.each(ERRORS)('refuses %j with 400', async (filter, code) => {
      const reply = await api.get(`/api/gadgets:list?filter=${encode(filter)}`);
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.errors[0].code).toBe(code);
    });

    it('refuses an X-Timezone that is no zone with 400 PARAM_INVALID', async () => {
      for (const zone of ['Mars/Olympus', '+25:00', 'yesterday', '+05:60']) {
        const reply = await api.request('GET', '/api/gadgets:list', undefined, { 'x-timezone': zone });
        expect(reply.status, zone).toBe(400);
        expect(reply.body.errors[0]).toMatchObject({ code: 'PARAM_INVALID', field: 'X-Timezone' });
      }
      for (const zone of ['Europe/Berlin', '+05:30', '-08:00', 'UTC']) {
        expect((await api.request('GET', '/api/gadgets:list', undefined, { 'x-timezone': zone })).status, zone).toBe(200);
      }
    });

    it('applies every operator family across an association path', async () => {
      await api.collection({ name: 'makers', fields: [{ name: 'label', type: 'string' }, { name: 'founded', type: 'date' }, { name: 'codes', type: 'array' }] });
      await api.collection({ name: 'parts', fields: [{ name: 'title', type: 'string' }, { name: 'maker', type: 'belongsTo' }] });
      const makers = await api.post('/api/makers:create', [
        { label: 'Acme_Co', founded: '2026-01-15T10:00:00.000Z', codes: ['x', 1] },
        { label: 'Zeta', founded: null, codes: [] },
      ]);
      expect(makers.status, makers.text).toBe(201);
      const parts = await api.post('/api/parts:create', [
        { title: 'bolt', maker: 1 }, { title: 'nut', maker: 2 }, { title: 'gear', maker: null },
      ]);
      expect(parts.status, parts.text).toBe(201);
      const partIds = async (filter: unknown) => {
        const reply = await api.get(`/api/parts:list?paginate=false&filter=${encode(filter)}`);
        expect(reply.status, reply.text).toBe(200);
        return sorted((reply.body.data as Item[]).map((item) => item.id as number));
      };
      expect(await partIds({ 'maker.label': { $includes: 'CO' } })).toEqual([1]);
      expect(await partIds({ maker: { label: { $like: '%\\_%' } } })).toEqual([1]);
      // A part without a maker is tested as made by a maker of NULLs (a LEFT JOIN, as NocoBase
      // reads paths): the negative operators, which match NULL, match it.
      expect(await partIds({ 'maker.label': { $notIncludes: 'co' } })).toEqual([2, 3]);
      expect(await partIds({ 'maker.founded': { $dateOn: '2026W03' } })).toEqual([1]);
      expect(await partIds({ 'maker.founded': { $dateNotOn: '2026' } })).toEqual([2, 3]);
      expect(await partIds({ 'maker.label': { $empty: true } })).toEqual([3]);
      expect(await partIds({ 'maker.codes': { $anyOf: [1] } })).toEqual([1]);
      expect(await partIds({ 'maker.codes': { $arrayEmpty: true } })).toEqual([2]);
      expect(await partIds({ maker: { $notExists: true } })).toEqual([3]);
    });
  });
}
