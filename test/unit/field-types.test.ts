import { describe, expect, it } from 'vitest';
import { FIELD_TYPES } from '../../src/schema/field-types/index.js';
import type { Dialect, FieldDef, ScalarType } from '../../src/schema/types.js';
import { MAX_JSON_DEPTH } from '../../src/schema/field-types/json-type.js';

/**
 * Pure tables for the field types whose values change shape between client, driver and wire.
 * `fromDb` rows use what each driver really hands back with Corral's settings (SQLite safe
 * integers, pg with the DATE parser off, mysql2 with dateStrings and bigNumberStrings).
 */

const def = (type: ScalarType, options: Partial<FieldDef> = {}): FieldDef => ({ name: 'v', type, allowNull: true, unique: false, index: false, ...options });
const DIALECTS: Dialect[] = ['sqlite', 'postgres', 'mysql'];

function parse(type: ScalarType, value: unknown, options: Partial<FieldDef> = {}): unknown {
  const parsed = FIELD_TYPES[type].parse(value, def(type, options));
  return parsed.ok ? parsed.value : Symbol.for('refused');
}
const REFUSED = Symbol.for('refused');

type ParseRow = [sent: unknown, canonical: unknown];

function parseTable(type: ScalarType, rows: ParseRow[], options: Partial<FieldDef> = {}): void {
  it.each(rows.map(([sent, canonical]) => [String(JSON.stringify(sent) ?? sent), canonical === REFUSED ? 'refused' : String(canonical), sent, canonical] as const))(
    'parses %s to %s',
    (_label, _expected, sent, canonical) => {
      expect(parse(type, sent, options)).toEqual(canonical);
    },
  );
}

describe('bigInt', () => {
  parseTable('bigInt', [
    [0, 0n],
    [42, 42n],
    [-42, -42n],
    [9007199254740991, 9007199254740991n],
    ['9007199254740993', 9007199254740993n],
    ['-9223372036854775808', -9223372036854775808n],
    ['9223372036854775807', 9223372036854775807n],
    ['9223372036854775808', REFUSED],
    ['-9223372036854775809', REFUSED],
    [9007199254740992, REFUSED],
    [1.5, REFUSED],
    ['1.5', REFUSED],
    ['1e3', REFUSED],
    ['', REFUSED],
    [' 1', REFUSED],
    [true, REFUSED],
  ]);

  it('binds a bigint on SQLite and decimal text on the servers', () => {
    expect(FIELD_TYPES.bigInt.toDb(9007199254740993n, 'sqlite')).toBe(9007199254740993n);
    expect(FIELD_TYPES.bigInt.toDb(9007199254740993n, 'postgres')).toBe('9007199254740993');
    expect(FIELD_TYPES.bigInt.toDb(-5n, 'mysql')).toBe('-5');
  });

  it.each([
    [42n, 42],
    [-9007199254740991n, -9007199254740991],
    [9007199254740992n, '9007199254740992'],
    ['9007199254740993', '9007199254740993'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['12', 12],
    [7, 7],
  ] as const)('decodes driver value %s to %s on every dialect', (raw, wire) => {
    for (const dialect of DIALECTS) expect(FIELD_TYPES.bigInt.fromDb(raw, dialect, def('bigInt'))).toBe(wire);
  });
});

describe('decimal (precision 6, scale 2)', () => {
  const options = { precision: 6, scale: 2 };
  parseTable('decimal', [
    ['1.5', '1.5'],
    [1.25, '1.25'],
    ['-0.01', '-0.01'],
    ['1234.56', '1234.56'],
    ['0001234.5', '0001234.5'],
    [0, '0'],
    ['12345.6', REFUSED],
    ['1.234', REFUSED],
    ['1e3', REFUSED],
    [1e21, REFUSED],
    ['.5', REFUSED],
    ['1.', REFUSED],
    ['+1', REFUSED],
    ['abc', REFUSED],
    [Number.NaN, REFUSED],
    [true, REFUSED],
  ], options);

  it('binds the exact text on every dialect', () => {
    for (const dialect of DIALECTS) expect(FIELD_TYPES.decimal.toDb('1234.5', dialect)).toBe('1234.5');
  });

  it.each([
    ['sqlite', 1.5, 2, '1.50'],
    ['sqlite', -0.25, 2, '-0.25'],
    // SQLite's NUMERIC affinity stores integral values as INTEGER: bigint with safe integers on.
    ['sqlite', 2n, 2, '2.00'],
    ['sqlite', 0n, 2, '0.00'],
    ['sqlite', -3n, 3, '-3.000'],
    ['sqlite', 9223372036854775807n, 4, '9223372036854775807.0000'],
    ['sqlite', 5n, 0, '5'],
    ['sqlite', 1e21, 2, '1000000000000000000000.00'],
    ['postgres', '1.50', 2, '1.50'],
    ['mysql', '-0.25', 2, '-0.25'],
  ] as const)('decodes %s driver value %s at scale %s to %s', (dialect, raw, scale, wire) => {
    expect(FIELD_TYPES.decimal.fromDb(raw, dialect, def('decimal', { precision: 30, scale }))).toBe(wire);
  });
});

describe('date', () => {
  parseTable('date', [
    ['2026-01-02T03:04:05.000Z', new Date('2026-01-02T03:04:05.000Z')],
    ['2026-01-02T05:04:05+02:00', new Date('2026-01-02T03:04:05.000Z')],
    ['2026-01-02T05:04:05+0200', new Date('2026-01-02T03:04:05.000Z')],
    ['2026-01-01T22:04:05-05:00', new Date('2026-01-02T03:04:05.000Z')],
    ['2026-01-02T03:04:05', new Date('2026-01-02T03:04:05.000Z')],
    ['2026-01-02T03:04', new Date('2026-01-02T03:04:00.000Z')],
    ['2026-01-02', new Date('2026-01-02T00:00:00.000Z')],
    ['2024-02-29', new Date('2024-02-29T00:00:00.000Z')],
    ['2026-01-02T03:04:05.123456789Z', new Date('2026-01-02T03:04:05.123Z')],
    [0, new Date(0)],
    ['2026-02-29', REFUSED],
    ['2026-02-30T00:00:00Z', REFUSED],
    ['2026-04-31', REFUSED],
    ['2026-13-01', REFUSED],
    ['2026-00-10', REFUSED],
    ['2026-01-00', REFUSED],
    ['2026-01-02T24:00:00Z', REFUSED],
    ['2026-01-02T23:60:00Z', REFUSED],
    ['2026-01-02T23:59:60Z', REFUSED],
    ['2026-01-02T03:04:05+24:00', REFUSED],
    ['0999-12-31T23:59:59Z', REFUSED],
    ['2026-01-02 03:04:05', REFUSED],
    ['yesterday', REFUSED],
    [Number.POSITIVE_INFINITY, REFUSED],
    [8.64e15 + 1, REFUSED],
    [true, REFUSED],
  ]);

  const instant = new Date('2026-01-02T03:04:05.120Z');
  it('binds ISO text on SQLite and PostgreSQL, DATETIME(3) text on MySQL', () => {
    expect(FIELD_TYPES.date.toDb(instant, 'sqlite')).toBe('2026-01-02T03:04:05.120Z');
    expect(FIELD_TYPES.date.toDb(instant, 'postgres')).toBe('2026-01-02T03:04:05.120Z');
    expect(FIELD_TYPES.date.toDb(instant, 'mysql')).toBe('2026-01-02 03:04:05.120');
  });

  it.each([
    ['sqlite', '2026-01-02T03:04:05.120Z'],
    ['postgres', instant],
    ['mysql', '2026-01-02 03:04:05.120'],
  ] as const)('decodes the %s driver value to ISO UTC with milliseconds', (dialect, raw) => {
    expect(FIELD_TYPES.date.fromDb(raw, dialect, def('date'))).toBe('2026-01-02T03:04:05.120Z');
  });
});

describe('dateOnly', () => {
  parseTable('dateOnly', [
    ['2026-01-02', '2026-01-02'],
    ['2024-02-29', '2024-02-29'],
    ['1000-01-01', '1000-01-01'],
    ['9999-12-31', '9999-12-31'],
    ['2026-02-29', REFUSED],
    ['2100-02-29', REFUSED],
    ['2026-02-30', REFUSED],
    ['2026-1-2', REFUSED],
    ['2026-01-02T00:00:00Z', REFUSED],
    ['0999-12-31', REFUSED],
    [20260102, REFUSED],
  ]);

  it.each([
    ['sqlite', '2026-01-02'],
    ['postgres', '2026-01-02'],
    ['mysql', '2026-01-02'],
    ['postgres', new Date('2026-01-02T00:00:00.000Z')],
  ] as const)('decodes the %s driver value %s to YYYY-MM-DD', (dialect, raw) => {
    expect(FIELD_TYPES.dateOnly.fromDb(raw, dialect, def('dateOnly'))).toBe('2026-01-02');
  });
});

describe('time', () => {
  parseTable('time', [
    ['10:30', '10:30:00'],
    ['00:00:00', '00:00:00'],
    ['23:59:59', '23:59:59'],
    ['24:00', REFUSED],
    ['10:60', REFUSED],
    ['10:30:60', REFUSED],
    ['9:30', REFUSED],
    ['10:30:00.5', REFUSED],
    [1030, REFUSED],
  ]);

  it('decodes driver text with or without fractions to HH:MM:SS', () => {
    for (const dialect of DIALECTS) {
      expect(FIELD_TYPES.time.fromDb('10:30:00', dialect, def('time'))).toBe('10:30:00');
      expect(FIELD_TYPES.time.fromDb('10:30:00.000000', dialect, def('time'))).toBe('10:30:00');
    }
  });
});

describe('boolean', () => {
  parseTable('boolean', [
    [true, true],
    [false, false],
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
    ['yes', REFUSED],
    ['TRUE', REFUSED],
    [1, REFUSED],
    [0, REFUSED],
    [[], REFUSED],
  ]);

  it.each([
    ['sqlite', 1, 0],
    ['postgres', true, false],
    ['mysql', 1, 0],
  ] as const)('binds on %s as %s / %s', (dialect, yes, no) => {
    expect(FIELD_TYPES.boolean.toDb(true, dialect)).toBe(yes);
    expect(FIELD_TYPES.boolean.toDb(false, dialect)).toBe(no);
  });

  it.each([[true, true], [1, true], [1n, true], ['1', true], [false, false], [0, false], [0n, false], ['0', false]] as const)(
    'decodes driver value %s to %s on every dialect',
    (raw, wire) => {
      for (const dialect of DIALECTS) expect(FIELD_TYPES.boolean.fromDb(raw, dialect, def('boolean'))).toBe(wire);
    },
  );
});

describe('json and array', () => {
  const VALUES: unknown[] = [{ a: 1, b: [true, null, 'x'] }, [1, 2], 'text', '', 42, -1.5, true, false, {}, [], { emoji: '🎉' }];

  it.each(VALUES.map((value) => [JSON.stringify(value), value]))('round-trips %s on every dialect', (_label, value) => {
    expect(parse('json', value)).toEqual(value);
    for (const dialect of DIALECTS) {
      const bound = FIELD_TYPES.json.toDb(value, dialect);
      expect(bound).toBe(JSON.stringify(value));
      // pg parses jsonb itself; SQLite and MySQL hand back the stored text.
      const raw = dialect === 'postgres' ? JSON.parse(bound as string) : bound;
      expect(FIELD_TYPES.json.fromDb(raw, dialect, def('json'))).toEqual(value);
    }
  });

  it('refuses text no dialect could store alike: NUL (jsonb) and lone surrogates', () => {
    expect(parse('json', { s: 'a\u0000b' })).toBe(REFUSED);
    expect(parse('json', { ['k\u0000']: 1 })).toBe(REFUSED);
    expect(parse('json', [[['\ud800']]])).toBe(REFUSED);
    expect(parse('array', ['\u0000'])).toBe(REFUSED);
    expect(parse('json', { s: '👍' })).toEqual({ s: '👍' });
  });

  it('refuses values nested 100,000 deep without overflowing the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(parse('json', deep)).toBe(REFUSED);
  });

  it(`keeps values nested up to MAX_JSON_DEPTH (${MAX_JSON_DEPTH}) levels and refuses one more`, () => {
    let deep: unknown = { leaf: 'x' };
    for (let i = 1; i < MAX_JSON_DEPTH; i++) deep = [deep];
    expect(parse('json', deep)).toBe(deep);
    expect(parse('json', [deep])).toBe(REFUSED);
  });

  it('takes only arrays for array fields', () => {
    expect(parse('array', [1, 'a'])).toEqual([1, 'a']);
    for (const value of [{ a: 1 }, 'x', 1, true]) expect(parse('array', value)).toBe(REFUSED);
  });
});

describe('string and text', () => {
  parseTable('string', [
    ['hello', 'hello'],
    ['🎉'.repeat(5), '🎉'.repeat(5)],
    ['x'.repeat(6), REFUSED],
    ['🎉'.repeat(6), REFUSED],
    ['a\u0000b', REFUSED],
    ['\ud800', REFUSED],
    ['x\udc00', REFUSED],
    ['\udc00\ud800', REFUSED],
    ['\ud83c\udf89', '🎉'],
    [5, REFUSED],
  ], { length: 5 });

  it('text has no length limit but the same character rules', () => {
    expect(parse('text', 'x'.repeat(100_000))).toBe('x'.repeat(100_000));
    expect(parse('text', 'nul\u0000')).toBe(REFUSED);
  });
});
