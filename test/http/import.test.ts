import ExcelJS from 'exceljs';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkContract } from '../support/contract-check.js';
import { multipartBody, type FormPart } from '../support/multipart-body.js';
import { apiFor, useDialectApp, type DialectApp, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Record<string, unknown>;
}

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** POSTs a multipart import: the file part first, then the text parts. */
async function upload(ctx: DialectApp, api: TestApi, url: string, file: FormPart | undefined, fields: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Answer> {
  const parts: FormPart[] = [...(file === undefined ? [] : [file]), ...Object.entries(fields).map(([name, value]) => ({ name, value }))];
  const { payload, contentType } = multipartBody(parts);
  const reply = await ctx.built.app.inject({ method: 'POST', url, payload, headers: { ...(await api.authHeaders()), 'content-type': contentType, ...headers } });
  let body: unknown;
  try {
    body = JSON.parse(reply.body);
  } catch {
    body = undefined;
  }
  const type = reply.headers['content-type'];
  // Every JSON answer matches the OpenAPI document's import operation (or error responses).
  checkContract('POST', url, reply.statusCode, typeof type === 'string' ? type : undefined, body, ctx.built.schema.snapshot, '/api');
  return { status: reply.statusCode, body, text: reply.body, headers: reply.headers };
}

const csv = (text: string, filename = 'rows.csv'): FormPart => ({ name: 'file', filename, type: 'text/csv', content: text });

/** An XLSX file of these rows (header first); `{formula}` objects become formula cells. */
async function xlsx(rows: unknown[][]): Promise<FormPart> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('rows');
  for (const row of rows) sheet.addRow(row);
  const content = Buffer.from(await workbook.xlsx.writeBuffer());
  return { name: 'file', filename: 'rows.xlsx', type: XLSX_TYPE, content };
}

/** posts as the list answers them, without the timestamps and key, ordered by key. */
async function posts(api: TestApi, url = '/api/posts:list?paginate=false&sort=id'): Promise<Record<string, unknown>[]> {
  const reply = await api.get(url);
  expect(reply.status, reply.text).toBe(200);
  return (reply.body.data as Record<string, unknown>[]).map(({ id: _id, createdAt: _c, updatedAt: _u, ...rest }) => rest);
}

/** Parsed SSE frames: event name and JSON data. */
function frames(text: string): { event: string; data: any }[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('event: '))
    .map((block) => {
      const [event, data] = block.split('\n');
      return { event: event!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) };
    });
}

for (const dialect of DIALECTS) {
  describe(`import on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { importMaxBytes: 64 * 1024, importMaxRows: 5000 });

    beforeAll(async () => {
      const api = ctx.api;
      await api.collection({ name: 'authors', fields: [{ name: 'name', type: 'string', title: 'Author name' }] });
      await api.collection({
        name: 'posts',
        fields: [
          { name: 'code', type: 'string', unique: true },
          { name: 'title', type: 'string', uiSchema: { title: 'Post title' } },
          { name: 'views', type: 'integer', title: 'Views' },
          { name: 'published', type: 'boolean' },
          { name: 'meta', type: 'json' },
          { name: 'at', type: 'date' },
          { name: 'author', type: 'belongsTo', target: 'authors', title: 'Writer' },
        ],
      });
      const relation = await api.post('/api/collections/authors/fields:create', { name: 'posts', type: 'hasMany', target: 'posts', foreignKey: 'authorId' });
      expect(relation.status, relation.text).toBe(201);
      expect((await api.post('/api/authors:create', [{ name: 'ann' }, { name: 'bob' }])).status).toBe(201);
      const roles = [
        { name: 'viewer', strategy: { actions: [] }, resources: [{ name: 'posts', actions: [{ name: 'view' }] }] },
        { name: 'titler', strategy: { actions: [] }, resources: [{ name: 'posts', actions: [{ name: 'view' }, { name: 'create', fields: ['code', 'title'] }] }] },
        {
          name: 'small',
          strategy: { actions: [] },
          resources: [{ name: 'posts', actions: [{ name: 'view' }, { name: 'create' }, { name: 'update', filter: { views: { $lt: 100 } } }] }],
        },
        {
          name: 'narrow',
          strategy: { actions: [] },
          resources: [{ name: 'posts', actions: [{ name: 'view', filter: { views: { $lt: 100 } } }, { name: 'create' }, { name: 'update' }] }],
        },
      ];
      for (const role of roles) expect((await api.post('/api/roles:create', role)).status).toBe(201);
      for (const role of ['viewer', 'titler', 'small', 'narrow']) expect((await api.post('/api/users:create', { email: `${role}@corral.test`, password: `${role}-password`, roles: [role] })).status).toBe(201);
    });

    beforeEach(async () => {
      // Every case starts from no posts.
      const reply = await ctx.api.request('POST', `/api/posts:destroy?filter=${encodeURIComponent(JSON.stringify({ id: { $gt: 0 } }))}`);
      expect(reply.status, reply.text).toBe(200);
    });

    const as = (role: string): TestApi => apiFor(ctx.built, { account: `${role}@corral.test`, password: `${role}-password` });

    // [what, file, query, expected counts, expected rows]
    const IMPORTS: Array<[string, () => Promise<FormPart> | FormPart, string, Record<string, number>, Record<string, unknown>[]]> = [
      [
        'CSV with headers by field name, values parsed by type',
        () => csv('code,title,views,published,meta,at\r\na1,Alpha,3,true,"{""k"":[1,2]}",2026-03-01T10:30:00.000+01:00\r\na2,Beta,,0,,\r\n'),
        '',
        { total: 2, created: 2, updated: 0, skipped: 0 },
        [
          { code: 'a1', title: 'Alpha', views: 3, published: true, meta: { k: [1, 2] }, at: '2026-03-01T09:30:00.000Z', authorId: null },
          { code: 'a2', title: 'Beta', views: null, published: false, meta: null, at: null, authorId: null },
        ],
      ],
      [
        "CSV with the export's headers: titles, a byte order mark, the author's key column and an ignored author name",
        () => csv('\uFEFFcode,Post title,Views,Writer.id,Writer.Author name\r\nb1,One,1,2,bob\r\n'),
        '',
        { total: 1, created: 1 },
        [{ code: 'b1', title: 'One', views: 1, published: null, meta: null, at: null, authorId: 2 }],
      ],
      [
        'an explicit mapping, a column mapped to null ignored',
        () => csv('Ref,Heading,Notes\r\nc1,Mapped,whatever\r\n'),
        `?mapping=${encodeURIComponent(JSON.stringify({ Ref: 'code', Heading: 'title', Notes: null }))}`,
        { total: 1, created: 1 },
        [{ code: 'c1', title: 'Mapped', views: null, published: null, meta: null, at: null, authorId: null }],
      ],
      [
        "the export's formula quote is taken off (CSV injection round trip)",
        () => csv(`code,title\r\nd1,'=1+1\r\nd2,"'-2"\r\nd3,''@x\r\nd4,'plain\r\n`),
        '',
        { total: 4, created: 4 },
        [
          { code: 'd1', title: '=1+1' },
          { code: 'd2', title: '-2' },
          { code: 'd3', title: "'@x" },
          { code: 'd4', title: "'plain" },
        ],
      ],
      [
        'XLSX cells by their type; text cells parsed like CSV',
        async () => xlsx([['code', 'Post title', 'views', 'published', 'meta'], ['e1', 'Typed', 7, true, '{"a":1}'], ['e2', "'=SUM(A1)", '8', 'false', '[1]']]),
        '',
        { total: 2, created: 2 },
        [
          { code: 'e1', title: 'Typed', views: 7, published: true, meta: { a: 1 } },
          { code: 'e2', title: '=SUM(A1)', views: 8, published: false, meta: [1] },
        ],
      ],
      [
        'XLSX named .bin without a type: told by its zip signature',
        async () => ({ ...(await xlsx([['code'], ['f1']])), filename: 'upload.bin', type: 'application/octet-stream' }),
        '',
        { total: 1, created: 1 },
        [{ code: 'f1' }],
      ],
    ];

    it.each(IMPORTS)('%s', async (_what, file, query, counts, expected) => {
      const reply = await upload(ctx, ctx.api, `/api/posts:import${query}`, await file());
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toMatchObject({ errors: [], ...counts });
      const rows = await posts(ctx.api);
      expect(rows).toHaveLength(expected.length);
      rows.forEach((row, index) => expect(row).toMatchObject(expected[index]!));
    });

    const BAD_ROWS = 'code,views,meta\r\ng1,1,\r\ng2,many,\r\ng3,3,{oops\r\ng4,4,\r\n';
    const BAD_ROW_ERRORS = [
      { row: 3, field: 'views', code: 'VALIDATION_FAILED' },
      { row: 4, field: 'meta', code: 'VALIDATION_FAILED' },
    ];

    it('mode=all (the default): one invalid row and nothing is written; 400 IMPORT_INVALID lists the rows', async () => {
      const reply = await upload(ctx, ctx.api, '/api/posts:import', csv(BAD_ROWS));
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.errors[0].code).toBe('IMPORT_INVALID');
      expect(reply.body.errors[0].details).toMatchObject({ total: 4, invalid: 2, errors: BAD_ROW_ERRORS });
      expect(await posts(ctx.api)).toEqual([]);
    });

    it('mode=skip-invalid: the valid rows are written, the others reported by row number', async () => {
      const reply = await upload(ctx, ctx.api, '/api/posts:import', csv(BAD_ROWS), { mode: 'skip-invalid' });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toMatchObject({ total: 4, created: 2, updated: 0, skipped: 2, errors: BAD_ROW_ERRORS });
      expect((await posts(ctx.api)).map((row) => row.code)).toEqual(['g1', 'g4']);
    });

    it('a database refusal (unique) is a row error: skip-invalid goes on after it, all writes nothing', async () => {
      const file = 'code\r\nh1\r\nh1\r\nh2\r\n';
      const all = await upload(ctx, ctx.api, '/api/posts:import', csv(file));
      expect(all.status, all.text).toBe(400);
      expect(all.body.errors[0].details.errors).toMatchObject([{ row: 3, code: 'UNIQUE_VIOLATION' }]);
      expect(await posts(ctx.api)).toEqual([]);
      const skip = await upload(ctx, ctx.api, '/api/posts:import?mode=skip-invalid', csv(file));
      expect(skip.status, skip.text).toBe(200);
      expect(skip.body.data).toMatchObject({ total: 3, created: 2, skipped: 1, errors: [{ row: 3, code: 'UNIQUE_VIOLATION' }] });
      expect((await posts(ctx.api)).map((row) => row.code)).toEqual(['h1', 'h2']);
    });

    it('XLSX formula cells are never evaluated: the row is refused (row numbers are the sheet\'s)', async () => {
      const file = await xlsx([['code', 'views'], ['i1', 1], ['i2', { formula: '1+1', result: 2 }], ['i3', 3]]);
      const reply = await upload(ctx, ctx.api, '/api/posts:import?mode=skip-invalid', file);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toMatchObject({ created: 2, skipped: 1, errors: [{ row: 3, field: 'views', code: 'VALIDATION_FAILED' }] });
      expect(reply.body.data.errors[0].message).toMatch(/formula/);
    });

    it('filterKeys: a row matching a record updates it, the others are created', async () => {
      expect((await ctx.api.post('/api/posts:create', [{ code: 'j1', title: 'old', views: 1 }, { code: 'j2', title: 'keep', views: 2 }])).status).toBe(201);
      const reply = await upload(ctx, ctx.api, '/api/posts:import?filterKeys=code', csv('code,title\r\nj1,new\r\nj3,third\r\n'));
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toMatchObject({ total: 2, created: 1, updated: 1 });
      expect(await posts(ctx.api)).toMatchObject([{ code: 'j1', title: 'new', views: 1 }, { code: 'j2', title: 'keep' }, { code: 'j3', title: 'third' }]);
      const form = await upload(ctx, ctx.api, '/api/posts:import', csv('code,views\r\nj3,30\r\n'), { filterKeys: 'code' });
      expect(form.body.data).toMatchObject({ updated: 1, created: 0 });
      const missing = await upload(ctx, ctx.api, '/api/posts:import?filterKeys=views', csv('code\r\nj4\r\n'));
      expect(missing.status, missing.text).toBe(400);
      expect(missing.body.errors[0]).toMatchObject({ code: 'PARAM_INVALID', field: 'filterKeys' });
    });

    it('an association import: rows get the source\'s key; a missing source is 404', async () => {
      const reply = await upload(ctx, ctx.api, '/api/authors/2/posts:import', csv('code,title\r\nk1,by bob\r\nk2,also bob\r\n'));
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toMatchObject({ created: 2 });
      expect((await posts(ctx.api)).map((row) => [row.code, row.authorId])).toEqual([['k1', 2], ['k2', 2]]);
      const missing = await upload(ctx, ctx.api, '/api/authors/99/posts:import', csv('code\r\nk3\r\n'));
      expect(missing.status, missing.text).toBe(404);
    });

    it('emits a change event per imported row (created and updated), none for a rolled-back import', async () => {
      const before = await ctx.api.get('/api/changes:list?after=0&pageSize=1000');
      const after = Math.max(0, ...(before.body.data as { id: number }[]).map((event) => event.id));
      expect((await upload(ctx, ctx.api, '/api/posts:import', csv('code\r\nl1\r\nl2\r\n'))).status).toBe(200);
      expect((await upload(ctx, ctx.api, '/api/posts:import?filterKeys=code', csv('code,title\r\nl1,t\r\n'))).status).toBe(200);
      expect((await upload(ctx, ctx.api, '/api/posts:import', csv('code,views\r\nl9,x\r\n'))).status).toBe(400);
      const events = (await ctx.api.get(`/api/changes:list?after=${after}&collection=posts&pageSize=1000`)).body.data as { action: string; data: { code: string } }[];
      expect(events.map((event) => [event.action, event.data.code])).toEqual([['create', 'l1'], ['create', 'l2'], ['update', 'l1']]);
    });

    it('grants: no create grant is 403; a column outside the field grant is 403; an update outside the update scope is a row error', async () => {
      const viewer = await upload(ctx, as('viewer'), '/api/posts:import', csv('code\r\nm1\r\n'));
      expect(viewer.status, viewer.text).toBe(403);
      const titler = await upload(ctx, as('titler'), '/api/posts:import', csv('code,views\r\nm1,1\r\n'));
      expect(titler.status, titler.text).toBe(403);
      expect(titler.body.errors[0], titler.text).toMatchObject({ code: 'FORBIDDEN', field: 'views' });
      expect((await upload(ctx, as('titler'), '/api/posts:import', csv('code,title\r\nm1,ok\r\n'))).status).toBe(200);
      expect((await ctx.api.post('/api/posts:create', [{ code: 'm2', views: 1 }, { code: 'm3', views: 500 }])).status).toBe(201);
      const small = await upload(ctx, as('small'), '/api/posts:import?filterKeys=code&mode=skip-invalid', csv('code,title\r\nm2,low\r\nm3,high\r\n'));
      expect(small.status, small.text).toBe(200);
      expect(small.body.data).toMatchObject({ updated: 1, skipped: 1, errors: [{ row: 3, code: 'FORBIDDEN' }] });
      expect((await posts(ctx.api)).map((row) => [row.code, row.title])).toEqual([['m1', 'ok'], ['m2', 'low'], ['m3', null]]);
      expect((await upload(ctx, apiFor(ctx.built, null), '/api/posts:import', csv('code\r\nm9\r\n'))).status).toBe(401);
    });

    it('an upsert finds only rows in the caller\'s view scope: a hidden match is not updated (the create then meets the unique code)', async () => {
      expect((await ctx.api.post('/api/posts:create', [{ code: 'n1', title: 'seen', views: 1 }, { code: 'n2', title: 'hidden', views: 500 }])).status).toBe(201);
      const reply = await upload(ctx, as('narrow'), '/api/posts:import?filterKeys=code&mode=skip-invalid', csv('code,title\r\nn1,changed\r\nn2,changed\r\n'));
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toMatchObject({ updated: 1, created: 0, skipped: 1, errors: [{ row: 3, code: 'UNIQUE_VIOLATION' }] });
      expect((await posts(ctx.api)).map((row) => [row.code, row.title])).toEqual([['n1', 'changed'], ['n2', 'hidden']]);
    });

    it('progress as an event stream: progress events every 1000 rows (with the CSV bytes read), then the result', async () => {
      const lines = ['code'];
      for (let n = 0; n < 2500; n++) lines.push(`p${n}`);
      const text = `${lines.join('\r\n')}\r\n`;
      // Smaller than one 64 KB read: every event has read the whole file.
      const bytes = Buffer.byteLength(text);
      const reply = await upload(ctx, ctx.api, '/api/posts:import', csv(text), {}, { accept: 'text/event-stream' });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(frames(reply.text)).toEqual([
        { event: 'progress', data: { processed: 1000, bytesRead: bytes, bytes } },
        { event: 'progress', data: { processed: 2000, bytesRead: bytes, bytes } },
        { event: 'result', data: { data: { total: 2500, created: 2500, updated: 0, skipped: 0, errors: [] } } },
      ]);
      const failed = await upload(ctx, ctx.api, '/api/posts:import', csv('code,views\r\nq1,x\r\n'), {}, { accept: 'text/event-stream' });
      expect(frames(failed.text)).toMatchObject([{ event: 'error', data: { status: 400, errors: [{ code: 'IMPORT_INVALID' }] } }]);
    });

    // [what, file, query, fields, status, code]
    const REFUSED: Array<[string, FormPart | undefined, string, Record<string, string>, number, string]> = [
      ['no file part', undefined, '', { mode: 'all' }, 400, 'IMPORT_FILE_INVALID'],
      ['a file in another part', { name: 'upload', filename: 'x.csv', content: 'code\r\n' }, '', {}, 400, 'IMPORT_FILE_INVALID'],
      ['an empty file', csv(''), '', {}, 400, 'IMPORT_FILE_INVALID'],
      ['an unknown header', csv('code,nonsense\r\nx,y\r\n'), '', {}, 400, 'IMPORT_FILE_INVALID'],
      ['two columns for one field', csv('code,Post title,title\r\nx,y,z\r\n'), '', {}, 400, 'IMPORT_FILE_INVALID'],
      ['broken CSV quoting', csv('code\r\n"open\r\n'), '', {}, 400, 'IMPORT_FILE_INVALID'],
      ['CSV text read as XLSX', csv('code\r\nx\r\n'), '?format=xlsx', {}, 400, 'IMPORT_FILE_INVALID'],
      ['a broken zip', { name: 'file', filename: 'x.xlsx', content: Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(200, 7)]) }, '', {}, 400, 'IMPORT_FILE_INVALID'],
      ['an unknown format', csv('code\r\n'), '?format=pdf', {}, 400, 'PARAM_INVALID'],
      ['an unknown mode', csv('code\r\n'), '', { mode: 'some' }, 400, 'PARAM_INVALID'],
      ['a mapping that is not JSON', csv('code\r\n'), '', { mapping: '{' }, 400, 'PARAM_INVALID'],
      ['a mapping to an unknown field', csv('code\r\n'), '', { mapping: '{"code":"nope"}' }, 400, 'PARAM_INVALID'],
      ['a file over CORRAL_IMPORT_MAX_BYTES', csv(`code\r\n${'x,'.repeat(40 * 1024)}\r\n`), '', {}, 413, 'IMPORT_TOO_LARGE'],
      ['more rows than CORRAL_IMPORT_MAX_ROWS', csv(`code\r\n${Array.from({ length: 5001 }, (_, n) => `r${n}`).join('\r\n')}\r\n`), '', {}, 413, 'IMPORT_TOO_LARGE'],
    ];

    it.each(REFUSED)('refuses %s, nothing written', async (_what, file, query, fields, status, code) => {
      const reply = await upload(ctx, ctx.api, `/api/posts:import${query}`, file, fields);
      expect(reply.status, reply.text).toBe(status);
      expect(reply.body.errors[0].code).toBe(code);
      expect(await posts(ctx.api)).toEqual([]);
    });

    it('a JSON body is 415; a to-one association has no import; system collections that carry grants are not imported', async () => {
      // Every collection whose rows carry grants (Collection.carriesGrants): the store refuses the bulk write, root included
      // (named scopes have only their own actions: no import at all).
      const grantRows: Array<[string, string, number, string]> = [
        ['roles', 'name,strategy\r\nboss,"{""actions"":[""create""]}"\r\n', 403, 'FORBIDDEN'],
        ['users', 'email\r\nx@corral.test\r\n', 403, 'FORBIDDEN'],
        ['apiKeys', 'name,role\r\nk,root\r\n', 403, 'FORBIDDEN'],
        ['rolesResourcesScopes', 'name,scope\r\nall,{}\r\n', 404, 'ACTION_NOT_FOUND'],
      ];
      for (const [name, text, status, code] of grantRows) {
        const reply = await upload(ctx, ctx.api, `/api/${name}:import`, csv(text));
        expect(reply.status, `${name}: ${reply.text}`).toBe(status);
        expect(reply.body.errors[0].code).toBe(code);
      }
      const json = await ctx.api.post('/api/posts:import', { code: 'x' });
      expect(json.status, json.text).toBe(415);
      const form = await upload(ctx, ctx.api, '/api/posts:create', csv('code\r\nx\r\n'));
      expect(form.status, form.text).toBe(415);
      const toOne = await upload(ctx, ctx.api, '/api/posts/1/author:import', csv('name\r\nx\r\n'));
      expect(toOne.status).toBeGreaterThanOrEqual(400);
      expect(toOne.status).toBeLessThan(500);
    });
  });
}
