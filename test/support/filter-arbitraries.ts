import fc from 'fast-check';

/**
 * Generators shared by the filter tests: a seeded PRNG, and the fast-check filters over every
 * operator on the `widgets` collection (test/http/filter-differential.test.ts runs them against
 * the in-memory evaluator; test/sql/filter-key.test.ts checks their shape keys).
 */

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

export interface Random {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export function random(seed: number): Random {
  const next = mulberry32(seed);
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return { next, int, pick: (items) => items[int(0, items.length - 1)]!, chance: (p) => next() < p };
}

/*
 * Every operator: a second collection whose rows sit on the edges the operators care about
 * (NULL, '', mixed case, `%` and `_`, instants and days on period boundaries, arrays with
 * strings, numbers, "1" beside 1, [] and NULL), and fast-check filters over all of them.
 */

export const WIDGETS = {
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

export const LABELS = [null, '', ' ', 'a', 'A', 'apple', 'Apple', 'APPLE PIE', '100%', '10', 'a_b', 'aXb', 'x\\y', '%_', 'é', 'É', 'École', 'zed', 'Z', '🎉'];
const NOTES = [null, '', 'line\nbreak', 'Red fruit', 'red', 'dessert%', 'under_score', 'ÉCOLE', 'école'];
const RANKS = [null, -5, 0, 1, 2, 3, 10, 100];
const AT_EDGES = [
  null, '2025-12-31T23:59:59.999Z', '2026-01-01T00:00:00.000Z', '2026-01-01T00:59:59.999Z', '2026-01-01T01:00:00.000Z',
  '2026-03-31T23:59:59.999Z', '2026-04-01T00:00:00.000Z', '2026-01-25T23:59:59.999Z', '2026-01-26T00:00:00.000Z',
  '2026-02-01T10:30:00.000Z', '2026-02-01T10:30:59.999Z', '2026-12-31T23:59:59.999Z', '2027-01-01T00:00:00.000Z',
  '2026-01-15T10:00:00.000Z', '1000-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z',
];
const DAY_EDGES = [null, '2025-12-28', '2025-12-29', '2025-12-31', '2026-01-01', '2026-01-04', '2026-01-05', '2026-01-25', '2026-01-26', '2026-03-31', '2026-04-01', '2026-12-31', '2027-01-03', '2027-01-04'];
export const ELEMENTS: readonly (string | number)[] = ['a', 'A', 'b', '1', 1, 2, '%', ''];
const TAG_SETS: readonly (readonly (string | number)[] | null)[] = [null, [], ['a'], ['A'], ['a', 'b'], ['b', 'a', 'a'], ['1'], [1], [1, 2], ['1', 1], ['%', ''], ['a', 'A', 'b', '1', 1, 2]];

/** Widget rows from the seed: every pool value at least once, then random combinations. */
export function widgetRows(seed: number): Record<string, unknown>[] {
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

export const TERMS = ['a', 'A', 'p', 'PP', 'pie', '%', '_', '\\', '0%', '10', 'é', 'É', 'cole', '', ' ', 'a_b', 'x\\y', '\n', '🎉', 'absent'];
const PATTERNS = ['a%', 'A%', '%a', '%E', '%\\%', '_', '__', '%_%', 'a\\_b', 'a_b', '%b_', 'x\\\\y', '%é%', '%É%', '*', '?', '[a]%', 'line%', '%\n%', '%', ''];
const PERIODS = [
  '2025', '2026', '2027', '1000', '9999', '2026Q1', '2026Q2', '2026Q4', '2026W01', '2026W04', '2026W05', '2026W53', '2025-12', '2026-01',
  '2026-03', '2025-12-31', '2026-01-01', '2026-01-26', '2026-01-01T00', '2026-03-31T23', '2026-02-01T10:30', '2026-01-15T10:00:00Z',
  '2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00+01:00', '2025-12-31T23:59:59.999Z',
];
/** `$search` texts over label and note: whole words, prefixes, case and accents, no words at all, and misses. */
export const SEARCHES = ['apple', 'APPLE pie', 'app', 'pie apple', 'red', 'red fruit', 'ecole', 'ÉCOLE', 'cole', 'a', 'a b', 'b a', '100', '10', 'line break', 'under', 'score', 'dessert', 'z', 'zed', '', '%', '🎉', 'e', 'x y', 'absent'];
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
export const conditionArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
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
export const ZONES = ['+00:00', '+02:00', '-05:00', '+05:45', '+14:00', '-12:00', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe'];

/** Date conditions only, nested: the part of a filter a time zone changes. */
const dateConditionArb: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ at: fc.constantFrom(...DATE_OPS).chain((op) => one(op, periodArb)) }),
  fc.record({ day: fc.constantFrom(...DATE_OPS).chain((op) => one(op, periodArb)) }),
);
export const dateFilterArb = fc.oneof(
  { weight: 3, arbitrary: dateConditionArb },
  { weight: 1, arbitrary: fc.array(dateConditionArb, { minLength: 1, maxLength: 3 }).map((items) => ({ $or: items })) },
  { weight: 1, arbitrary: dateConditionArb.map((item) => ({ $not: item })) },
);

/** Conditions nested in $and / $or / $not, a few levels deep. */
export const { filter: filterArb } = fc.letrec<{ filter: Record<string, unknown> }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: conditionArb },
    { weight: 1, arbitrary: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map((items) => ({ $and: items })) },
    { weight: 1, arbitrary: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }).map((items) => ({ $or: items })) },
    { weight: 1, arbitrary: tie('filter').map((item) => ({ $not: item })) },
  ),
}));
