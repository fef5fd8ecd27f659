import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVERY_FIELD_TYPE, EVERY_FIELD_TYPE_COLLECTION, fieldNameOf } from '../fixtures/every-field-type.js';
import type { ScalarType } from '../../src/schema/types.js';
import { apiFor, useDialectApp, type DialectApp, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

const BULK_ROWS = 20_000;

const q = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

/** Per type: the value written, its CSV text and its XLSX cell (undefined: no column, the field is hidden). */
const SAMPLES: Record<ScalarType, [unknown, string | undefined, unknown]> = {
  string: ['=1+1', "'=1+1", "'=1+1"],
  text: ['line one\nline "two", comma', 'line one\nline "two", comma', 'line one\nline "two", comma'],
  integer: [-42, '-42', -42],
  bigInt: ['-9007199254740993', '-9007199254740993', '-9007199254740993'],
  float: [1.5, '1.5', 1.5],
  double: [2.25, '2.25', 2.25],
  decimal: ['-12.345', '-12.345', '-12.345'],
  boolean: [true, 'true', true],
  date: ['2026-03-01T09:30:00.000Z', '2026-03-01T09:30:00.000Z', '2026-03-01T09:30:00.000Z'],
  dateOnly: ['2026-03-01', '2026-03-01', '2026-03-01'],
  time: ['09:30:00', '09:30:00', '09:30:00'],
  json: [{ a: 1 }, '{"a":1}', '{"a":1}'],
  array: [[1, 2], '[1,2]', '[1,2]'],
  uuid: ['123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-12d3-a456-426614174000'],
  nanoid: ['V1StGXR8_Z5jdHi6B-myT', 'V1StGXR8_Z5jdHi6B-myT', 'V1StGXR8_Z5jdHi6B-myT'],
  password: ['secret-password', undefined, undefined],
  sort: [undefined, '1', 1],
};

interface Download {
  status: number;
  headers: Record<string, unknown>;
  bytes: Buffer;
}

async function download(ctx: DialectApp, api: TestApi, url: string, headers: Record<string, string> = {}): Promise<Download> {
  const reply = await ctx.built.app.inject({ method: 'GET', url, headers: { ...(await api.authHeaders()), ...headers } });
  return { status: reply.statusCode, headers: reply.headers, bytes: reply.rawPayload };
}

/** The CSV's rows (header first), the byte order mark checked and dropped. */
function csvRows(bytes: Buffer): string[][] {
  expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  return parse(bytes.subarray(3), { relax_column_count: false }) as string[][];
}

/** The first worksheet's rows (header first), each cell's value as exceljs reads it. */
async function xlsxRows(bytes: Buffer): Promise<unknown[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  const rows: unknown[][] = [];
  workbook.worksheets[0]!.eachRow({ includeEmpty: true }, (row) => {
    const values = row.values as unknown[];
    rows.push(values.slice(1).map((value) => value ?? null));
  });
  return rows;
}

/** Rows as records keyed by the header row. */
const records = <T>(rows: T[][]): Record<string, T>[] => rows.slice(1).map((row) => Object.fromEntries(rows[0]!.map((name, i) => [String(name), row[i]!])));

for (const dialect of DIALECTS) {
  describe(`export on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    beforeAll(async () => {
      const api = ctx.api;
      await api.collection(EVERY_FIELD_TYPE_COLLECTION);
      const row = Object.fromEntries(EVERY_FIELD_TYPE.filter((type) => SAMPLES[type][0] !== undefined).map((type) => [fieldNameOf(type), SAMPLES[type][0]]));
      const created = await api.post('/api/every_type:create', row);
      expect(created.status, created.text).toBe(201);

      await api.collection({ name: 'authors', fields: [{ name: 'name', type: 'string', title: 'Author name' }, { name: 'secret', type: 'string' }] });
      await api.collection({
        name: 'posts',
        fields: [
          { name: 'title', type: 'string', uiSchema: { title: 'Post title' } },
          { name: 'views', type: 'integer' },
          { name: 'published', type: 'boolean' },
          { name: 'secret', type: 'string' },
          { name: 'author', type: 'belongsTo', target: 'authors', title: 'Writer' },
        ],
      });
      const relation = await api.post('/api/collections/authors/fields:create', { name: 'posts', type: 'hasMany', target: 'posts', foreignKey: 'authorId' });
      expect(relation.status, relation.text).toBe(201);
      for (const [name, secret] of [['ann', 's-ann'], ['bob', 's-bob']]) expect((await api.post('/api/authors:create', { name, secret })).status).toBe(201);
      const posts = [
        { title: 'alpha', views: 3, published: true, secret: 'x1', authorId: 1 },
        { title: '@beta', views: 1, published: false, secret: 'x2', authorId: 2 },
        { title: '-gamma', views: 2, published: true, secret: 'x3', authorId: 1 },
        { title: '+delta\tx', views: 5, published: false, secret: 'x4', authorId: null },
      ];
      expect((await api.post('/api/posts:create', posts)).status).toBe(201);
      const role = await api.post('/api/roles:create', {
        name: 'reader',
        strategy: { actions: [] },
        resources: [
          { name: 'posts', actions: [{ name: 'view', fields: ['id', 'title', 'author', 'authorId'], filter: { published: true } }] },
          { name: 'authors', actions: [{ name: 'view', fields: ['id', 'name'] }] },
        ],
      });
      expect(role.status, role.text).toBe(201);
      expect((await api.post('/api/users:create', { email: 'reader@corral.test', password: 'reader-password', roles: ['reader'] })).status).toBe(201);
    });

    it('CSV: one column per visible field of every type, values as the table says, the hidden password absent', async () => {
      const answer = await download(ctx, ctx.api, '/api/every_type:export?format=csv');
      expect(answer.status, answer.bytes.toString()).toBe(200);
      expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(answer.headers['content-disposition']).toBe('attachment; filename="every_type.csv"');
      const [row] = records(csvRows(answer.bytes));
      for (const type of EVERY_FIELD_TYPE) expect(row![fieldNameOf(type)], type).toBe(SAMPLES[type][1]);
    });

    it('XLSX: the same columns, numbers and booleans typed, parsed back with exceljs', async () => {
      const answer = await download(ctx, ctx.api, '/api/every_type:export?format=xlsx');
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
      expect(answer.headers['content-disposition']).toBe('attachment; filename="every_type.xlsx"');
      const [row] = records(await xlsxRows(answer.bytes));
      for (const type of EVERY_FIELD_TYPE) expect(row![fieldNameOf(type)], type).toEqual(SAMPLES[type][2]);
    });

    it('no format means CSV', async () => {
      const answer = await download(ctx, ctx.api, '/api/posts:export');
      expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    });

    // [what, url, expected rows (header first)]
    const CASES: Array<[string, string, string[][]]> = [
      ['titles from the title option and uiSchema.title; sort', '/api/posts:export?fields=id,title,views&sort=-views', [['id', 'Post title', 'views'], ['4', "'+delta\tx", '5'], ['1', 'alpha', '3'], ['3', "'-gamma", '2'], ['2', "'@beta", '1']]],
      ['filter', `/api/posts:export?fields=title&filter=${q({ published: true })}&sort=id`, [['Post title'], ['alpha'], ["'-gamma"]]],
      ['except', '/api/posts:export?except=createdAt,updatedAt,secret,authorId&sort=id&filterByTk=1', [['id', 'Post title', 'views', 'published'], ['1', 'alpha', '3', 'true']]],
      ['to-one appends as columns, titled with the relation title', '/api/posts:export?fields=id,author.name&appends=author&sort=id', [['id', 'Writer.Author name'], ['1', 'ann'], ['2', 'bob'], ['3', 'ann'], ['4', '']]],
      ['an association route', '/api/authors/1/posts:export?fields=title&sort=id', [['Post title'], ['alpha'], ["'-gamma"]]],
      ['no rows: the header alone', `/api/posts:export?fields=id,title&filter=${q({ views: 100 })}`, [['id', 'Post title']]],
    ];

    it.each(CASES)('CSV: %s', async (_what, url, expected) => {
      const answer = await download(ctx, ctx.api, url);
      expect(answer.status, answer.bytes.toString()).toBe(200);
      expect(csvRows(answer.bytes)).toEqual(expected);
    });

    it.each(CASES)('XLSX: %s', async (_what, url, expected) => {
      const answer = await download(ctx, ctx.api, `${url}&format=xlsx`);
      expect(answer.status).toBe(200);
      // A row's trailing empty cells are not written: padded to the header's width.
      const rows = (await xlsxRows(answer.bytes)).map((row) => expected[0]!.map((_name, i) => (row[i] === null || row[i] === undefined ? '' : String(row[i]))));
      expect(rows).toEqual(expected);
    });

    it('dates in the caller\'s X-Timezone, with the offset; ISO UTC without it', async () => {
      const url = '/api/every_type:export?fields=date,dateOnly,time';
      const berlin = csvRows((await download(ctx, ctx.api, url, { 'x-timezone': 'Europe/Berlin' })).bytes);
      expect(berlin).toEqual([['date', 'dateOnly', 'time'], ['2026-03-01T10:30:00.000+01:00', '2026-03-01', '09:30:00']]);
      const offset = csvRows((await download(ctx, ctx.api, url, { 'x-timezone': '-05:30' })).bytes);
      expect(offset[1]![0]).toBe('2026-03-01T04:00:00.000-05:30');
      expect(csvRows((await download(ctx, ctx.api, url)).bytes)[1]![0]).toBe('2026-03-01T09:30:00.000Z');
    });

    it('a restricted role: only the rows and fields its view grant allows', async () => {
      const reader = apiFor(ctx.built, { account: 'reader@corral.test', password: 'reader-password' });
      const rows = csvRows((await download(ctx, reader, '/api/posts:export?appends=author&sort=id')).bytes);
      expect(rows).toEqual([['id', 'Post title', 'authorId', 'Writer.id', 'Writer.Author name'], ['1', 'alpha', '1', '1', 'ann'], ['3', "'-gamma", '1', '1', 'ann']]);
      const xlsx = records(await xlsxRows((await download(ctx, reader, '/api/posts:export?format=xlsx&sort=id')).bytes));
      expect(xlsx.map((row) => Object.keys(row))).toEqual([['id', 'Post title', 'authorId'], ['id', 'Post title', 'authorId']]);
      const refused = await reader.get('/api/posts:export?fields=secret');
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.errors[0].code).toBe('FORBIDDEN');
      const probe = await reader.get(`/api/posts:export?filter=${q({ secret: 'x2' })}`);
      expect(probe.status, probe.text).toBe(403);
      // The schema export shares the action name: it needs `view` on collections, which this role lacks.
      expect((await reader.get('/api/collections:export')).status).toBe(403);
      const anonymous = await apiFor(ctx.built, null).get('/api/posts:export');
      expect(anonymous.status).toBe(401);
    });

    // [what, url, field]
    const BAD: Array<[string, string, string]> = [
      ['an unknown format', '/api/posts:export?format=pdf', 'format'],
      ['a format that is not a string', '/api/posts:export?format[a]=csv', 'format'],
      ['a to-many append', '/api/authors:export?appends=posts', 'appends'],
    ];
    it.each(BAD)('%s: 400 PARAM_INVALID', async (_what, url, field) => {
      const reply = await ctx.api.get(url);
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.errors[0]).toMatchObject({ code: 'PARAM_INVALID', field });
    });

    it('a large export (20k rows) is streamed: chunked, no Content-Length, every row in order, CSV and XLSX', async () => {
      await ctx.api.collection({ name: 'bulk', fields: [{ name: 'n', type: 'integer' }, { name: 'label', type: 'string' }] });
      for (let start = 0; start < BULK_ROWS; start += 1000) {
        const rows = Array.from({ length: 1000 }, (_, i) => ({ n: start + i, label: `row ${start + i}` }));
        const created = await ctx.api.post('/api/bulk:create', rows);
        expect(created.status, created.text.slice(0, 300)).toBe(201);
      }
      await ctx.built.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = ctx.built.app.server.address() as AddressInfo;
      const auth = await ctx.api.authHeaders();
      const fetchChunks = (path: string): Promise<{ headers: Record<string, unknown>; chunks: Buffer[] }> =>
        new Promise((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port, path, headers: auth }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => resolve({ headers: res.headers, chunks }));
            res.on('error', reject);
          });
          req.on('error', reject);
          req.end();
        });
      const csv = await fetchChunks('/api/bulk:export?fields=n,label&sort=n');
      expect(csv.headers['transfer-encoding']).toBe('chunked');
      expect(csv.headers['content-length']).toBeUndefined();
      expect(csv.chunks.length).toBeGreaterThan(1);
      const rows = csvRows(Buffer.concat(csv.chunks));
      expect(rows.length).toBe(BULK_ROWS + 1);
      expect(rows.slice(1).every((row, i) => row[0] === String(i) && row[1] === `row ${i}`)).toBe(true);
      const xlsx = await fetchChunks('/api/bulk:export?fields=n&sort=n&format=xlsx');
      expect(xlsx.headers['transfer-encoding']).toBe('chunked');
      const sheet = await xlsxRows(Buffer.concat(xlsx.chunks));
      expect(sheet.length).toBe(BULK_ROWS + 1);
      expect(sheet[BULK_ROWS]).toEqual([BULK_ROWS - 1]);
    }, 120_000);

    // After the large export: reads its rows.
    it('CSV is compressed like any text answer (gzip here), XLSX is not', async () => {
      const plain = await download(ctx, ctx.api, '/api/bulk:export?sort=n&fields=n,label');
      const gzipped = await download(ctx, ctx.api, '/api/bulk:export?sort=n&fields=n,label', { 'accept-encoding': 'gzip' });
      expect(gzipped.status).toBe(200);
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gzipped.headers['content-disposition']).toBe('attachment; filename="bulk.csv"');
      expect(gunzipSync(gzipped.bytes).equals(plain.bytes)).toBe(true);
      expect(gzipped.bytes.length).toBeLessThan(plain.bytes.length / 2);
      const xlsx = await download(ctx, ctx.api, '/api/bulk:export?format=xlsx&fields=n', { 'accept-encoding': 'gzip' });
      expect(xlsx.headers['content-encoding']).toBeUndefined();
    });

    it('the OpenAPI document describes the export of collections and to-many associations', async () => {
      const document = (await ctx.api.get('/api/openapi.json')).body;
      for (const path of ['/api/posts:export', '/api/authors/{sourceKey}/posts:export']) {
        const op = document.paths[path]?.get;
        expect(op, path).toBeDefined();
        expect(Object.keys(op.responses['200'].content)).toEqual(['text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet']);
        expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'format', in: 'query' }));
      }
    });

    it('is a read: POST is refused', async () => {
      const reply = await ctx.api.post('/api/posts:export');
      expect(reply.status).toBe(405);
    });
  });
}
