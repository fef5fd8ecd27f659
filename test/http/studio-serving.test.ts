import { describe, expect, it } from 'vitest';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

const ASSET = /src="\/studio\/assets\/([^"]+\.js)"/;

for (const dialect of DIALECTS) {
  describe(`Corral Studio's page and assets on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    it.each(['/', '/studio', '/studio/collections/posts', '/studio/access'])('answers %s with the page, revalidated on every load', async (path) => {
      const reply = await ctx.api.request('GET', path, undefined, { authorization: '' });
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(reply.headers['cache-control']).toBe('no-cache');
      expect(reply.headers['content-security-policy']).toContain("default-src 'self'");
      expect(reply.text).toContain('<meta name="corral-api" content="/api">');
      expect(reply.text).toMatch(ASSET);
    });

    it('serves hashed assets immutable, precompressed as the client accepts, with 304 on a matching ETag', async () => {
      const page = await ctx.api.request('GET', '/', undefined, { authorization: '' });
      const path = `/studio/assets/${ASSET.exec(page.text)![1]}`;
      const cases: [string, string | undefined][] = [['br, gzip', 'br'], ['gzip', 'gzip'], ['identity', undefined]];
      for (const [accepts, encoding] of cases) {
        const reply = await ctx.api.request('GET', path, undefined, { authorization: '', 'accept-encoding': accepts });
        expect(reply.status).toBe(200);
        expect(reply.headers['content-encoding']).toBe(encoding);
        expect(reply.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(reply.headers['content-type']).toBe('text/javascript; charset=utf-8');
      }
      const plain = await ctx.api.request('GET', path, undefined, { authorization: '', 'accept-encoding': 'identity' });
      const again = await ctx.api.request('GET', path, undefined, { authorization: '', 'if-none-match': String(plain.headers.etag) });
      expect(again.status).toBe(304);
    });

    it('answers an unknown asset 404 in the error envelope', async () => {
      const reply = await ctx.api.request('GET', '/studio/assets/nothing-here.js', undefined, { authorization: '' });
      expect(reply.status).toBe(404);
      expect(reply.body.errors[0].code).toBe('ROUTE_NOT_FOUND');
    });

    // The server's own origin, as the request reached it, is not foreign (issue 25); any other still is.
    it.each([
      ['http://localhost', 'localhost:80', 201],
      ['http://127.0.0.1:4321', '127.0.0.1:4321', 201],
      ['http://LOCALHOST:4321', 'localhost:4321', 201],
      ['https://127.0.0.1:4321', '127.0.0.1:4321', 403],
      ['http://127.0.0.1:4322', '127.0.0.1:4321', 403],
      ['http://localhost:4321', '127.0.0.1:4321', 403],
      ['null', '127.0.0.1:4321', 403],
    ])('a write with Origin %s and Host %s answers %i', async (origin, host, status) => {
      await ctx.api.collection({ name: 'notes', fields: [{ name: 'text', type: 'string' }] }).catch(() => undefined);
      const reply = await ctx.api.request('POST', '/api/notes:create', { text: 'x' }, { origin, host });
      expect(reply.status).toBe(status);
      if (status === 403) expect(reply.body.errors[0].code).toBe('ORIGIN_FORBIDDEN');
    });

    it('keeps the DNS-rebinding Host check for a page on a foreign name claiming its own origin', async () => {
      const reply = await ctx.api.request('POST', '/api/notes:create', { text: 'x' }, { origin: 'http://evil.example:4321', host: 'evil.example:4321' });
      expect(reply.status).toBe(403);
      expect(reply.body.errors[0].code).toBe('HOST_FORBIDDEN');
    });
  });

  describe(`Corral Studio switched off on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { studio: false });

    it('answers / with 404 and leaves the API alone', async () => {
      const reply = await ctx.api.request('GET', '/', undefined, { authorization: '' });
      expect(reply.status).toBe(404);
      expect(reply.body.errors[0].code).toBe('ROUTE_NOT_FOUND');
      expect((await ctx.api.get('/api/collections:list')).status).toBe(200);
    });
  });

  describe(`Corral Studio under another API prefix on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { apiPrefix: '/v1' });

    it('names the prefix in the page', async () => {
      const reply = await ctx.api.request('GET', '/', undefined, { authorization: '' });
      expect(reply.text).toContain('<meta name="corral-api" content="/v1">');
      expect(reply.text).not.toContain('content="/api"');
    });
  });
}
