import type { AddressInfo } from 'node:net';
import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type DialectApp } from '../support/test-app.js';

/** A request with its own headers (the token added), answered as raw bytes. */
async function raw(ctx: DialectApp, method: string, url: string, headers: Record<string, string> = {}) {
  return ctx.built.app.inject({ method: method as 'GET', url, headers: { ...(await ctx.api.authHeaders()), ...headers } });
}

/** The body as sent, decoded by its Content-Encoding. */
function decoded(reply: { rawPayload: Buffer; headers: Record<string, unknown> }): string {
  const encoding = reply.headers['content-encoding'];
  if (encoding === 'br') return brotliDecompressSync(reply.rawPayload).toString('utf8');
  if (encoding === 'gzip') return gunzipSync(reply.rawPayload).toString('utf8');
  return reply.rawPayload.toString('utf8');
}

for (const dialect of DIALECTS) {
  describe(`compression on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { changesPollMs: 50 });
    let small: number;

    beforeAll(async () => {
      await ctx.api.collection({ name: 'notes', fields: [{ name: 'text', type: 'string' }, { name: 'long', type: 'text' }] });
      for (let i = 0; i < 30; i++) {
        const created = await ctx.api.post('/api/notes:create', { text: `note number ${i} with some words to make the list long` });
        small = created.body.data.id as number;
      }
    });

    it('is off for metrics: /metrics is 404 unless CORRAL_METRICS says otherwise', async () => {
      const reply = await raw(ctx, 'GET', '/metrics');
      expect(reply.statusCode).toBe(404);
    });

    it.each([
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip, deflate, br', 'br'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
    ])('compresses a list over 1 KiB for Accept-Encoding %s with %s, and says Vary: Accept-Encoding', async (accept, expected) => {
      const plain = await raw(ctx, 'GET', '/api/notes:list?pageSize=30&sort=id');
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.rawPayload.length).toBeGreaterThan(1024);
      const reply = await raw(ctx, 'GET', '/api/notes:list?pageSize=30&sort=id', { 'accept-encoding': accept });
      expect(reply.statusCode).toBe(200);
      expect(reply.headers['content-encoding']).toBe(expected);
      expect(String(reply.headers.vary).toLowerCase()).toContain('accept-encoding');
      expect(reply.rawPayload.length).toBeLessThan(plain.rawPayload.length);
      expect(decoded(reply)).toBe(plain.body);
    });

    it('sends answers below 1 KiB as they are, and everything as it is without Accept-Encoding or with identity', async () => {
      const one = await raw(ctx, 'GET', `/api/notes/${small}`, { 'accept-encoding': 'gzip, br' });
      expect(one.statusCode).toBe(200);
      expect(one.headers['content-encoding']).toBeUndefined();
      expect(one.json().data.id).toBe(small);
      const identity = await raw(ctx, 'GET', '/api/notes:list?pageSize=30', { 'accept-encoding': 'identity' });
      expect(identity.headers['content-encoding']).toBeUndefined();
    });

    it('compresses a page asked for again to the same bytes (kept), and a changed page afresh', async () => {
      const url = '/api/notes:list?pageSize=30&sort=-id';
      const first = await raw(ctx, 'GET', url, { 'accept-encoding': 'br' });
      const second = await raw(ctx, 'GET', url, { 'accept-encoding': 'br' });
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
      await ctx.api.post('/api/notes:create', { text: 'a newer note that changes the first page' });
      const third = await raw(ctx, 'GET', url, { 'accept-encoding': 'br' });
      expect(third.headers.etag).not.toBe(first.headers.etag);
      const plain = await raw(ctx, 'GET', url);
      expect(decoded(third)).toBe(plain.body);
    });

    it('compresses a large answer off the event loop (thread pool), both codings', async () => {
      const created = await ctx.api.post('/api/notes:create', { long: Array.from({ length: 20000 }, (_, i) => `w${(i * 7919) % 10007}`).join(' ') });
      const id = created.body.data.id as number;
      const plain = await raw(ctx, 'GET', `/api/notes/${id}`);
      expect(plain.rawPayload.length).toBeGreaterThan(64 * 1024);
      for (const coding of ['br', 'gzip']) {
        const reply = await raw(ctx, 'GET', `/api/notes/${id}`, { 'accept-encoding': coding });
        expect(reply.headers['content-encoding']).toBe(coding);
        expect(decoded(reply)).toBe(plain.body);
      }
      await ctx.api.post(`/api/notes:destroy?filterByTk=${id}`, {});
    });

    it('says Vary: Accept-Encoding on a compressible answer even when the request asked for none', async () => {
      const plain = await raw(ctx, 'GET', '/api/notes:list?pageSize=30&sort=id');
      expect(String(plain.headers.vary).toLowerCase()).toContain('accept-encoding');
      expect(String(plain.headers.vary)).toContain('Authorization');
    });

    it('does not compress errors', async () => {
      const reply = await raw(ctx, 'GET', `/api/notes:list?filter=${encodeURIComponent(JSON.stringify({ nope: { $eq: 'x'.repeat(2000) } }))}`, { 'accept-encoding': 'gzip' });
      expect(reply.statusCode).toBe(400);
      expect(reply.headers['content-encoding']).toBeUndefined();
      expect(reply.json().errors[0].code).toBeTypeOf('string');
    });

    it('compresses a streamed list (paginate=false) through a compressing stream', async () => {
      const plain = await raw(ctx, 'GET', '/api/notes:list?paginate=false&sort=id');
      for (const coding of ['br', 'gzip']) {
        const reply = await raw(ctx, 'GET', '/api/notes:list?paginate=false&sort=id', { 'accept-encoding': coding });
        expect(reply.statusCode).toBe(200);
        expect(reply.headers['content-encoding']).toBe(coding);
        expect(decoded(reply)).toBe(plain.body);
      }
    });

    it('serves openapi.json compressed', async () => {
      const plain = await raw(ctx, 'GET', '/api/openapi.json');
      const reply = await raw(ctx, 'GET', '/api/openapi.json', { 'accept-encoding': 'br, gzip' });
      expect(reply.statusCode).toBe(200);
      expect(reply.headers['content-encoding']).toBe('br');
      expect(reply.rawPayload.length * 4).toBeLessThan(plain.rawPayload.length);
      expect(JSON.parse(decoded(reply))).toEqual(plain.json());
    });

    it('answers HEAD with the headers of the GET and no body', async () => {
      const reply = await raw(ctx, 'HEAD', '/api/notes:list?pageSize=30', { 'accept-encoding': 'gzip' });
      expect(reply.statusCode).toBe(200);
      expect(reply.rawPayload.length).toBe(0);
    });

    it('gives a compressed answer an entity tag of its own that still revalidates (304) and still guards an update (If-Match)', async () => {
      const plain = await raw(ctx, 'GET', '/api/notes:list?pageSize=30&sort=id');
      const plainTag = String(plain.headers.etag);
      const br = await raw(ctx, 'GET', '/api/notes:list?pageSize=30&sort=id', { 'accept-encoding': 'br' });
      const gzip = await raw(ctx, 'GET', '/api/notes:list?pageSize=30&sort=id', { 'accept-encoding': 'gzip' });
      const brTag = String(br.headers.etag);
      expect(brTag).toBe(`${plainTag.slice(0, -1)}-br"`);
      expect(String(gzip.headers.etag)).toBe(`${plainTag.slice(0, -1)}-gzip"`);
      const again = await raw(ctx, 'GET', '/api/notes:list?pageSize=30&sort=id', { 'accept-encoding': 'br', 'if-none-match': brTag });
      expect(again.statusCode).toBe(304);
      expect(again.rawPayload.length).toBe(0);
      expect(again.headers.etag).toBe(brTag);
      const plainAgain = await raw(ctx, 'GET', '/api/notes:list?pageSize=30&sort=id', { 'if-none-match': plainTag });
      expect(plainAgain.statusCode).toBe(304);
      // A record read compressed (a long text makes it pass 1 KiB) can be updated with the tag it came with.
      const created = await ctx.api.post('/api/notes:create', { long: 'x'.repeat(2000) });
      const id = created.body.data.id as number;
      const read = await raw(ctx, 'GET', `/api/notes/${id}`, { 'accept-encoding': 'gzip' });
      expect(read.headers['content-encoding']).toBe('gzip');
      const tag = String(read.headers.etag);
      expect(tag.endsWith('-gzip"')).toBe(true);
      const auth = await ctx.api.authHeaders();
      const updated = await ctx.built.app.inject({ method: 'PUT', url: `/api/notes/${id}`, payload: { long: 'y' }, headers: { ...auth, 'content-type': 'application/json', 'if-match': tag } });
      expect(updated.statusCode, updated.body).toBe(200);
      const stale = await ctx.built.app.inject({ method: 'PUT', url: `/api/notes/${id}`, payload: { long: 'z' }, headers: { ...auth, 'content-type': 'application/json', 'if-match': tag } });
      expect(stale.statusCode).toBe(412);
    });

    it('never compresses an event stream', async () => {
      await ctx.built.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (ctx.built.app.server.address() as AddressInfo).port;
      const headers = { ...(await ctx.api.authHeaders()), 'accept-encoding': 'gzip, br', accept: 'text/event-stream' };
      const answer = await new Promise<{ status: number; headers: Record<string, unknown>; first: string }>((resolve, reject) => {
        const request = httpRequest(`http://127.0.0.1:${port}/api/notes:subscribe`, { headers }, (response) => {
          response.once('data', (chunk: Buffer) => {
            resolve({ status: response.statusCode ?? 0, headers: response.headers, first: chunk.toString('utf8') });
            request.destroy();
          });
        });
        request.on('error', reject);
        request.end();
      });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toMatch(/^text\/event-stream/);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.first).toBe(': subscribed\n\n');
    });
  });

  describe(`compression turned off on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { compression: false });

    it('sends every answer as it is', async () => {
      const reply = await raw(ctx, 'GET', '/api/openapi.json', { 'accept-encoding': 'br, gzip' });
      expect(reply.statusCode).toBe(200);
      expect(reply.headers['content-encoding']).toBeUndefined();
      expect(reply.json().openapi).toMatch(/^3\./);
    });
  });
}
