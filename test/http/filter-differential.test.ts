import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { bindFilter } from '../../src/plan/bind-filter.js';
import { parseTimeZone } from '../../src/plan/time-zone.js';
import { filterToSql } from '../../src/sql/filter-sql.js';
import { evaluateFilter } from '../../src/plan/evaluate-filter.js';
import type { Collection, Item } from '../../src/schema/collection.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';

/**
 * Differential test of the filter compiler: random filters from a fixed seed, each run by the
 * database and by the in-memory evaluator over the same items; the id sets must be equal on
 * every dialect. A failure names the seed, the filter's index and the filter itself.
 *
 * Reproduce or search longer: CORRAL_FILTER_SEED=<seed> (default below), CORRAL_FILTER_RUNS=<n>
 * (fast-check cases per dialect, default 200), CORRAL_FILTER_PATH=<path> (replay the one case
 * fast-check printed), CORRAL_FILTER_SHRINK=1 (shrink a failure to a smaller filter).
 */

const SEED = Number(process.env.CORRAL_FILTER_SEED ?? 0x5eed2026);
const ROWS = 60;
const FILTERS = 150;
/** Property runs per dialect for the every-operator test; raise it to search longer. */
const RUNS = Number(process.env.CORRAL_FILTER_RUNS ?? 200);
/** fast-check's replay path of a failure (printed with the seed), to rerun just that case. */
const REPLAY_PATH = process.env.CORRAL_FILTER_PATH;
/** Room for longer runs on a busy machine: 100 ms per generated filter, 60 s at least. */
const PROPERTY_TIMEOUT = Math.max(60_000, RUNS * 100);

/** mulberry32: a tiny deterministic PRNG, enough to make reproducible cases. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Random {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

function random(seed: number): Random {
  const next = mulberry32(seed);
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return { next, int, pick: (items) => items[int(0, items.length - 1)]!, chance: (p) => next() < p };
}

const COLLECTION = {
  name: 'things',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'views', type: 'integer' },
    { name: 'score', type: 'double' },
    { name: 'active', type: 'boolean' },
    { name: 'at', type: 'date' },
    { name: 'day', type: 'dateOnly' },
  ],
};

/** Value pools shared by the rows and the filter operands, so filters hit and miss alike. */
const NAMES = ['apple', 'Apple', 'APPLE', 'banana', 'Banana', 'cherry', '', ' ', 'é', 'e', 'Zed', 'zed', 'a', 'ab', 'b', '🎉', 'Ä'];
const VIEWS = [-100, -5, -1, 0, 1, 2, 3, 5, 8, 13, 2147483647, -2147483648];
const SCORES = [-2.5, -0.5, 0, 0.1, 0.5, 1, 1.25, 2.5, 1e10];
const INSTANTS = [
  '2026-01-01T00:00:00.000Z', '2026-01-01T12:30:00.000Z', '2026-01-02T03:04:05.123Z', '2026-01-02T03:04:05.124Z',
  '2025-12-31T23:59:59.999Z', '2026-06-15T08:00:00.000Z', '1999-01-01T00:00:00.000Z',
];
const DAYS = ['2026-01-01', '2026-01-02', '2025-12-31', '2024-02-29', '2026-06-15'];

/** Every dialect gets the same pool, trailing spaces included (MySQL tables use a NO PAD collation). */
const namesFor = (_dialect: string): readonly string[] => NAMES;

type FieldName = 'name' | 'views' | 'score' | 'active' | 'at' | 'day';
const FIELD_NAMES: FieldName[] = ['name', 'views', 'score', 'active', 'at', 'day'];

/** A value for a row; NULL where the column allows it. */
function rowValue(r: Random, field: FieldName, names: readonly string[]): unknown {
  if (field !== 'day' && r.chance(0.2)) return null;
  switch (field) {
    case 'name': return r.pick(names);
    case 'views': return r.pick(VIEWS);
    case 'score': return r.pick(SCORES);
    case 'active': return r.chance(0.5);
    case 'at': return r.pick(INSTANTS);
    case 'day': return r.pick(DAYS);
  }
}

/** A filter operand for a field, sometimes in another accepted spelling of the same value. */
function operand(r: Random, field: FieldName, names: readonly string[]): unknown {
  switch (field) {
    case 'name': return r.chance(0.1) ? 'absent' : r.pick(names);
    case 'views': {
      const views = r.pick(VIEWS);
      // Off by one now and then (within int32), or as the text qs would deliver.
      return r.chance(0.1) ? String(views) : views < 2147483647 && r.chance(0.2) ? views + 1 : views;
    }
    case 'score': return r.chance(0.1) ? -1 : r.pick(SCORES);
    case 'active': return r.chance(0.1) ? r.pick(['true', 'false', '1', '0']) : r.chance(0.5);
    case 'at': {
      const instant = r.pick(INSTANTS);
      // The same instant with an offset, or a bare day (midnight UTC).
      if (r.chance(0.15)) return new Date(instant).toISOString().slice(0, 10);
      if (r.chance(0.15)) {
        const shifted = new Date(new Date(instant).getTime() + 2 * 3600_000).toISOString().slice(0, 23);
        return `${shifted}+02:00`;
      }
      return instant;
    }
    case 'day': return r.chance(0.1) ? '2026-01-03' : r.pick(DAYS);
  }
}

function operandList(r: Random, field: FieldName, names: readonly string[]): unknown[] {
  const list = Array.from({ length: r.int(0, 4) }, () => operand(r, field, names));
  if (r.chance(0.25)) list.splice(r.int(0, list.length), 0, null);
  return list;
}

const ORDERED_OPS = ['$gt', '$gte', '$lt', '$lte'] as const;

function fieldCondition(r: Random, field: FieldName, names: readonly string[]): unknown {
  const roll = r.next();
  if (roll < 0.1) return r.chance(0.2) ? null : operand(r, field, names); // bare value = $eq
  const conditions: Record<string, unknown> = {};
  for (let n = r.int(1, r.chance(0.2) ? 2 : 1); n > 0; n--) {
    const ops = field === 'active' ? ['$eq', '$ne', '$in', '$notIn'] : ['$eq', '$ne', '$in', '$notIn', ...ORDERED_OPS];
    const op = r.pick(ops);
    if (op === '$in' || op === '$notIn') conditions[op] = operandList(r, field, names);
    else if (op === '$eq' || op === '$ne') {
      const kind = r.next();
      conditions[op] = kind < 0.15 ? null : kind < 0.3 ? operandList(r, field, names) : operand(r, field, names);
    } else conditions[op] = operand(r, field, names);
  }
  return conditions;
}

function makeFilter(r: Random, depth: number, names: readonly string[]): Record<string, unknown> {
  const roll = r.next();
  if (depth < 3 && roll < 0.45) {
    const kind = r.pick(['$and', '$or', '$not'] as const);
    if (kind === '$not') return { $not: makeFilter(r, depth + 1, names) };
    const items = Array.from({ length: r.int(kind === '$or' && r.chance(0.1) ? 0 : 1, 3) }, () => makeFilter(r, depth + 1, names));
    return { [kind]: items };
  }
  // One or more fields side by side: an implicit AND.
  const filter: Record<string, unknown> = {};
  for (let n = r.int(1, 2); n > 0; n--) {
    const field = r.pick(FIELD_NAMES);
    filter[field] = fieldCondition(r, field, names);
  }
  return filter;
}

/*
 * Every operator: a second collection whose rows sit on the edges the operators care about
 * (NULL, '', mixed case, `%` and `_`, instants and days on period boundaries, arrays with
 * strings, numbers, "1" beside 1, [] and NULL), and fast-check filters over all of them.
 */

const WIDGETS = {
  name: 'widgets',
  fields: [
    { name: 'label', type: 'string', searchable: true },
    { name: 'note', type: 'text', searchable: true },
    { name: 'rank', type: 'integer' },
    { name: 'on', type: 'boolean' },
    { name: 'at', type: 'date' },
    { name: 'day', type: 'dateOnly' },
    { name: 'tags', type: 'array' },
  ],
};

const LABELS = [null, '', ' ', 'a', 'A', 'apple', 'Apple', 'APPLE PIE', '100%', '10', 'a_b', 'aXb', 'x\\y', '%_', 'é', 'É', 'École', 'zed', 'Z', '🎉'];
const NOTES = [null, '', 'line\nbreak', 'Red fruit', 'red', 'dessert%', 'under_score', 'ÉCOLE', 'école'];
const RANKS = [null, -5, 0, 1, 2, 3, 10, 100];
const AT_EDGES = [
  null, '2025-12-31T23:59:59.999Z', '2026-01-01T00:00:00.000Z', '2026-01-01T00:59:59.999Z', '2026-01-01T01:00:00.000Z',
  '2026-03-31T23:59:59.999Z', '2026-04-01T00:00:00.000Z', '2026-01-25T23:59:59.999Z', '2026-01-26T00:00:00.000Z',
  '2026-02-01T10:30:00.000Z', '2026-02-01T10:30:59.999Z', '2026-12-31T23:59:59.999Z', '2027-01-01T00:00:00.000Z',
  '2026-01-15T10:00:00.000Z', '1000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z',
];
const DAY_EDGES = [null, '2025-12-28', '2025-12-29', '2025-12-31', '2026-01-01', '2026-01-04', '2026-01-05', '2026-01-25', '2026-01-26', '2026-03-31', '2026-04-01', '2026-12-31', '2027-01-03', '2027-01-04'];
const ELEMENTS: readonly (string | number)[] = ['a', 'A', 'b', '1', 1, 2, '%', ''];
const TAG_SETS: readonly (readonly (string | number)[] | null)[] = [null, [], ['a'], ['A'], ['a', 'b'], ['b', 'a', 'a'], ['1'], [1], [1, 2], ['1', 1], ['%', ''], ['a', 'A', 'b', '1', 1, 2]];

/** Widget rows from the seed: every pool value at least once, then random combinations. */
function widgetRows(seed: number): Record<string, unknown>[] {
  const r = random(seed);
  const rows: Record<string, unknown>[] = [];
  const longest = Math.max(LABELS.length, NOTES.length, RANKS.length, AT_EDGES.length, DAY_EDGES.length, TAG_SETS.length);
  for (let i = 0; i < longest + 40; i++) {
    const at = <T>(pool: readonly T[]): T => (i < longest ? pool[i % pool.length]! : r.pick(pool));
    rows.push({
      label: at(LABELS), note: at(NOTES), rank: at(RANKS), on: r.pick([null, true, false]),
      at: at(AT_EDGES), day: at(DAY_EDGES), tags: at(TAG_SETS),
    });
  }
  return rows;
}

const TERMS = ['a', 'A', 'p', 'PP', 'pie', '%', '_', '\\', '0%', '10', 'é', 'É', 'cole', '', ' ', 'a_b', 'x\\y', '\n', '🎉', 'absent'];
const PATTERNS = ['a%', 'A%', '%a', '%E', '%\\%', '_', '__', '%_%', 'a\\_b', 'a_b', '%b_', 'x\\\\y', '%é%', '%É%', '*', '?', '[a]%', 'line%', '%\n%', '%', ''];
const PERIODS = [
  '2025', '2026', '2027', '1000', '9999', '2026Q1', '2026Q2', '2026Q4', '2026W01', '2026W04', '2026W05', '2026W53', '2025-12', '2026-01',
  '2026-03', '2025-12-31', '2026-01-01', '2026-01-26', '2026-01-01T00', '2026-03-31T23', '2026-02-01T10:30', '2026-01-15T10:00:00Z',
  '2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00+01:00', '2025-12-31T23:59:59.999Z',
];
/** `$search` texts over label and note: whole words, prefixes, case and accents, no words at all, and misses. */
const SEARCHES = ['apple', 'APPLE pie', 'app', 'pie apple', 'red', 'red fruit', 'ecole', 'ÉCOLE', 'cole', 'a', 'a b', 'b a', '100', '10', 'line break', 'under', 'score', 'dessert', 'z', 'zed', '', '%', '🎉', 'e', 'x y', 'absent'];
const TEXT_OPS = ['$includes', '$notIncludes', '$startsWith', '$notStartsWith', '$endsWith', '$notEndsWith', '$endWith', '$notEndWith'];
const LIKE_OPS = ['$like', '$notLike', '$iLike', '$notILike'];
const DATE_OPS = ['$dateOn', '$dateNotOn', '$dateBefore', '$dateNotBefore', '$dateAfter', '$dateNotAfter', '$dateBetween'];
const ARRAY_OPS = ['$anyOf', '$noneOf', '$match', '$notMatch'];

const flagArb = fc.constantFrom<unknown>(true, true, false, 'true', '');
const one = (op: string, value: fc.Arbitrary<unknown>) => value.map((operand) => ({ [op]: operand }));

const periodArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PERIODS) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PERIODS), fc.constantFrom(...PERIODS)) },
);

/** One condition on one field: `{field: {op: operand}}`. */
const conditionArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ label: fc.oneof(
    fc.constantFrom(...TEXT_OPS).chain((op) => one(op, fc.oneof(fc.constantFrom(...TERMS), fc.array(fc.constantFrom(...TERMS), { maxLength: 3 })))),
    fc.constantFrom(...LIKE_OPS).chain((op) => one(op, fc.constantFrom(...PATTERNS))),
    fc.constantFrom('$empty', '$notEmpty', '$exists', '$notExists').chain((op) => one(op, flagArb)),
    // null means IS NULL for $eq / $ne; the comparisons take a value.
    fc.constantFrom('$eq', '$ne', '$gt', '$lte').chain((op) => one(op, fc.constantFrom(...(op === '$eq' || op === '$ne' ? LABELS : LABELS.slice(1))))),
    fc.constantFrom('$in', '$notIn').chain((op) => one(op, fc.array(fc.constantFrom(...LABELS), { maxLength: 3 }))),
  ) }),
  fc.record({ note: fc.oneof(
    fc.constantFrom(...TEXT_OPS).chain((op) => one(op, fc.constantFrom(...TERMS))),
    fc.constantFrom(...LIKE_OPS).chain((op) => one(op, fc.constantFrom(...PATTERNS))),
    fc.constantFrom('$empty', '$notEmpty').chain((op) => one(op, flagArb)),
  ) }),
  fc.record({ rank: fc.oneof(
    fc.constantFrom('$between', '$notBetween').chain((op) => one(op, fc.tuple(fc.constantFrom(...RANKS.slice(1)), fc.constantFrom(...RANKS.slice(1))))),
    fc.constantFrom('$empty', '$notEmpty', '$exists', '$notExists').chain((op) => one(op, flagArb)),
    fc.constantFrom('$ne', '$gte', '$notIn').chain((op) => one(op, op === '$notIn' ? fc.array(fc.constantFrom(...RANKS), { maxLength: 3 }) : fc.constantFrom(...RANKS.slice(1)))),
  ) }),
  fc.record({ on: fc.constantFrom('$isTruly', '$isFalsy', '$empty', '$notEmpty').chain((op) => one(op, flagArb)) }),
  fc.record({ $search: fc.constantFrom(...SEARCHES) }),
  fc.record({ at: fc.constantFrom(...DATE_OPS).chain((op) => one(op, periodArb)) }),
  fc.record({ day: fc.constantFrom(...DATE_OPS).chain((op) => one(op, periodArb)) }),
  fc.record({ tags: fc.oneof(
    fc.constantFrom(...ARRAY_OPS).chain((op) => one(op, fc.subarray([...ELEMENTS]))),
    fc.constantFrom('$arrayEmpty', '$arrayNotEmpty', '$empty', '$notEmpty').chain((op) => one(op, flagArb)),
  ) }),
);

/** Zones for date periods: offsets either side of UTC, and IANA zones with and without DST. */
const ZONES = ['+00:00', '+02:00', '-05:00', '+05:45', '+14:00', '-12:00', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe'];

/** Date conditions only, nested: the part of a filter a time zone changes. */
const dateConditionArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ at: fc.constantFrom(...DATE_OPS).chain((op) => one(op, periodArb)) }),
  fc.record({ day: fc.constantFrom(...DATE_OPS).chain((op) => one(op, periodArb)) }),
);
const dateFilterArb = fc.oneof(
  { weight: 3, arbitrary: dateConditionArb },
  { weight: 1, arbitrary: fc.array(dateConditionArb, { minLength: 1, maxLength: 3 }).map((items) => ({ $or: items })) },
  { weight: 1, arbitrary: dateConditionArb.map((item) => ({ $not: item })) },
);

/** Conditions nested in $and / $or / $not, a few levels deep. */
const { filter: filterArb } = fc.letrec<{ filter: Record<string, unknown> }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: conditionArb },
    { weight: 1, arbitrary: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map((items) => ({ $and: items })) },
    { weight: 1, arbitrary: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map((items) => ({ $or: items })) },
    { weight: 1, arbitrary: tie('filter').map((item) => ({ $not: item })) },
  ),
}));

const encode = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

const ids = (items: readonly Item[]): number[] => items.map((item) => item.id as number).sort((a, b) => a - b);

for (const dialect of DIALECTS) {
  describe(`filters agree with the in-memory evaluator on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const names = namesFor(dialect);
    let api: TestApi;
    let collection: Collection;
    let items: Item[];

    const expected = (filter: unknown): number[] => {
      const node = bindFilter(filter, collection);
      return ids(items.filter((item) => evaluateFilter(node, item)));
    };
    const listIds = async (query: string): Promise<number[]> => {
      const reply = await api.get(`/api/things:list?paginate=false&${query}`);
      expect(reply.status, `${query}: ${reply.text}`).toBe(200);
      return ids(reply.body.data as Item[]);
    };

    beforeAll(async () => {
      api = ctx.api;
      await api.collection(COLLECTION);
      const r = random(SEED);
      const rows = Array.from({ length: ROWS }, () => Object.fromEntries(FIELD_NAMES.map((field) => [field, rowValue(r, field, names)])));
      const created = await api.post('/api/things:create', rows);
      expect(created.status, created.text).toBe(201);
      collection = ctx.built.schema.snapshot.get('things')!;
      items = (await api.get('/api/things:list?paginate=false')).body.data as Item[];
      expect(items).toHaveLength(ROWS);
    });

    it(`returns the evaluator's rows for ${FILTERS} random filters (seed ${SEED})`, async () => {
      const r = random(SEED + 1);
      const failures: string[] = [];
      let nonTrivial = 0;
      for (let index = 0; index < FILTERS; index++) {
        const filter = makeFilter(r, 0, names);
        const want = expected(filter);
        if (want.length > 0 && want.length < ROWS) nonTrivial++;
        const got = await listIds(`filter=${encode(filter)}`);
        if (JSON.stringify(got) !== JSON.stringify(want)) {
          const missing = want.filter((id) => !got.includes(id));
          const extra = got.filter((id) => !want.includes(id));
          failures.push(`seed ${SEED} filter #${index}: ${JSON.stringify(filter)}\n  missing ids ${JSON.stringify(missing)}, extra ids ${JSON.stringify(extra)}`);
        }
      }
      expect(failures, failures.join('\n')).toEqual([]);
      // The generator must exercise something: most filters should split the rows.
      expect(nonTrivial).toBeGreaterThan(FILTERS / 3);
    });

    it('counts what it lists for the same random filters', async () => {
      const r = random(SEED + 2);
      for (let index = 0; index < 30; index++) {
        const filter = makeFilter(r, 0, names);
        const count = await api.get(`/api/things:count?filter=${encode(filter)}`);
        expect(count.body.data, `seed ${SEED} count filter #${index}: ${JSON.stringify(filter)}`).toBe(expected(filter).length);
      }
    });

    it('caches every query shape the random filters produced, refusing none', async () => {
      // Each shape's parameters are checked against Kysely's on first compile; a refusal would
      // mean the plan and the SQL disagree on parameter order.
      const stats = ctx.built.store.shapes.stats(collection);
      expect(stats.refused).toBe(0);
      expect(stats.cached).toBeGreaterThan(20);
    });

    /** [qs nested form, the same filter in JSON]; values in the qs form arrive as strings. */
    const QS_CASES: [string, unknown][] = [
      ['filter[views][$gt]=5', { views: { $gt: 5 } }],
      ['filter[views][$lte]=-1', { views: { $lte: -1 } }],
      ['filter[views]=3', { views: 3 }],
      ['filter[views][$in][]=1&filter[views][$in][]=2&filter[views][$in][]=-5', { views: { $in: [1, 2, -5] } }],
      ['filter[views][$notIn][0]=0&filter[views][$notIn][1]=1', { views: { $notIn: [0, 1] } }],
      ['filter[views][$in]=1,2,3', { views: { $in: [1, 2, 3] } }],
      ['filter[views]', { views: null }],
      ['filter[views][$ne]', { views: { $ne: null } }],
      ['filter[score][$gte]=1.25', { score: { $gte: 1.25 } }],
      ['filter[score][$lt]=0', { score: { $lt: 0 } }],
      ['filter[active]=true', { active: true }],
      ['filter[active]=0', { active: false }],
      ['filter[active][$ne]=1', { active: { $ne: true } }],
      ['filter[name]=apple', { name: 'apple' }],
      ['filter[name][$gte]=a&filter[name][$lt]=b', { name: { $gte: 'a', $lt: 'b' } }],
      ['filter[at][$lt]=2026-01-02T03:04:05.124Z', { at: { $lt: '2026-01-02T03:04:05.124Z' } }],
      [`filter[at][$gte]=${encodeURIComponent('2026-01-02T05:04:05.123+02:00')}`, { at: { $gte: '2026-01-02T03:04:05.123Z' } }],
      ['filter[day][$lte]=2026-01-01', { day: { $lte: '2026-01-01' } }],
      ['filter[$or][0][views][$lt]=0&filter[$or][1][name]=apple', { $or: [{ views: { $lt: 0 } }, { name: 'apple' }] }],
      ['filter[$and][0][views][$gte]=0&filter[$and][1][$not][active]=true', { $and: [{ views: { $gte: 0 } }, { $not: { active: true } }] }],
      ['filter[name][$includes]=APP', { name: { $includes: 'APP' } }],
      ['filter[name][$notIncludes][]=a&filter[name][$notIncludes][]=b', { name: { $notIncludes: ['a', 'b'] } }],
      ['filter[name][$startsWith]=a,b', { name: { $startsWith: 'a,b' } }],
      ['filter[name][$iLike]=%25E', { name: { $iLike: '%E' } }],
      ['filter[name][$empty]', { name: { $empty: true } }],
      ['filter[active][$isFalsy]=true', { active: { $isFalsy: true } }],
      ['filter[views][$between][]=0&filter[views][$between][]=5', { views: { $between: [0, 5] } }],
      ['filter[views][$notBetween]=0,5', { views: { $notBetween: [0, 5] } }],
      ['filter[at][$dateOn]=2026-01', { at: { $dateOn: '2026-01' } }],
      ['filter[day][$dateBetween][0]=2025-12-31&filter[day][$dateBetween][1]=2026-01-01', { day: { $dateBetween: ['2025-12-31', '2026-01-01'] } }],
      ['filter[at][$dateNotBefore]=2026W01', { at: { $dateNotBefore: '2026W01' } }],
    ];
    for (const [query, json] of QS_CASES) {
      it(`coerces the qs nested form ${decodeURIComponent(query)}`, async () => {
        const want = expected(json);
        expect(await listIds(query)).toEqual(want);
        expect(await listIds(`filter=${encode(json)}`)).toEqual(want);
      });
    }

    it('refuses qs values that do not parse for the field with 400 FILTER_OPERATOR_TYPE', async () => {
      for (const query of ['filter[views][$gt]=abc', 'filter[active]=maybe', 'filter[at][$lt]=2026-02-30', 'filter[score]=x1']) {
        const reply = await api.get(`/api/things:list?${query}`);
        expect(reply.status, query).toBe(400);
        expect(reply.body.errors[0].code, query).toBe('FILTER_OPERATOR_TYPE');
      }
    });
  });

  describe(`every filter operator agrees with the in-memory evaluator on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let collection: Collection;
    let items: Item[];

    beforeAll(async () => {
      await ctx.api.collection(WIDGETS);
      const created = await ctx.api.post('/api/widgets:create', widgetRows(SEED));
      expect(created.status, created.text).toBe(201);
      collection = ctx.built.schema.snapshot.get('widgets')!;
      items = (await ctx.api.get('/api/widgets:list?paginate=false')).body.data as Item[];
    });

    it(`returns the evaluator's rows for ${RUNS} generated filters (seed ${SEED}; CORRAL_FILTER_SEED, CORRAL_FILTER_RUNS, CORRAL_FILTER_PATH)`, async () => {
      let nonTrivial = 0;
      await fc.assert(
        fc.asyncProperty(filterArb, async (filter) => {
          const node = bindFilter(filter, collection);
          const want = ids(items.filter((item) => evaluateFilter(node, item)));
          if (want.length > 0 && want.length < items.length) nonTrivial++;
          const reply = await ctx.api.get(`/api/widgets:list?paginate=false&filter=${encode(filter)}`);
          expect(reply.status, reply.text).toBe(200);
          const got = ids(reply.body.data as Item[]);
          const missing = want.filter((id) => !got.includes(id));
          const extra = got.filter((id) => !want.includes(id));
          expect({ missing, extra }, `${dialect}: ${JSON.stringify(filter)}`).toEqual({ missing: [], extra: [] });
        }),
        { seed: SEED, numRuns: RUNS, ...(REPLAY_PATH === undefined ? {} : { path: REPLAY_PATH }), endOnFailure: process.env.CORRAL_FILTER_SHRINK === undefined },
      );
      if (REPLAY_PATH === undefined) expect(nonTrivial).toBeGreaterThan(RUNS / 3);
      // Every operator's parameters matched Kysely's, so each shape went into the query cache.
      expect(ctx.built.store.shapes.stats(collection).refused).toBe(0);
    }, PROPERTY_TIMEOUT);

    it(`reads date periods in any time zone alike (${Math.ceil(RUNS / 2)} generated filters, seed ${SEED})`, async () => {
      // Bound with the zone and run through the compiler directly: the same binder and SQL a
      // request with X-Timezone reaches.
      const { db } = ctx.built.database;
      await fc.assert(
        fc.asyncProperty(dateFilterArb, fc.constantFrom(...ZONES), async (filter, zoneName) => {
          const node = bindFilter(filter, collection, parseTimeZone(zoneName));
          const want = ids(items.filter((item) => evaluateFilter(node, item)));
          const rows = await db.selectFrom('widgets').select('id').where((eb) => filterToSql(node, eb, dialect, 'widgets')).execute();
          const got = rows.map((row) => Number(row.id)).sort((a, b) => a - b);
          expect(got, `${dialect} in ${zoneName}: ${JSON.stringify(filter)}`).toEqual(want);
        }),
        { seed: SEED, numRuns: Math.ceil(RUNS / 2), ...(REPLAY_PATH === undefined ? {} : { path: REPLAY_PATH }), endOnFailure: process.env.CORRAL_FILTER_SHRINK === undefined },
      );
    }, PROPERTY_TIMEOUT);
  });
}
