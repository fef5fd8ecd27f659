import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { contentKey } from '../../src/files/file-storage.js';
import { JPEG, multipartBody, PDF, PNG, send, SVG, upload, type RawReply } from '../support/multipart.js';
import { storedFiles } from '../support/stored-files.js';
import { apiFor, useDialectApp, type TestApi } from '../support/test-app.js';
import { DIALECTS, ONCE_DIALECT } from '../support/test-database.js';

const MAX = 64 * 1024;
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const TEXT = Buffer.from('just some words\n');

for (const dialect of DIALECTS) {
  describe(`attachments on ${dialect}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-attachments-'));
    const ctx = useDialectApp(dialect, { storage: { kind: 'local', dir }, uploadMaxBytes: MAX });
    let auth: Record<string, string>;
    let readerAuth: Record<string, string>;
    let reader: TestApi;
    const up = (url: string, file: Parameters<typeof upload>[3], as = auth): Promise<RawReply> => upload(ctx.built, url, as, file);
    const get = (url: string, headers: Record<string, string> = {}, as = auth): Promise<RawReply> => send(ctx.built, 'GET', url, { ...as, ...headers });
    const objects = (): string[] => storedFiles(dir).filter((path) => !path.startsWith('.tmp'));
    const temps = (): string[] => storedFiles(dir).filter((path) => path.startsWith('.tmp'));
    const count = async (): Promise<number> => (await ctx.api.get('/api/attachments:count')).body.data;

    beforeAll(async () => {
      auth = await ctx.api.authHeaders();
      await ctx.api.collection({
        name: 'posts',
        fields: [
          { name: 'title', type: 'string' },
          { name: 'owner', type: 'string' },
          { name: 'files', type: 'attachment' },
          { name: 'cover', type: 'attachment', multiple: false, accept: ['image/*', 'application/pdf'] },
        ],
      });
      const role = {
        name: 'reader',
        strategy: { actions: ['view', 'create'] },
        resources: [{ name: 'posts', actions: [{ name: 'view', filter: { owner: 'reader' } }, { name: 'update', filter: { owner: 'reader' } }] }],
      };
      expect((await ctx.api.post('/api/roles:create', role)).status).toBe(201);
      expect((await ctx.api.post('/api/users:create', { email: 'reader@corral.test', password: 'reader-password', roles: ['reader'] })).status).toBe(201);
      reader = apiFor(ctx.built, { account: 'reader@corral.test', password: 'reader-password' });
      readerAuth = await reader.authHeaders();
      for (const owner of ['reader', 'other']) expect((await ctx.api.post('/api/posts:create', { title: owner, owner })).status).toBe(201);
    });

    it('stores an upload and downloads the same bytes, with the row describing them', async () => {
      const bytes = randomBytes(MAX - 10);
      const created = await up('/api/attachments:create', { bytes, filename: 'data.bin', type: 'application/octet-stream' });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      const row = created.json.data;
      expect(row).toMatchObject({ filename: 'data.bin', extname: '.bin', mimetype: 'application/octet-stream', size: bytes.length, sha256: sha256(bytes), storage: 'local', path: contentKey(sha256(bytes)), url: `/api/attachments/${row.id}/content` });
      expect(created.headers.location).toBe(`/api/attachments/${row.id}`);
      const download = await get(row.url);
      expect(download.status).toBe(200);
      expect(sha256(download.raw)).toBe(sha256(bytes));
      expect(download.headers).toMatchObject({ 'content-type': 'application/octet-stream', 'content-length': String(bytes.length), etag: `"${sha256(bytes)}"`, 'accept-ranges': 'bytes', 'x-content-type-options': 'nosniff' });
      expect(download.headers['content-disposition']).toMatch(/^attachment;/);
      expect(objects()).toContain(row.path);
      const head = await send(ctx.built, 'HEAD', row.url, auth);
      expect(head.status).toBe(200);
      expect(head.raw.length).toBe(0);
      expect(head.headers['content-length']).toBe(String(bytes.length));
      expect((await ctx.api.get(`/api/attachments/${row.id}`)).body.data).toEqual(row);
    });

    // [what, bytes, filename, declared type, stored type, disposition]
    const TYPES: [string, Buffer, string, string, string, 'inline' | 'attachment'][] = [
      ['a PNG', PNG, 'a.png', 'image/png', 'image/png', 'inline'],
      ['a JPEG sent as octet-stream', JPEG, 'a.jpg', 'application/octet-stream', 'image/jpeg', 'inline'],
      ['a PDF', PDF, 'a.pdf', 'application/pdf', 'application/pdf', 'inline'],
      ['an SVG (scripts in it never run: attachment)', SVG, 'a.svg', 'image/svg+xml', 'image/svg+xml', 'attachment'],
      ['HTML claiming to be a PNG', Buffer.from('<html><script>alert(1)</script></html>'), 'x.png', 'image/png', 'text/html', 'attachment'],
      ['plain text', TEXT, 'a.txt', 'text/plain', 'text/plain', 'inline'],
      ['CSV keeps its declared text type', Buffer.from('a,b\n1,2\n'), 'a.csv', 'text/csv', 'text/csv', 'attachment'],
    ];
    for (const [what, bytes, filename, declared, stored, disposition] of TYPES) {
      it(`types ${what} by its bytes as ${stored}, served ${disposition}`, async () => {
        const created = await up('/api/attachments:create', { bytes, filename, type: declared });
        expect(created.status, JSON.stringify(created.json)).toBe(201);
        expect(created.json.data.mimetype).toBe(stored);
        const download = await get(created.json.data.url);
        expect(download.headers['content-disposition']).toMatch(new RegExp(`^${disposition};`));
        expect(String(download.headers['content-type']).split(';')[0]).toBe(stored);
        expect(download.raw.equals(bytes)).toBe(true);
      });
    }

    // [what, client filename, stored filename]
    const NAMES: [string, string, string][] = [
      ['strips a path', '../../etc/passwd', 'passwd'],
      ['strips a Windows path', 'C:\\Users\\x\\photo.png', 'photo.png'],
      ['drops control and bidi characters', 'evil\u202egnp.exe\u0007', 'evilgnp.exe'],
      ['drops leading dots', '...hidden', 'hidden'],
      ['names a name of dots', '...', 'file'],
      ['cuts a long name before its extension', `${'n'.repeat(400)}.png`, `${'n'.repeat(251)}.png`],
    ];
    for (const [what, given, stored] of NAMES) {
      it(`sanitises the filename: ${what}`, async () => {
        const created = await up('/api/attachments:create', { bytes: TEXT, filename: given, type: 'text/plain' });
        expect(created.status, JSON.stringify(created.json)).toBe(201);
        expect(created.json.data.filename).toBe(stored);
      });
    }

    it('sends a non-ASCII filename as RFC 5987 filename*', async () => {
      const created = await up('/api/attachments:create', { bytes: TEXT, filename: 'résumé final.txt', type: 'text/plain' });
      const download = await get(created.json.data.url);
      expect(download.headers['content-disposition']).toBe(`inline; filename="r_sum_ final.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20final.txt`);
    });

    // [what, request, status, code]
    const REFUSED: [string, () => Promise<RawReply>, number, string][] = [
      ['a file over CORRAL_UPLOAD_MAX_BYTES', () => up('/api/attachments:create', { bytes: randomBytes(MAX + 1), filename: 'big.bin' }), 413, 'FILE_TOO_LARGE'],
      ['a JSON body', () => send(ctx.built, 'POST', '/api/attachments:create', { ...auth, 'content-type': 'application/json' }, Buffer.from('{"filename":"x"}')), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['no body', () => send(ctx.built, 'POST', '/api/attachments:create', auth), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['the file in another part', () => up('/api/attachments:create', { bytes: TEXT, name: 'upload' }), 400, 'BODY_INVALID'],
      ['a multipart body without a file', async () => {
        const { body, contentType } = await multipartBody([], { title: 'x' });
        return send(ctx.built, 'POST', '/api/attachments:create', { ...auth, 'content-type': contentType }, body);
      }, 400, 'BODY_INVALID'],
      ['a truncated multipart body', async () => {
        const { body, contentType } = await multipartBody([{ bytes: randomBytes(5000), filename: 'cut.bin' }]);
        return send(ctx.built, 'POST', '/api/attachments:create', { ...auth, 'content-type': contentType }, body.subarray(0, 3000));
      }, 400, 'BODY_INVALID'],
      ['text claiming to be a PNG, for a field taking images', () => up('/api/posts/1/cover:create', { bytes: TEXT, filename: 'x.png', type: 'image/png' }), 415, 'FILE_TYPE_NOT_ALLOWED'],
      ['a zip for a field taking images (attachmentField)', () => up('/api/attachments:create?attachmentField=posts.cover', { bytes: Buffer.from('504b0304140000000000', 'hex'), filename: 'x.png', type: 'image/png' }), 415, 'FILE_TYPE_NOT_ALLOWED'],
      ['an attachmentField that is not one', () => up('/api/attachments:create?attachmentField=posts.title', { bytes: PNG }), 400, 'PARAM_INVALID'],
      ['changing what describes the bytes', () => send(ctx.built, 'POST', '/api/attachments:update/1', { ...auth, 'content-type': 'application/json' }, Buffer.from('{"size":1}')), 400, 'VALUE_UNKNOWN_FIELD'],
    ];
    for (const [what, request, status, code] of REFUSED) {
      it(`refuses ${what} with ${status} ${code}, keeping no row and no file`, async () => {
        const rows = await count();
        const stored = objects();
        const reply = await request();
        expect(reply.status, JSON.stringify(reply.json)).toBe(status);
        expect(reply.json.errors[0].code).toBe(code);
        expect(await count()).toBe(rows);
        expect(objects()).toEqual(stored);
        expect(temps()).toEqual([]);
      });
    }

    describe('ranges and entity tags', () => {
      const bytes = Buffer.from('0123456789abcdefghij');
      let url: string;
      beforeAll(async () => {
        url = (await up('/api/attachments:create', { bytes, filename: 'r.txt', type: 'text/plain' })).json.data.url;
      });
      // [Range, status, body, Content-Range]
      const RANGES: [string, number, string, string | undefined][] = [
        ['bytes=0-9', 206, '0123456789', 'bytes 0-9/20'],
        ['bytes=15-', 206, 'fghij', 'bytes 15-19/20'],
        ['bytes=-3', 206, 'hij', 'bytes 17-19/20'],
        ['bytes=18-100', 206, 'ij', 'bytes 18-19/20'],
        ['bytes=0-1,4-5', 200, bytes.toString(), undefined],
        ['items=0-1', 200, bytes.toString(), undefined],
        ['bytes=20-', 416, '', 'bytes */20'],
      ];
      for (const [range, status, body, contentRange] of RANGES) {
        it(`answers Range ${range} with ${status}`, async () => {
          const reply = await get(url, { range });
          expect(reply.status).toBe(status);
          if (status === 416) expect(reply.json.errors[0].code).toBe('RANGE_NOT_SATISFIABLE');
          else expect(reply.raw.toString()).toBe(body);
          expect(reply.headers['content-range']).toBe(contentRange);
        });
      }
      it('answers If-None-Match with the tag 304, another tag 200', async () => {
        const tag = `"${sha256(bytes)}"`;
        const same = await get(url, { 'if-none-match': tag });
        expect(same.status).toBe(304);
        expect(same.raw.length).toBe(0);
        expect((await get(url, { 'if-none-match': '"other"' })).status).toBe(200);
      });
    });

    describe('attachment fields', () => {
      it('links attachments by key or {id} on create and update, and appends them with url', async () => {
        const a = (await up('/api/attachments:create', { bytes: PNG, filename: 'a.png' })).json.data;
        const b = (await up('/api/attachments:create', { bytes: JPEG, filename: 'b.jpg' })).json.data;
        const post = await ctx.api.post('/api/posts:create?appends=files', { title: 'p', owner: 'x', files: [a.id, { id: b.id }] });
        expect(post.status, post.text).toBe(201);
        const read = await ctx.api.get(`/api/posts/${post.body.data.id}?appends=files`);
        expect(read.body.data.files.map((file: { id: number }) => file.id).sort()).toEqual([a.id, b.id].sort());
        expect(read.body.data.files.find((file: { id: number }) => file.id === a.id)).toMatchObject({ url: a.url, mimetype: 'image/png' });
        const updated = await ctx.api.put(`/api/posts/${post.body.data.id}`, { files: [b.id] });
        expect(updated.status, updated.text).toBe(200);
        expect((await ctx.api.get(`/api/posts/${post.body.data.id}/files:list`)).body.data.map((file: { id: number }) => file.id)).toEqual([b.id]);
        // Unlinking keeps the attachment row (as NocoBase).
        expect((await ctx.api.get(`/api/attachments/${a.id}`)).status).toBe(200);
      });

      it('refuses two files for a field of one file', async () => {
        const reply = await ctx.api.post('/api/posts:create', { title: 'p', cover: [1, 2] });
        expect(reply.status).toBe(400);
        expect(reply.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'cover' });
      });

      it('uploads through the association and links in one go; a field of one file keeps the newest', async () => {
        const first = await up('/api/posts/1/cover:create', { bytes: PNG, filename: 'c1.png' });
        expect(first.status, JSON.stringify(first.json)).toBe(201);
        const second = await up('/api/posts/1/cover:create', { bytes: PDF, filename: 'c2.pdf' });
        expect(second.status, JSON.stringify(second.json)).toBe(201);
        const cover = await ctx.api.get('/api/posts/1/cover:list');
        expect(cover.body.data.map((file: { id: number }) => file.id)).toEqual([second.json.data.id]);
        const files = await up('/api/posts/1/files:create', { bytes: TEXT, filename: 'n.txt' });
        expect(files.status).toBe(201);
        const listed = await ctx.api.get('/api/posts/1/files:list');
        expect(listed.body.data.map((file: { id: number }) => file.id)).toContain(files.json.data.id);
        expect((await ctx.api.post(`/api/posts/1/files:remove`, [files.json.data.id])).status).toBe(200);
        expect((await ctx.api.get(`/api/attachments/${files.json.data.id}`)).status).toBe(200);
      });

      it('accepts NocoBase\'s own shape of an attachment field', async () => {
        const reply = await ctx.api.post('/api/collections/posts/fields:create', { name: 'docs', type: 'belongsToMany', target: 'attachments', interface: 'attachment', uiSchema: { title: 'Docs' } });
        expect(reply.status, reply.text).toBe(201);
        expect(reply.body.data).toMatchObject({ type: 'belongsToMany', target: 'attachments', through: 'posts_docs', interface: 'attachment' });
        expect((await up('/api/posts/1/docs:create', { bytes: TEXT, filename: 'd.txt' })).status).toBe(201);
      });
    });

    describe('access follows the owning record', () => {
      // [what, set up (returns the attachment id), readable by reader]
      const CASES: [string, () => Promise<number>, boolean][] = [
        ['a file of a post the reader can view', async () => (await up('/api/posts/1/files:create', { bytes: randomBytes(100) })).json.data.id, true],
        ['a file of a post the reader cannot view', async () => (await up('/api/posts/2/files:create', { bytes: randomBytes(100) })).json.data.id, false],
        ['a file of both', async () => {
          const id = (await up('/api/posts/2/files:create', { bytes: randomBytes(100) })).json.data.id;
          expect((await ctx.api.post('/api/posts/1/files:add', [id])).status).toBe(200);
          return id;
        }, true],
        ['an unlinked file the reader uploaded', async () => (await up('/api/attachments:create', { bytes: randomBytes(100) }, readerAuth)).json.data.id, true],
        ['an unlinked file root uploaded', async () => (await up('/api/attachments:create', { bytes: randomBytes(100) })).json.data.id, false],
        ['a file the reader uploaded, then linked to a post it cannot view', async () => {
          const id = (await up('/api/attachments:create', { bytes: randomBytes(100) }, readerAuth)).json.data.id;
          expect((await ctx.api.post('/api/posts/2/files:add', [id])).status).toBe(200);
          return id;
        }, false],
      ];
      for (const [what, setUp, readable] of CASES) {
        it(`${readable ? 'serves' : 'answers 404 for'} ${what}`, async () => {
          const id = await setUp();
          const reply = await get(`/api/attachments/${id}/content`, {}, readerAuth);
          expect(reply.status).toBe(readable ? 200 : 404);
          if (!readable) expect(reply.json.errors[0].code).toBe('RECORD_NOT_FOUND');
          expect((await get(`/api/attachments/${id}/content`)).status).toBe(200);
        });
      }
      it('answers 404 for an attachment that does not exist', async () => {
        expect((await get('/api/attachments/999999/content')).status).toBe(404);
      });
      it('refuses a caller who cannot update the post an upload would link to', async () => {
        const reply = await up('/api/posts/2/files:create', { bytes: randomBytes(50) }, readerAuth);
        expect(reply.status).toBe(404);
      });
    });

    describe('deleting', () => {
      it('removes the bytes once the last row naming them is destroyed, after the commit', async () => {
        const bytes = randomBytes(300);
        const one = (await up('/api/attachments:create', { bytes, filename: 'one.bin' })).json.data;
        const two = (await up('/api/attachments:create', { bytes, filename: 'two.bin' })).json.data;
        expect(two.path).toBe(one.path);
        expect((await ctx.api.del(`/api/attachments/${one.id}`)).status).toBe(200);
        expect(objects()).toContain(one.path);
        expect((await get(two.url)).raw.equals(bytes)).toBe(true);
        expect((await ctx.api.del(`/api/attachments/${two.id}`)).status).toBe(200);
        expect(objects()).not.toContain(one.path);
      });

      it('keeps the bytes when the destroy rolls back', async () => {
        const row = (await up('/api/attachments:create', { bytes: randomBytes(300) })).json.data;
        const remove = ctx.built.store.beforeCommit((changes) => {
          if (changes.get('attachments')?.deleted.length) throw new Error('rolled back on purpose');
        });
        try {
          expect((await ctx.api.del(`/api/attachments/${row.id}`)).status).toBe(500);
        } finally {
          remove();
        }
        expect(objects()).toContain(row.path);
        expect((await get(row.url)).status).toBe(200);
      });

      it('removes the bytes of attachments destroyed through the association', async () => {
        const created = (await up('/api/posts/1/files:create', { bytes: randomBytes(300) })).json.data;
        expect((await ctx.api.del(`/api/posts/1/files/${created.id}`)).status).toBe(200);
        expect((await ctx.api.get(`/api/attachments/${created.id}`)).status).toBe(404);
        expect(objects()).not.toContain(created.path);
      });
    });
  });
}

describe.runIf(ONCE_DIALECT !== undefined)('the OpenAPI document describes uploads and downloads', () => {
  const ctx = useDialectApp(ONCE_DIALECT ?? 'sqlite');
  it('has multipart bodies for attachments:create and attachment fields\' create, and the content download with Range', async () => {
    await ctx.api.collection({ name: 'posts', fields: [{ name: 'files', type: 'attachment' }, { name: 'title', type: 'string' }] });
    const doc = (await ctx.api.get('/api/openapi.json')).body;
    const create = doc.paths['/api/attachments:create'].post;
    expect(Object.keys(create.requestBody.content)).toEqual(['multipart/form-data']);
    expect(create.parameters.some((parameter: { name?: string }) => parameter.name === 'attachmentField')).toBe(true);
    expect(Object.keys(doc.paths['/api/posts/{sourceKey}/files:create'].post.requestBody.content)).toEqual(['multipart/form-data']);
    expect(Object.keys(doc.paths['/api/posts:create'].post.requestBody.content)).toEqual(['application/json']);
    const content = doc.paths['/api/attachments/{id}/content'].get;
    expect(content.operationId).toBe('attachments.content.get');
    expect(Object.keys(content.responses)).toEqual(expect.arrayContaining(['200', '206', '304', '404', '416']));
    expect(content.parameters.map((parameter: { name?: string; $ref?: string }) => parameter.name)).toEqual(expect.arrayContaining(['id', 'Range', 'If-None-Match']));
    expect(doc.components.schemas.attachments.properties).toMatchObject({ url: expect.anything(), sha256: expect.anything(), mimetype: expect.anything() });
  });
});
