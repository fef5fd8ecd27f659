import { describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

const ALLOWED = 'https://app.example.com';

for (const dialect of DIALECTS) {
  describe(`browser rules on ${dialect} (loopback listener, CORRAL_CORS_ORIGINS=${ALLOWED})`, () => {
    const ctx = useDialectApp(dialect, { corsOrigins: [ALLOWED], allowedHosts: ['corral.internal'] });

    it('refuses a request from another origin with 403 ORIGIN_FORBIDDEN before any action runs', async () => {
      await ctx.api.collection({ name: 'victims', fields: [{ name: 'label', type: 'string' }] });
      for (const [method, url, body] of [
        ['POST', '/api/collections:destroy?filterByTk=victims', undefined],
        ['POST', '/api/victims:create', '{"label":"x"}'],
        ['GET', '/api/victims:list', undefined],
      ] as const) {
        const reply = await ctx.api.request(method, url, body, { origin: 'http://evil.example', 'content-type': 'text/plain' });
        expect(reply.status, `${method} ${url}`).toBe(403);
        expect(reply.body.errors[0].code).toBe('ORIGIN_FORBIDDEN');
        expect(reply.headers['access-control-allow-origin']).toBeUndefined();
      }
      expect((await ctx.api.get('/api/victims:list')).body.meta.count).toBe(0);
      expect((await ctx.api.get('/api/collections/victims')).status).toBe(200);
    });

    it('answers a preflight from an allowed origin and adds CORS headers to its requests', async () => {
      const preflight = await ctx.api.request('OPTIONS', '/api/victims:create', undefined, {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(String(preflight.headers['access-control-allow-methods'])).toContain('POST');
      expect(preflight.headers['access-control-allow-headers']).toBe('content-type');
      const created = await ctx.api.request('POST', '/api/victims:create', { label: 'ok' }, { origin: ALLOWED });
      expect(created.status).toBe(201);
      expect(created.headers['access-control-allow-origin']).toBe(ALLOWED);
      expect(String(created.headers['access-control-expose-headers'])).toContain('x-request-id');
    });

    it('refuses a preflight from another origin', async () => {
      const reply = await ctx.api.request('OPTIONS', '/api/victims:create', undefined, { origin: 'http://evil.example', 'access-control-request-method': 'POST' });
      expect(reply.status).toBe(403);
      expect(reply.body.errors[0].code).toBe('ORIGIN_FORBIDDEN');
    });

    const CORS = { 'access-control-allow-origin': ALLOWED, 'access-control-expose-headers': 'x-request-id, location' };
    const PREFLIGHT = {
      ...CORS,
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
      'access-control-max-age': '600',
      'content-length': '0',
      vary: 'Origin, Access-Control-Request-Headers',
    };
    const NONE = { 'access-control-allow-origin': undefined, 'access-control-expose-headers': undefined, 'access-control-allow-methods': undefined };
    it.each([
      // A tagged answer also varies with who asks (its ETag follows the caller's grants: docs/api.md).
      ['GET', '/api/victims:list', {}, 200, { ...NONE, vary: 'Origin, Authorization, X-Role' }],
      ['GET', '/api/victims:list', { origin: ALLOWED }, 200, { ...CORS, vary: 'Origin, Authorization, X-Role' }],
      ['GET', '/api/nothing:list', { origin: ALLOWED }, 404, { ...CORS, vary: 'Origin' }],
      ['GET', '/healthz', { origin: ALLOWED }, 200, { ...CORS, vary: 'Origin' }],
      ['GET', '/no/such/route', { origin: ALLOWED }, 404, { ...CORS, vary: 'Origin' }],
      ['OPTIONS', '/api/victims:create', { origin: ALLOWED, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, x-foo' }, 204, { ...PREFLIGHT, 'access-control-allow-headers': 'content-type, x-foo' }],
      ['OPTIONS', '/api/victims:create', { origin: ALLOWED, 'access-control-request-method': 'POST' }, 204, { ...PREFLIGHT, 'access-control-allow-headers': undefined }],
      ['OPTIONS', '/healthz', { origin: ALLOWED, 'access-control-request-method': 'GET' }, 204, PREFLIGHT],
      ['OPTIONS', '/no/such/route', { origin: ALLOWED, 'access-control-request-method': 'GET' }, 204, PREFLIGHT],
      ['OPTIONS', '/api/victims:create', { origin: ALLOWED }, 405, { ...CORS, vary: 'Origin', allow: 'POST, PUT, PATCH, DELETE' }],
      ['OPTIONS', '/api/victims:create', { 'access-control-request-method': 'POST' }, 405, { ...NONE, vary: 'Origin' }],
      ['OPTIONS', '/no/such/route', { origin: ALLOWED }, 404, { ...CORS, vary: 'Origin' }],
      ['OPTIONS', '/no/such/route', {}, 404, { ...NONE, vary: 'Origin' }],
      ['GET', '/api/victims:list', { origin: 'http://evil.example' }, 403, { ...NONE, vary: undefined }],
    ] as const)('%s %s with %j answers %i and exactly these CORS headers', async (method, url, headers, status, expected) => {
      const reply = await ctx.api.request(method, url, undefined, { ...headers });
      expect(reply.status).toBe(status);
      for (const [name, value] of Object.entries(expected)) expect(reply.headers[name], name).toBe(value);
      expect(reply.headers['x-request-id']).toBeDefined();
    });

    it('answers a request without Origin as before (no CORS headers)', async () => {
      const reply = await ctx.api.get('/api/victims:list');
      expect(reply.status).toBe(200);
      expect(reply.headers['access-control-allow-origin']).toBeUndefined();
      expect((await ctx.api.request('OPTIONS', '/api/victims:list')).body.errors[0].code).toBe('METHOD_NOT_ALLOWED');
    });

    it.each(['localhost', 'localhost:13000', '127.0.0.1:80', '[::1]:8080', 'LOCALHOST', 'corral.internal', 'Corral.Internal:443'])(
      'accepts Host %s on a loopback listener',
      async (host) => {
        expect((await ctx.api.request('GET', '/api/victims:list', undefined, { host })).status).toBe(200);
      },
    );

    it.each(['evil.example', 'evil.example:13000', '127.0.0.1.evil.example', 'localhost.evil.example', '[::2]'])(
      'refuses Host %s on a loopback listener with 403 HOST_FORBIDDEN (DNS rebinding)',
      async (host) => {
        const reply = await ctx.api.request('POST', '/api/collections:destroy?filterByTk=victims', undefined, { host });
        expect(reply.status).toBe(403);
        expect(reply.body.errors[0].code).toBe('HOST_FORBIDDEN');
      },
    );
  });

  describe(`browser rules on ${dialect} (public listener, no origins configured)`, () => {
    const ctx = useDialectApp(dialect, { host: '0.0.0.0' });

    it('accepts any Host on a non-loopback listener and refuses every Origin', async () => {
      expect((await ctx.api.request('GET', '/api/collections', undefined, { host: 'corral.example.com' })).status).toBe(200);
      const reply = await ctx.api.request('GET', '/api/collections', undefined, { origin: 'http://localhost:3000' });
      expect(reply.status).toBe(403);
      expect(reply.body.errors[0].code).toBe('ORIGIN_FORBIDDEN');
    });
  });
}
