import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';
import { TYPED_FIELDS } from '../support/typed-fields.js';

/**
 * Values on the wire (API.md §3): what a client sends comes back the same on every dialect,
 * and what no dialect could store faithfully is refused alike. Every expectation below is
 * asserted unchanged on SQLite, PostgreSQL and MariaDB.
 */

const VALUES_COLLECTION = {
  name: 'vals',
  fields: [...TYPED_FIELDS, { name: 'wide', type: 'decimal', precision: 30, scale: 4 }, { name: 'pos', type: 'sort' }],
};

/** [field, value sent, value expected back]; `undefined` expected means "the same as sent". */
type RoundTrip = [field: string, sent: unknown, expected?: unknown];

const ROUND_TRIPS: RoundTrip[] = [
  ['s', 'hello'],
  ['s', ''],
  ['s', 'Ünïcødé 🎉'],
  ['s', '0123456789'],
  // varchar(n) counts code points: ten emoji fit in length 10 although they are 20 UTF-16 units.
  ['s', '🎉'.repeat(10)],
  ['s', ' padded  '],
  ['s', 'a\tb\nc'],
  ['s', "it's \"q\" \\"],
  ['t', 'x'.repeat(20000)],
  ['t', 'line one\nline two 👩‍👩‍👧 日本語'],
  ['i', 0],
  ['i', -1],
  ['i', 2147483647],
  ['i', -2147483648],
  ['b', 0],
  ['b', 42],
  ['b', -42],
  ['b', 9007199254740991],
  ['b', -9007199254740991],
  ['b', '12', 12],
  ['b', '9007199254740993'],
  ['b', '-9007199254740993'],
  ['b', '9223372036854775807'],
  ['b', '-9223372036854775808'],
  ['f', 1.5],
  ['f', -0.25],
  ['f', 0.1],
  ['f', 3.141592653589793],
  ['d', 0],
  ['d', 0.1],
  ['d', -123.456],
  ['d', 1e-7],
  ['d', 1.7976931348623157e308],
  ['d', 123456789012345680000],
  ['d', '2.5', 2.5],
  ['dec', '1.5', '1.500'],
  ['dec', 1.25, '1.250'],
  ['dec', '-0.001'],
  ['dec', '0', '0.000'],
  ['dec', -5, '-5.000'],
  ['dec', '123456789.123'],
  ['dec', '-999999999.999'],
  ['wide', '0.0001'],
  ['wide', '123456789012.1234'],
  ['wide', '9223372036854775807', '9223372036854775807.0000'],
  ['wide', '-9223372036854775808.0000'],
  ['bool', true],
  ['bool', false],
  ['dt', '2026-01-02T03:04:05.000Z'],
  ['dt', '2026-01-02T05:04:05+02:00', '2026-01-02T03:04:05.000Z'],
  ['dt', '2026-01-01T22:04:05-05:00', '2026-01-02T03:04:05.000Z'],
  ['dt', '2026-01-02T03:04:05Z', '2026-01-02T03:04:05.000Z'],
  ['dt', '2026-01-02T03:04:05.123Z'],
  ['dt', '2026-01-02T03:04:05.1239Z', '2026-01-02T03:04:05.123Z'],
  ['dt', '2026-01-02T03:04:05', '2026-01-02T03:04:05.000Z'],
  ['dt', '2026-01-02', '2026-01-02T00:00:00.000Z'],
  ['dt', '1999-12-31T23:59:59.999-01:00', '2000-01-01T00:59:59.999Z'],
  ['dt', '1000-01-01T00:00:00.000Z'],
  ['dt', '9999-12-31T23:59:59.999Z'],
  ['dt', 0, '1970-01-01T00:00:00.000Z'],
  ['day', '2026-01-02'],
  ['day', '2024-02-29'],
  ['day', '1000-01-01'],
  ['day', '9999-12-31'],
  ['tm', '10:30', '10:30:00'],
  ['tm', '23:59:59'],
  ['tm', '00:00:00'],
  ['j', { a: 1, b: [1, 2, { c: null }], d: 'x' }],
  ['j', [1, 'x', true, null, { y: 2 }]],
  ['j', 'just a string'],
  ['j', ''],
  ['j', 42],
  ['j', 1.5],
  ['j', -0.5],
  ['j', true],
  ['j', false],
  ['j', {}],
  ['j', []],
  ['j', { emoji: '🎉', nested: { deep: { deeper: ['ü'] } } }],
  ['arr', [1, 2, 3]],
  ['arr', []],
  ['arr', ['a', { b: 1 }, null]],
  ['u', '0f8fad5b-d9cb-469f-a165-70867728950e'],
  ['u', '0F8FAD5B-D9CB-469F-A165-70867728950E', '0f8fad5b-d9cb-469f-a165-70867728950e'],
  ['n', 'V1StGXR8_Z5jdHi6B-myT'],
  ['n', 'a'],
  ['pos', 5],
  ['pos', -3],
];

/** Decimals beyond the 15 significant digits a double holds. */
const WIDE_DECIMALS = ['12345678901234567890.1234', '-12345678901234567890.1234', '99999999999999999999999999.9999'];

/**
 * KNOWN GAP: SQLite has no exact decimal; its NUMERIC affinity keeps a fractional value as a
 * REAL, so more than 15 significant digits are rounded there. Reported to the lead; these
 * tests flip to passing (and `it.fails` then fails) once decimals are stored exactly.
 */
const exactWideDecimals = (dialect: string): boolean => dialect !== 'sqlite';

/** [field, value sent]: each must be refused with 400 VALIDATION_FAILED naming the field. */
const REFUSALS: [field: string, sent: unknown][] = [
  ['s', 12345],
  ['s', true],
  ['s', { a: 1 }],
  ['s', ['a']],
  ['s', 'x'.repeat(11)],
  ['s', '🎉'.repeat(11)],
  // PostgreSQL cannot store NUL in text and UTF-8 cannot carry a lone surrogate: refused everywhere.
  ['s', 'a\u0000b'],
  ['s', 'bad \ud800 half'],
  ['t', 5],
  ['t', ['a']],
  ['t', 'nul \u0000 inside'],
  ['i', 1.5],
  ['i', 2147483648],
  ['i', -2147483649],
  ['i', 'abc'],
  ['i', '1.5'],
  ['i', true],
  ['i', {}],
  ['i', []],
  ['b', '9223372036854775808'],
  ['b', '-9223372036854775809'],
  ['b', 1.5],
  ['b', 'abc'],
  ['b', '1e3'],
  ['b', 9007199254740992],
  ['b', true],
  ['f', 'abc'],
  ['f', '1e999'],
  ['f', true],
  ['f', [1]],
  ['d', 'NaN'],
  ['d', 'Infinity'],
  ['d', {}],
  ['dec', '1.2345'],
  ['dec', '1234567890.1'],
  ['dec', 'abc'],
  ['dec', '1e5'],
  ['dec', '1.'],
  ['dec', true],
  ['dec', 0.1 + 0.2],
  ['wide', '123456789012345678901234567'],
  ['bool', 'yes'],
  ['bool', 2],
  ['bool', []],
  ['bool', {}],
  ['dt', 'not a date'],
  ['dt', '2026-13-01T00:00:00Z'],
  ['dt', '2026-02-30T00:00:00Z'],
  ['dt', '2026-02-30'],
  ['dt', '2026-01-02T25:00:00Z'],
  ['dt', '0999-12-31T23:59:59Z'],
  ['dt', '10000-01-01T00:00:00Z'],
  ['dt', true],
  ['dt', {}],
  ['day', '2026-02-30'],
  ['day', '2026-1-2'],
  ['day', '2026-01-02T00:00:00Z'],
  ['day', '0999-12-31'],
  ['day', 20260102],
  ['tm', '24:00'],
  ['tm', '10:60'],
  ['tm', '10'],
  ['tm', 1030],
  ['j', { s: 'nul \u0000 inside' }],
  ['j', ['ok', { 'key \u0000': 1 }]],
  ['j', { deep: ['bad \udc00 half'] }],
  ['arr', ['nul \u0000']],
  ['arr', { a: 1 }],
  ['arr', 'x'],
  ['arr', 1],
  ['u', 'not-a-uuid'],
  ['u', '0f8fad5b-d9cb-469f-a165-70867728950'],
  ['u', 5],
  ['n', 'has space'],
  ['n', 'x'.repeat(22)],
  ['n', 5],
  ['pw', 5],
  ['pw', 'x'.repeat(1025)],
  ['pos', 1.5],
  ['pos', 'abc'],
];

const encode = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

function expectValidationFailed(reply: { status: number; body: any; text: string }, field: string, what: string): void {
  expect(reply.status, `${what}: ${reply.text}`).toBe(400);
  expect(reply.body.errors, what).toEqual([expect.objectContaining({ code: 'VALIDATION_FAILED', field })]);
}

for (const dialect of DIALECTS) {
  describe(`values on the wire on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let api: TestApi;

    beforeAll(async () => {
      api = ctx.api;
      await ctx.api.collection(VALUES_COLLECTION);
    });

    it.each(ROUND_TRIPS.map(([field, sent, expected]) => [field, JSON.stringify(sent).slice(0, 60), sent, expected === undefined ? sent : expected] as const))(
      'round-trips %s = %s through create, get, list and an equality filter',
      async (field, _label, sent, expected) => {
        const created = await api.post('/api/vals:create', { [field]: sent });
        expect(created.status, created.text).toBe(201);
        expect(created.body.data[field]).toEqual(expected);
        const id = created.body.data.id as number;
        const got = await api.get(`/api/vals/${id}`);
        expect(got.status, got.text).toBe(200);
        expect(got.body.data[field]).toEqual(expected);
        expect(typeof got.body.data[field]).toBe(typeof expected);
        const listed = await api.get(`/api/vals:list?filter=${encode({ id })}`);
        expect(listed.body.data).toHaveLength(1);
        expect(listed.body.data[0][field]).toEqual(expected);
        // json and array cannot be filtered; a 20 000-character operand is over the filter text limit.
        const filterable = !['j', 'arr'].includes(field) && JSON.stringify(sent).length < 1000;
        if (filterable) {
          // The value sent, used as a filter operand, finds the row it created.
          const found = await api.get(`/api/vals:list?paginate=false&filter=${encode({ [field]: { $eq: sent } })}`);
          expect(found.status, found.text).toBe(200);
          expect(found.body.data.map((item: { id: number }) => item.id)).toContain(id);
          for (const item of found.body.data) expect(item[field]).toEqual(expected);
        }
      },
    );

    it.each(REFUSALS.map(([field, sent]) => [field, String(JSON.stringify(sent)).slice(0, 60), sent] as const))(
      'refuses %s = %s with 400 VALIDATION_FAILED naming the field',
      async (field, label, sent) => {
        const before = (await api.get('/api/vals:count')).body.data;
        const reply = await api.post('/api/vals:create', { [field]: sent });
        expectValidationFailed(reply, field, `create ${field}=${label}`);
        expect((await api.get('/api/vals:count')).body.data).toBe(before);
        const target = (await api.post('/api/vals:create', {})).body.data.id as number;
        expectValidationFailed(await api.put(`/api/vals/${target}`, { [field]: sent }), field, `update ${field}=${label}`);
      },
    );

    it('reports one entry per failing field', async () => {
      const reply = await api.post('/api/vals:create', { i: 'x', bool: 'x', dt: 'x', s: 'ok' });
      expect(reply.status).toBe(400);
      expect(reply.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['bool', 'dt', 'i']);
      for (const error of reply.body.errors) expect(error.code).toBe('VALIDATION_FAILED');
    });

    it('stores null for every nullable type and returns null', async () => {
      const nulls = Object.fromEntries(VALUES_COLLECTION.fields.filter((f) => f.type !== 'sort').map((f) => [f.name, null]));
      const created = await api.post('/api/vals:create', nulls);
      expect(created.status, created.text).toBe(201);
      const got = (await api.get(`/api/vals/${created.body.data.id}`)).body.data;
      for (const name of Object.keys(nulls).filter((n) => n !== 'pw')) expect(got[name], name).toBeNull();
    });

    it('keeps bigInt neighbours beyond 2^53 apart in filters and sorts', async () => {
      await api.collection({ name: 'bigs', fields: [{ name: 'v', type: 'bigInt' }] });
      const values = ['9007199254740992', '9007199254740993', '9007199254740994', '-9007199254740993', '-9007199254740992'];
      for (const v of values) expect((await api.post('/api/bigs:create', { v })).status).toBe(201);
      const eq = await api.get(`/api/bigs:list?filter=${encode({ v: '9007199254740993' })}`);
      expect(eq.body.data.map((item: { v: unknown }) => item.v)).toEqual(['9007199254740993']);
      const gt = await api.get(`/api/bigs:list?sort=v&filter=${encode({ v: { $gt: '9007199254740992' } })}`);
      expect(gt.body.data.map((item: { v: unknown }) => item.v)).toEqual(['9007199254740993', '9007199254740994']);
      const inList = await api.get(`/api/bigs:list?sort=-v&filter=${encode({ v: { $in: ['-9007199254740993', '9007199254740994'] } })}`);
      expect(inList.body.data.map((item: { v: unknown }) => item.v)).toEqual(['9007199254740994', '-9007199254740993']);
      const sorted = await api.get('/api/bigs:list?sort=v');
      expect(sorted.body.data.map((item: { v: unknown }) => item.v)).toEqual([
        '-9007199254740993', '-9007199254740992', '9007199254740992', '9007199254740993', '9007199254740994',
      ]);
    });

    (exactWideDecimals(dialect) ? it : it.fails).each(WIDE_DECIMALS)('round-trips the wide decimal %s exactly', async (value) => {
      const created = await api.post('/api/vals:create', { wide: value });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.wide).toBe(value);
      expect((await api.get(`/api/vals/${created.body.data.id}`)).body.data.wide).toBe(value);
    });

    (exactWideDecimals(dialect) ? it : it.fails)('compares wide decimals exactly in filters and sorts', async () => {
      await api.collection({ name: 'money', fields: [{ name: 'v', type: 'decimal', precision: 30, scale: 4 }] });
      const values = ['12345678901234567890.1234', '12345678901234567890.1235', '12345678901234567890.1233', '0.0001', '-1.0000'];
      for (const v of values) expect((await api.post('/api/money:create', { v })).status).toBe(201);
      const eq = await api.get(`/api/money:list?filter=${encode({ v: '12345678901234567890.1234' })}`);
      expect(eq.body.data.map((item: { v: unknown }) => item.v)).toEqual(['12345678901234567890.1234']);
      const sorted = await api.get('/api/money:list?sort=v');
      expect(sorted.body.data.map((item: { v: unknown }) => item.v)).toEqual([
        '-1.0000', '0.0001', '12345678901234567890.1233', '12345678901234567890.1234', '12345678901234567890.1235',
      ]);
    });

    it('gives a sort field max + 1 when the client sends none', async () => {
      await api.collection({ name: 'ranked', fields: [{ name: 'pos', type: 'sort' }] });
      const first = (await api.post('/api/ranked:create', {})).body.data.pos;
      const second = (await api.post('/api/ranked:create', {})).body.data.pos;
      expect(typeof first).toBe('number');
      expect(second).toBe(first + 1);
    });

    describe('password', () => {
      let id: number;
      beforeAll(async () => {
        id = (await ctx.api.post('/api/vals:create', { pw: 'correct horse', s: 'pwrow' })).body.data.id;
      });

      it('is never returned by create, get or list', async () => {
        const created = await api.post('/api/vals:create', { pw: 'another' });
        expect(created.body.data).not.toHaveProperty('pw');
        expect((await api.get(`/api/vals/${id}`)).body.data).not.toHaveProperty('pw');
        const list = await api.get('/api/vals:list?paginate=false');
        expect(list.body.data.length).toBeGreaterThan(1);
        for (const item of list.body.data) expect(item).not.toHaveProperty('pw');
        expect(list.text).not.toContain('correct horse');
        expect(list.text).not.toContain('scrypt');
      });

      it('cannot be filtered, sorted or selected', async () => {
        const filtered = await api.get(`/api/vals:list?filter=${encode({ pw: 'correct horse' })}`);
        expect(filtered.status).toBe(400);
        expect(filtered.body.errors[0]).toMatchObject({ code: 'FILTER_UNKNOWN_FIELD', field: 'pw' });
        const sorted = await api.get('/api/vals:list?sort=pw');
        expect(sorted.status).toBe(400);
        expect(sorted.body.errors[0]).toMatchObject({ code: 'SORT_UNKNOWN_FIELD', field: 'pw' });
        const selected = await api.get(`/api/vals/${id}?fields=pw`);
        expect(selected.status).toBe(400);
      });
    });

    describe('validation options', () => {
      beforeAll(async () => {
        await ctx.api.collection({
          name: 'rules',
          fields: [
            { name: 'code', type: 'string', minLength: 2, maxLength: 5, pattern: '^[a-z]+$' },
            { name: 'score', type: 'integer', min: 0, max: 10 },
            { name: 'ratio', type: 'double', min: 0.5, max: 1.5 },
            { name: 'price', type: 'decimal', precision: 8, scale: 2, min: 0 },
            { name: 'kind', type: 'string', enum: ['red', 'green'] },
            { name: 'level', type: 'integer', enum: [1, 2, 3] },
            { name: 'req', type: 'string', allowNull: false },
            { name: 'dflt', type: 'integer', defaultValue: 7 },
            { name: 'dflag', type: 'boolean', defaultValue: false },
            { name: 'dday', type: 'dateOnly', defaultValue: '2026-01-01' },
            { name: 'dtext', type: 'string', defaultValue: 'hi' },
            { name: 'email', type: 'string', unique: true },
          ],
        });
      });

      it('applies defaults and leaves other fields null', async () => {
        const created = await api.post('/api/rules:create', { req: 'x' });
        expect(created.status, created.text).toBe(201);
        expect(created.body.data).toMatchObject({ req: 'x', dflt: 7, dflag: false, dday: '2026-01-01', dtext: 'hi', code: null, email: null });
        const got = await api.get(`/api/rules/${created.body.data.id}`);
        expect(got.body.data).toMatchObject({ dflt: 7, dflag: false, dday: '2026-01-01', dtext: 'hi' });
      });

      it('lets an explicit null or value replace a default', async () => {
        const created = await api.post('/api/rules:create', { req: 'x', dflt: null, dflag: true, dtext: 'yo' });
        expect(created.body.data).toMatchObject({ dflt: null, dflag: true, dtext: 'yo' });
      });

      it('requires allowNull:false fields on create and refuses null on create and update', async () => {
        expectValidationFailed(await api.post('/api/rules:create', {}), 'req', 'missing');
        expectValidationFailed(await api.post('/api/rules:create', { req: null }), 'req', 'null');
        const id = (await api.post('/api/rules:create', { req: 'x' })).body.data.id;
        expectValidationFailed(await api.put(`/api/rules/${id}`, { req: null }), 'req', 'update null');
        const partial = await api.put(`/api/rules/${id}`, { score: 3 });
        expect(partial.status, partial.text).toBe(200);
        expect(partial.body.data).toMatchObject({ req: 'x', score: 3 });
      });

      const CASES: [field: string, good: unknown[], bad: unknown[]][] = [
        ['code', ['ab', 'abcde'], ['a', 'abcdef', 'ABC', 'ab1']],
        ['score', [0, 10, 5], [-1, 11]],
        ['ratio', [0.5, 1.5, 1], [0.49, 1.51]],
        ['price', ['0.00', '5.5'], ['-0.01']],
        ['kind', ['red', 'green'], ['blue', 'Red', 'red ']],
        ['level', [1, 3], [0, 4]],
      ];
      for (const [field, good, bad] of CASES) {
        it(`checks ${field} against its options`, async () => {
          for (const value of good) {
            const reply = await api.post('/api/rules:create', { req: 'x', [field]: value });
            expect(reply.status, `${field}=${JSON.stringify(value)}: ${reply.text}`).toBe(201);
          }
          for (const value of bad) {
            expectValidationFailed(await api.post('/api/rules:create', { req: 'x', [field]: value }), field, `${field}=${JSON.stringify(value)}`);
          }
        });
      }

      it('answers 409 UNIQUE_VIOLATION naming the field, on create and on update', async () => {
        expect((await api.post('/api/rules:create', { req: 'x', email: 'a@x.io' })).status).toBe(201);
        const duplicate = await api.post('/api/rules:create', { req: 'x', email: 'a@x.io' });
        expect(duplicate.status, duplicate.text).toBe(409);
        expect(duplicate.body.errors[0]).toMatchObject({ code: 'UNIQUE_VIOLATION', field: 'email' });
        // Uniqueness is by exact value: case and trailing spaces make different values.
        expect((await api.post('/api/rules:create', { req: 'x', email: 'A@x.io' })).status).toBe(201);
        const other = (await api.post('/api/rules:create', { req: 'x', email: 'b@x.io' })).body.data.id;
        const update = await api.put(`/api/rules/${other}`, { email: 'a@x.io' });
        expect(update.status).toBe(409);
        expect(update.body.errors[0]).toMatchObject({ code: 'UNIQUE_VIOLATION', field: 'email' });
        // NULLs never collide.
        expect((await api.post('/api/rules:create', { req: 'x', email: null })).status).toBe(201);
        expect((await api.post('/api/rules:create', { req: 'x', email: null })).status).toBe(201);
      });
    });

    describe('sort order', () => {
      // Sent in this order; ids follow it.
      const WORDS: (string | null)[] = ['b', null, 'B', 'a', 'á', 'A', 'Á', 'ä', 'z', 'Z', 'é', 'e', 'ß', '🎉', 'ab', 'Ab', null, '', 'aa', 'ａ', 'Ω', '10', '9', '_', '-'];
      const codePoints = (s: string): number[] => [...s].map((c) => c.codePointAt(0)!);
      const byCodePoint = (x: string, y: string): number => {
        const a = codePoints(x);
        const b = codePoints(y);
        for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
        return a.length - b.length;
      };
      const ranked = WORDS.filter((w): w is string => w !== null).sort(byCodePoint);

      beforeAll(async () => {
        await ctx.api.collection({ name: 'words', fields: [{ name: 'w', type: 'string' }, { name: 'n', type: 'integer' }, { name: 'x', type: 'text' }] });
        for (const [index, w] of WORDS.entries()) {
          const n = w === null ? null : index % 3 === 0 ? null : index;
          const reply = await ctx.api.post('/api/words:create', { w, n, x: w });
          expect(reply.status).toBe(201);
        }
      });

      it('orders strings by code point, NULLs last, ascending and descending', async () => {
        for (const field of ['w', 'x']) {
          const asc = await api.get(`/api/words:list?paginate=false&sort=${field}`);
          expect(asc.body.data.map((item: Record<string, unknown>) => item[field])).toEqual([...ranked, null, null]);
          const desc = await api.get(`/api/words:list?paginate=false&sort=-${field}`);
          expect(desc.body.data.map((item: Record<string, unknown>) => item[field])).toEqual([...[...ranked].reverse(), null, null]);
        }
      });

      it('puts NULL integers last in both directions', async () => {
        const asc = (await api.get('/api/words:list?paginate=false&sort=n')).body.data.map((item: { n: number | null }) => item.n);
        const present = asc.filter((n: number | null) => n !== null);
        expect(present).toEqual([...present].sort((a: number, b: number) => a - b));
        expect(asc.slice(present.length).every((n: number | null) => n === null)).toBe(true);
        const desc = (await api.get('/api/words:list?paginate=false&sort=-n')).body.data.map((item: { n: number | null }) => item.n);
        expect(desc).toEqual([...present].reverse().concat(asc.slice(present.length)));
      });

      it('compares strings exactly: case, accents and width matter', async () => {
        for (const word of ['a', 'A', 'á', 'e', 'ß', 'ａ']) {
          const reply = await api.get(`/api/words:list?paginate=false&filter=${encode({ w: word })}`);
          expect(reply.body.data.map((item: { w: string }) => item.w), word).toEqual([word]);
        }
        const range = await api.get(`/api/words:list?paginate=false&sort=w&filter=${encode({ w: { $gte: 'B', $lt: 'b' } })}`);
        expect(range.body.data.map((item: { w: string }) => item.w)).toEqual(ranked.filter((w) => byCodePoint(w, 'B') >= 0 && byCodePoint(w, 'b') < 0));
      });

      // MySQL-family tables use a NO PAD binary collation, so trailing spaces count on every dialect.
      it('keeps trailing spaces significant in equality and order', async () => {
        await api.collection({ name: 'spaces', fields: [{ name: 'w', type: 'string' }] });
        for (const w of ['a ', 'a', 'a\t', 'a  ']) expect((await api.post('/api/spaces:create', { w })).status).toBe(201);
        const eq = await api.get(`/api/spaces:list?filter=${encode({ w: 'a' })}`);
        expect(eq.body.data.map((item: { w: string }) => item.w)).toEqual(['a']);
        const sorted = await api.get('/api/spaces:list?sort=w');
        expect(sorted.body.data.map((item: { w: string }) => item.w)).toEqual(['a', 'a\t', 'a ', 'a  ']);
      });
    });
  });
}
