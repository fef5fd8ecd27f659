import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { bindFilter } from '../../src/plan/bind-filter.js';
import { parseTimeZone } from '../../src/request/time-zone.js';
import { filterToSql } from '../../src/sql/filter-sql.js';
import { evaluateFilter } from '../../src/plan/evaluate-filter.js';
import type { Collection, Item } from '../../src/schema/collection.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';
import { dateFilterArb, filterArb, random, widgetRows, WIDGETS, ZONES, type Random } from '../support/filter-arbitraries.js';

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
