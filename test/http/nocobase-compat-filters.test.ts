import { beforeAll, describe, expect, it } from 'vitest';
import { bindFilter } from '../../src/plan/bind-filter.js';
import { evaluateFilter } from '../../src/plan/evaluate-filter.js';
import type { Item } from '../../src/schema/collection.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';

/**
 * NocoBase's own filter tests, ported case by case (in our words) and run over HTTP on every
 * dialect: each case names the NocoBase test file (under packages/core/database/src/__tests__/
 * unless the path says otherwise) and the test's title. NocoBase builds a fresh table per test;
 * here each test's rows carry a `batch` and the case ANDs `{batch}` in, so the expected rows are
 * exactly the ones NocoBase's test expects. Scalar cases also run through the in-memory
 * evaluator (the change feed's), which must agree with the databases.
 * Deliberate differences are listed in docs/api.md, "Differences from NocoBase".
 */

const encode = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

/** Rows of one collection by batch: NocoBase's rows of one test. */
const TEXT_ROWS: Record<string, (string | null)[]> = {
  eq: ['123', '234', '345'],
  neNull: [null],
  ne: ['123', '234', '345'],
  in: [null],
  notIn: [null],
  underscore: ['names of u1'],
  two: ['u1', 'u2'],
  one: ['u1'],
  starts: ['u1', 'b1', 'c1'],
  notStarts: ['u1', 'v2', 'b1', 'b2'],
  ends: ['u1', 'b1', 'c1', 'u2'],
  empty: ['u1', ''],
  emptyOr: ['u1', '', 'u3'],
};

type Case = [source: string, batch: string, filter: unknown, names: (string | null)[]];

/** Cases on a `string` field `name`. */
const TEXT_CASES: Case[] = [
  ['operator/eq.test.ts: should eq with array (an array)', 'eq', { 'name.$eq': ['123', '234'] }, ['123', '234']],
  ['operator/eq.test.ts: should eq with array (one value)', 'eq', { 'name.$eq': '123' }, ['123']],
  ['operator/eq.test.ts: should eq with array (no match)', 'eq', { 'name.$eq': '456' }, []],
  ['operator/ne.test.ts: should ne with null', 'neNull', { 'name.$ne': '123' }, [null]],
  ['operator/ne.test.ts: compare with null', 'neNull', { 'name.$ne': null }, []],
  ['operator/ne.test.ts: should ne with array', 'ne', { 'name.$ne': ['123', '234'] }, ['345']],
  ['operator/in.test.ts: in with null should not throw error (it matches nothing)', 'in', { 'name.$in': null }, []],
  ['operator/notIn.test.ts: should notIn with null', 'notIn', { 'name.$notIn': ['123'] }, [null]],
  ['operator/string-operator.test.ts: should escape underscore in include operator', 'underscore', { 'name.$includes': '_' }, []],
  ['operator/string-operator.test.ts: should query with include operator with array values', 'two', { 'name.$includes': ['u1', 'u2'] }, ['u1', 'u2']],
  ['operator/string-operator.test.ts: should query $notIncludes with array values', 'two', { 'name.$notIncludes': ['u1', 'u2'] }, []],
  ['operator/string-operator.test.ts: should query $notIncludes', 'one', { 'name.$notIncludes': 'u1' }, []],
  ['operator/string-operator.test.ts: should query $startsWith', 'starts', { 'name.$startsWith': ['u', 'b'] }, ['u1', 'b1']],
  ['operator/string-operator.test.ts: should query $notStartsWith', 'notStarts', { 'name.$notStartsWith': ['u', 'v'] }, ['b1', 'b2']],
  ['operator/string-operator.test.ts: should query $endWith', 'ends', { 'name.$endWith': ['1'] }, ['u1', 'b1', 'c1']],
  ['operator/string-operator.test.ts: should query $notEndWith', 'ends', { 'name.$notEndWith': ['1'] }, ['u2']],
  ['operator/string-operator.test.ts: should query with include operator', 'underscore', { 'name.$includes': 'u1' }, ['names of u1']],
  ['operator/string-operator.test.ts: should query with and', 'underscore', { $and: [{ 'name.$includes': 'u1' }] }, ['names of u1']],
  ['operator/empty-operator.test.ts: string field empty', 'empty', { 'name.$empty': true }, ['']],
  ['operator/empty-operator.test.ts: string empty with or operator', 'emptyOr', { $or: [{ 'name.$empty': true }, { name: 'u1' }] }, ['u1', '']],
  // Issue 24: NocoBase's SQL comparison reads a number against a text column as its text.
  ['issue 24: a number against a string field', 'eq', { name: { $eq: 123 } }, ['123']],
  ['issue 24: numbers in $in against a string field', 'eq', { name: { $in: [123, 345] } }, ['123', '345']],
  ['issue 24: a single $in value', 'eq', { 'name.$in': 234 }, ['234']],
  ['issue 24: dotted keys mixed with the nested form', 'eq', { $or: [{ 'name.$eq': '123' }, { name: { $eq: '345' } }] }, ['123', '345']],
  ['issue 24: a dotted key and a nested operator on one field', 'eq', { 'name.$ne': '123', name: { $ne: '234' } }, ['345']],
  ['issue 24: $notIn null is the empty list: every row', 'eq', { 'name.$notIn': null }, ['123', '234', '345']],
  // Deliberate differences (docs/api.md): every negative operator matches NULL.
  ['difference: $ne with an array also matches NULL (NocoBase: NOT IN)', 'neNull', { 'name.$ne': ['123'] }, [null]],
  ['difference: $notIncludes also matches NULL (NocoBase: NOT LIKE)', 'neNull', { 'name.$notIncludes': '1' }, [null]],
];

const ARRAY_ROWS: Record<string, { name: string; selected: unknown }[]> = {
  base: [{ name: 't1', selected: ['1', '2', 'a', 'b'] }, { name: 't2', selected: ['11', '22', 'aa', 'bb', 'cc'] }],
  withNull: [{ name: 't1', selected: ['1', '2', 'a', 'b'] }, { name: 't2', selected: ['11', '22', 'aa', 'bb', 'cc'] }, { name: 't3', selected: null }],
  withEmpty: [{ name: 't1', selected: ['1', '2', 'a', 'b'] }, { name: 't2', selected: ['11', '22', 'aa', 'bb', 'cc'] }, { name: 't3', selected: [] }],
};

/** Cases on an `array` field `selected` (operator/array-operator.test.ts). */
const ARRAY_CASES: Case[] = [
  ['$match', 'base', { 'selected.$match': ['2', '1', 'a', 'b'] }, ['t1']],
  ['$match with $and', 'base', { $and: [{ selected: { $match: ['2', '1', 'a', 'b'] } }] }, ['t1']],
  ['$notMatch', 'base', { 'selected.$notMatch': ['1', '2', 'a', 'b'] }, ['t2']],
  ['$anyOf with $and', 'base', { $and: [{ 'selected.$anyOf': ['aa'] }] }, ['t2']],
  ['$anyOf', 'base', { 'selected.$anyOf': ['aa'] }, ['t2']],
  ['$anyOf with string', 'base', { 'selected.$anyOf': 'aa' }, ['t2']],
  ['$anyOf with multiple items', 'base', { 'selected.$anyOf': ['aa', 'a', '1'] }, ['t1', 't2']],
  ['$noneOf', 'base', { 'selected.$noneOf': ['aa'] }, ['t1']],
  ['$noneOf with string', 'base', { 'selected.$noneOf': 'aa' }, ['t1']],
  ['$noneOf with null', 'withNull', { 'selected.$noneOf': ['a', 'aa', '1'] }, ['t3']],
  ['$empty', 'withEmpty', { 'selected.$empty': true }, ['t3']],
  ['$notEmpty', 'withEmpty', { 'selected.$notEmpty': true }, ['t1', 't2']],
];

/** Cases on a `boolean` field `activated` (operator/boolean-operator.test.ts), rows false and true. */
const BOOLEAN_CASES: [title: string, filter: unknown, want: boolean[]][] = [
  ['should query $isFalsy', { 'activated.$isFalsy': true }, [false]],
  ['should query $isTruly', { 'activated.$isTruly': true }, [true]],
];

for (const dialect of DIALECTS) {
  describe(`NocoBase filter cases on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let api: TestApi;

    /** The items of `collection` matching `filter` within `batch`; the evaluator must agree. */
    async function matching(collection: string, batch: string, filter: unknown): Promise<Item[]> {
      const scoped = { $and: [{ batch }, filter] };
      const reply = await api.get(`/api/${collection}:list?paginate=false&sort=id&filter=${encode(scoped)}`);
      expect(reply.status, reply.text).toBe(200);
      const items = reply.body.data as Item[];
      const all = (await api.get(`/api/${collection}:list?paginate=false&sort=id`)).body.data as Item[];
      const node = bindFilter(scoped, ctx.built.schema.snapshot.get(collection)!);
      expect(all.filter((item) => evaluateFilter(node, item)).map((item) => item.id)).toEqual(items.map((item) => item.id));
      const count = await api.get(`/api/${collection}:count?filter=${encode(scoped)}`);
      expect(count.body.data).toBe(items.length);
      return items;
    }

    beforeAll(async () => {
      api = ctx.api;
      await api.collection({ name: 'texts', fields: [{ name: 'name', type: 'string' }, { name: 'batch', type: 'string' }] });
      await api.collection({ name: 'picks', fields: [{ name: 'name', type: 'string' }, { name: 'selected', type: 'array' }, { name: 'batch', type: 'string' }] });
      await api.collection({ name: 'switches', fields: [{ name: 'activated', type: 'boolean' }, { name: 'batch', type: 'string' }] });
      const texts = Object.entries(TEXT_ROWS).flatMap(([batch, names]) => names.map((name) => ({ name, batch })));
      const picks = Object.entries(ARRAY_ROWS).flatMap(([batch, rows]) => rows.map((row) => ({ ...row, batch })));
      for (const [collection, rows] of [['texts', texts], ['picks', picks], ['switches', [{ activated: false, batch: 'b' }, { activated: true, batch: 'b' }]]] as const) {
        const created = await api.post(`/api/${collection}:create`, rows);
        expect(created.status, created.text).toBe(201);
      }
    });

    it.each(TEXT_CASES)('%s', async (_source, batch, filter, names) => {
      expect((await matching('texts', batch, filter)).map((item) => item.name)).toEqual(names);
    });

    it.each(ARRAY_CASES)('operator/array-operator.test.ts: %s', async (_title, batch, filter, names) => {
      expect((await matching('picks', batch, filter)).map((item) => item.name)).toEqual(names);
    });

    it.each(BOOLEAN_CASES)('operator/boolean-operator.test.ts: %s', async (_title, filter, want) => {
      expect((await matching('switches', 'b', filter)).map((item) => item.activated)).toEqual(want);
    });

    it('operator/array-operator.test.ts: array field update ($match follows an update)', async () => {
      const created = await api.post('/api/picks:create', [{ name: 'p0', batch: 'update' }, { name: 'p1', selected: ['t1', 't2'], batch: 'update' }]);
      const p1 = (created.body.data as Item[])[1]!.id;
      expect((await matching('picks', 'update', { 'selected.$match': ['t2', 't1'] })).map((item) => item.name)).toEqual(['p1']);
      expect((await api.post(`/api/picks:update?filterByTk=${p1}`, { selected: ['t3', 't2'] })).status).toBe(200);
      expect((await matching('picks', 'update', { 'selected.$match': ['t3', 't2'] })).map((item) => item.name)).toEqual(['p1']);
    });

    it('filter.test.ts: should filter by field in camel case ($notEmpty on an array field)', async () => {
      await api.collection({ name: 'leads', fields: [{ name: 'referralSource', type: 'array' }] });
      expect((await api.post('/api/leads:create', { referralSource: ['a', 'b'] })).status).toBe(201);
      const reply = await api.get(`/api/leads:count?filter=${encode({ $and: [{ referralSource: { $notEmpty: true } }] })}`);
      expect(reply.body.data).toBe(1);
    });

    it('refuses what no field or operator names with 400 (NocoBase answers 500)', async () => {
      for (const [filter, code] of [
        [{ 'nope.$eq': 1 }, 'FILTER_UNKNOWN_FIELD'],
        [{ 'name.nope': 1 }, 'FILTER_UNKNOWN_FIELD'],
        [{ 'name.$nope': 1 }, 'FILTER_UNKNOWN_OPERATOR'],
        [{ 'name.$eq': true }, 'FILTER_OPERATOR_TYPE'],
        [{ 'name.$in': { a: { b: 1 } } }, 'FILTER_OPERATOR_TYPE'],
      ] as const) {
        const reply = await api.get(`/api/texts:list?filter=${encode(filter)}`);
        expect(reply.status, JSON.stringify(filter)).toBe(400);
        expect(reply.body.errors[0].code).toBe(code);
      }
    });
  });
}
