/** Request bodies for the fuzz suite: items of the right and wrong shape, definitions, raw text. */
import fc from 'fast-check';
import { COLLECTION_FIELDS, FIELD_NAMES, RELATION_NAMES, RESERVED_NAMES, jsonValue, keyText, oddText, scalarValue } from './value-arbitraries.js';

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

export const bodyValue = (hostile: boolean): fc.Arbitrary<unknown> =>
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

export const rawBodyText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constantFrom('{', '[1,', '{"a":}', 'null', '""', '0', 'true', '{"title":"\\ud800"}', '{"title":1}{"title":2}', '\ufeff{}', '   '),
);

/**
 * JSON nested deeper than any limit, written as text: building it as a value and calling
 * JSON.stringify would overflow this process's stack first.
 */
export const deepJsonText = fc.integer({ min: 401, max: 20_000 }).map((depth) => `{"meta":${'['.repeat(depth)}"leaf"${']'.repeat(depth)}}`);

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
export const bodyFor = (collection: string): fc.Arbitrary<unknown> => {
  const item = collection === 'people' ? fc.oneof({ weight: 4, arbitrary: personBody }, { weight: 1, arbitrary: itemBody }) : simpleBody(COLLECTION_FIELDS[collection] ?? FIELD_NAMES);
  return fc.oneof({ weight: 6, arbitrary: item }, { weight: 2, arbitrary: fc.array(item, { maxLength: 4 }) }, { weight: 1, arbitrary: bodyValue(false) }, { weight: 1, arbitrary: extremeNumbers(collection) });
};

