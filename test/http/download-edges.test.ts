import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_FIELD_BYTES_BEFORE_FILE, MAX_FIELDS_BEFORE_FILE } from '../../src/http/multipart.js';
import { multipartBody, send, upload, type RawReply } from '../support/multipart.js';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

const BYTES = Buffer.from('0123456789abcdefghij');
const fields = (count: number, size = 8): Record<string, string> => Object.fromEntries(Array.from({ length: count }, (_, i) => [`f${i}`, 'x'.repeat(size)]));

for (const dialect of DIALECTS) {
  describe(`download and upload edges on ${dialect}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-download-edges-'));
    const ctx = useDialectApp(dialect, { storage: { kind: 'local', dir } });
    let auth: Record<string, string>;
    let url: string;
    let tag: string;
    let lastModified: string;
    const get = (path: string, headers: Record<string, string> = {}): Promise<RawReply> => send(ctx.built, 'GET', path, { ...auth, ...headers });
    const post = async (form: Record<string, string>, withFile = true): Promise<RawReply> => {
      const { body, contentType } = await multipartBody(withFile ? [{ bytes: BYTES, filename: 'a.txt', type: 'text/plain' }] : [], form);
      return send(ctx.built, 'POST', '/api/attachments:create', { ...auth, 'content-type': contentType }, body);
    };

    beforeAll(async () => {
      auth = await ctx.api.authHeaders();
      const created = await upload(ctx.built, '/api/attachments:create', auth, { bytes: BYTES, filename: 'a.txt', type: 'text/plain' });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      url = created.json.data.url;
      const whole = await get(url);
      tag = String(whole.headers.etag);
      lastModified = String(whole.headers['last-modified']);
      expect(new Date(lastModified).toUTCString()).toBe(lastModified);
    });

    // [what, If-Range (a function of the current tag and date), ranged?]
    const IF_RANGE: [string, (tag: string, date: string) => string, boolean][] = [
      ['the current strong tag', (t) => t, true],
      ['another tag', () => '"0000"', false],
      ['the current tag, weak', (t) => `W/${t}`, false],
      ['the Last-Modified date', (_, d) => d, true],
      ['another date', () => 'Thu, 01 Jan 1970 00:00:00 GMT', false],
      ['a malformed value', () => 'yesterday', false],
    ];
    for (const [what, ifRange, ranged] of IF_RANGE) {
      it(`If-Range with ${what} gives ${ranged ? 'the range (206)' : 'the whole file (200)'}`, async () => {
        const reply = await get(url, { range: 'bytes=2-5', 'if-range': ifRange(tag, lastModified) });
        expect(reply.status).toBe(ranged ? 206 : 200);
        expect(reply.raw.toString()).toBe(ranged ? '2345' : BYTES.toString());
        if (ranged) expect(reply.headers['content-range']).toBe(`bytes 2-5/${BYTES.length}`);
        else expect(reply.headers['content-range']).toBeUndefined();
      });
    }

    it('a Range without If-Range still gives 206', async () => {
      expect((await get(url, { range: 'bytes=0-0' })).status).toBe(206);
    });

    for (const tail of ['/anything', '/1', ':get/1', '/anything/more']) {
      it(`the content path is exact: <id>/content${tail} is 404`, async () => {
        const reply = await get(`${url}${tail}`);
        expect(reply.status).toBe(404);
        expect(reply.json.errors[0].code).toBe('ROUTE_NOT_FOUND');
      });
    }

    // [what, form fields before the file, status, code]
    const FORMS: [string, Record<string, string>, number, string | undefined][] = [
      ['200 short fields', fields(200), 201, undefined],
      [`${MAX_FIELDS_BEFORE_FILE} fields of ${MAX_FIELD_BYTES_BEFORE_FILE} bytes`, fields(MAX_FIELDS_BEFORE_FILE, MAX_FIELD_BYTES_BEFORE_FILE), 201, undefined],
      [`${MAX_FIELDS_BEFORE_FILE + 1} fields`, fields(MAX_FIELDS_BEFORE_FILE + 1), 413, 'FORM_TOO_LARGE'],
      ['one field a byte too long', fields(1, MAX_FIELD_BYTES_BEFORE_FILE + 1), 413, 'FORM_TOO_LARGE'],
    ];
    for (const [what, form, status, code] of FORMS) {
      it(`an upload with ${what} before its file answers ${status}`, async () => {
        const reply = await post(form);
        expect(reply.status, JSON.stringify(reply.json)).toBe(status);
        if (code !== undefined) expect(reply.json.errors[0].code).toBe(code);
        else expect(Buffer.from((await get(reply.json.data.url)).raw).toString()).toBe(BYTES.toString());
      });
    }

    it('a truncated multipart body is 400 BODY_INVALID in Corral words, not the parser\'s', async () => {
      const { body, contentType } = await multipartBody([{ bytes: BYTES, filename: 'a.txt', type: 'text/plain' }], fields(3));
      const reply = await send(ctx.built, 'POST', '/api/attachments:create', { ...auth, 'content-type': contentType }, body.subarray(0, 120));
      expect(reply.status).toBe(400);
      expect(reply.json.errors[0].code).toBe('BODY_INVALID');
      expect(reply.json.errors[0].message).not.toMatch(/Unexpected|undefined|TypeError|busboy/i);
    });
  });
}
