import { beforeAll, describe, expect, it } from 'vitest';
import { EVERY_FIELD_TYPE_COLLECTION } from '../fixtures/every-field-type.js';
import { multipartBody } from '../support/multipart-body.js';
import { useDialectApp, type DialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/** Rows of every field type: typical values, text a spreadsheet would read as a formula, and NULLs. */
const ROWS: Record<string, unknown>[] = [
  {
    string: '=1+1', text: 'line one\nline "two", comma', integer: -42, bigInt: '-9007199254740993', float: 1.5, double: 2.25, decimal: '-12.345',
    boolean: true, date: '2026-03-01T09:30:00.000Z', dateOnly: '2026-03-01', time: '09:30:00', json: { a: 1, b: ['=x', null] }, array: [1, 'two'],
    uuid: '123e4567-e89b-12d3-a456-426614174000', nanoid: 'V1StGXR8_Z5jdHi6B-myT', password: 'secret-password',
  },
  {
    string: "'@quoted", text: '+plus\tand tab', integer: 0, bigInt: '9007199254740993', float: -0.25, double: 1e-7, decimal: '0.001',
    boolean: false, date: '1999-12-31T23:59:59.999Z', dateOnly: '1999-12-31', time: '23:59:59', json: '-text', array: [],
    uuid: '00000000-0000-4000-8000-000000000000', nanoid: 'abcdefghijklmnopqrstu', password: 'other-password',
  },
  { string: 'ünïcødé ✓', integer: 7 },
  // Line breaks of every kind, and lines that would start a formula (issue 37, finding 5).
  { string: 'p\r@SUM(1)', text: '=1\n=2' },
  { string: 'a\r\nb', text: "cr\ronly\n'=quoted line\r\n\r\n+last" },
  { string: '\n-lead', text: 'lf\nonly, "quoted"' },
  {},
];

/** The list of a collection without the timestamps (an import stamps its own). */
async function rowsOf(ctx: DialectApp, name: string): Promise<Record<string, unknown>[]> {
  const reply = await ctx.api.get(`/api/${name}:list?paginate=false&sort=id`);
  expect(reply.status, reply.text).toBe(200);
  return (reply.body.data as Record<string, unknown>[]).map(({ createdAt: _c, updatedAt: _u, ...rest }) => rest);
}

for (const dialect of DIALECTS) {
  describe(`export → import round trip on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    beforeAll(async () => {
      await ctx.api.collection(EVERY_FIELD_TYPE_COLLECTION);
      const created = await ctx.api.post(`/api/${EVERY_FIELD_TYPE_COLLECTION.name}:create`, ROWS);
      expect(created.status, created.text).toBe(201);
    });

    // [format, export headers]
    const CASES: Array<[string, Record<string, string>]> = [
      ['csv', {}],
      ['csv', { 'x-timezone': 'Asia/Kolkata' }],
      ['xlsx', {}],
    ];

    it.each(CASES)('%s export %j imports into an empty copy as identical rows', async (format, headers) => {
      const copy = `copy_${format}_${Object.keys(headers).length}`;
      await ctx.api.collection({ ...EVERY_FIELD_TYPE_COLLECTION, name: copy });
      const auth = await ctx.api.authHeaders();
      const exported = await ctx.built.app.inject({ method: 'GET', url: `/api/${EVERY_FIELD_TYPE_COLLECTION.name}:export?format=${format}`, headers: { ...auth, ...headers } });
      expect(exported.statusCode, exported.body).toBe(200);
      const { payload, contentType } = multipartBody([{ name: 'file', filename: `export.${format}`, content: exported.rawPayload }]);
      const imported = await ctx.built.app.inject({ method: 'POST', url: `/api/${copy}:import`, payload, headers: { ...auth, 'content-type': contentType } });
      expect(imported.statusCode, imported.body).toBe(200);
      expect(JSON.parse(imported.body).data).toMatchObject({ total: ROWS.length, created: ROWS.length, errors: [] });
      expect(await rowsOf(ctx, copy)).toEqual(await rowsOf(ctx, EVERY_FIELD_TYPE_COLLECTION.name));
    });
  });
}
