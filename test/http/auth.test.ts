import { describe, expect, it } from 'vitest';
import { apiFor, TEST_ROOT, useDialectApp, type Reply } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';
import { ACCOUNT_FAILURES, ADDRESS_FAILURES } from '../../src/auth/rate-limiter.js';

function expectError(reply: Reply, status: number, code: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.errors[0].code, reply.text).toBe(code);
}

/** One route of each family: data, item, association, link, count, schema, auth, REST. */
const ROUTES: Array<[string, string, unknown?]> = [
  ['GET', '/api/posts:list'],
  ['GET', '/api/posts:get/1'],
  ['GET', '/api/posts/1'],
  ['POST', '/api/posts:create', { title: 'x' }],
  ['POST', '/api/posts:update/1', { title: 'x' }],
  ['POST', '/api/posts:destroy/1'],
  ['GET', '/api/posts:count'],
  ['GET', '/api/posts/1/comments:list'],
  ['POST', '/api/posts/1/tags:add', [1]],
  ['GET', '/api/collections:list'],
  ['POST', '/api/collections:create', { name: 'sneaky' }],
  ['GET', '/api/collections/posts/fields:list'],
  ['GET', '/api/users:list'],
  ['GET', '/api/roles:list'],
  ['GET', '/api/apiKeys:list'],
  ['GET', '/api/auth:check'],
  ['POST', '/api/auth:signOut'],
  ['GET', '/api/nowhere:list'],
  ['GET', '/api/openapi.json'],
];

/** The app's clock: real time plus what a test moved it forward (instead of sleeping). */
let offset = 0;
const clock = () => Date.now() + offset;

for (const dialect of DIALECTS) {
  describe(`authentication on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, {}, { clock });
    const anonymous = () => apiFor(ctx.built, null);

    it('answers 401 AUTH_REQUIRED to anonymous requests on every route family, and stores nothing', async () => {
      await ctx.api.collection({ name: 'comments', fields: [{ name: 'body', type: 'string' }] });
      await ctx.api.collection({ name: 'tags', fields: [{ name: 'label', type: 'string' }] });
      await ctx.api.collection({ name: 'posts', fields: [{ name: 'title', type: 'string' }, { name: 'comments', type: 'hasMany' }, { name: 'tags', type: 'belongsToMany' }] });
      expect((await ctx.api.post('/api/posts:create', { title: 'kept' })).status).toBe(201);
      expect((await ctx.api.post('/api/tags:create', { label: 't' })).status).toBe(201);
      const client = anonymous();
      for (const [method, url, body] of ROUTES) expectError(await client.request(method, url, body), 401, 'AUTH_REQUIRED');
      const posts = await ctx.api.get('/api/posts:list');
      expect(posts.body.data.map((post: { title: string }) => post.title)).toEqual(['kept']);
      expect((await ctx.api.get('/api/collections/sneaky')).status).toBe(404);
    });

    it('leaves sign-in, app:getInfo and the health checks open', async () => {
      const client = anonymous();
      expect((await client.get('/healthz')).status).toBe(200);
      expect((await client.get('/readyz')).status).toBe(200);
      expect((await client.get('/api/app:getInfo')).status).toBe(200);
      // The reference page holds nothing of the schema; the document it loads needs a token.
      expect((await client.get('/api/docs')).status).toBe(200);
      const signIn = await client.post('/api/auth:signIn', { account: TEST_ROOT.email, password: TEST_ROOT.password });
      expect(signIn.status, signIn.text).toBe(200);
      expect(signIn.body.data.user).toMatchObject({ email: TEST_ROOT.email, roles: ['root'] });
      expect(signIn.body.data.user).not.toHaveProperty('password');
      expect(typeof signIn.body.data.token).toBe('string');
    });

    it('never returns a password, even to root', async () => {
      const users = await ctx.api.get('/api/users:list');
      expect(users.status, users.text).toBe(200);
      expect(users.body.data.length).toBeGreaterThan(0);
      for (const user of users.body.data) expect(user).not.toHaveProperty('password');
      const created = await ctx.api.post('/api/users:create', { email: 'amy@corral.test', password: 'amy-secret', roles: ['root'] });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data).not.toHaveProperty('password');
      const amy = apiFor(ctx.built, { account: 'amy@corral.test', password: 'amy-secret' });
      expect((await amy.get('/api/auth:check')).body.data).toMatchObject({ email: 'amy@corral.test' });
    });

    it('refuses bad credentials and bad bodies', async () => {
      const client = anonymous();
      expectError(await client.post('/api/auth:signIn', { account: TEST_ROOT.email, password: 'wrong' }), 401, 'AUTH_BAD_CREDENTIALS');
      expectError(await client.post('/api/auth:signIn', { account: 'nobody@corral.test', password: 'wrong' }), 401, 'AUTH_BAD_CREDENTIALS');
      expectError(await client.post('/api/auth:signIn', { account: TEST_ROOT.email }), 400, 'BODY_INVALID');
      expectError(await client.get('/api/auth:signIn'), 405, 'METHOD_NOT_ALLOWED');
    });

    it('refuses garbage, tampered, malformed and expired tokens with 401 AUTH_INVALID_TOKEN', async () => {
      const client = anonymous();
      const good = (await client.post('/api/auth:signIn', { account: TEST_ROOT.email, password: TEST_ROOT.password })).body.data.token as string;
      const [header, payload, signature] = good.split('.');
      const tampered = `${header}.${payload}.${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}`;
      const expired = await ctx.built.auth!.sign({ sub: '1' }, -10);
      for (const authorization of ['Bearer garbage', `Bearer ${tampered}`, `Basic ${good}`, `Bearer ${expired}`]) {
        expectError(await client.request('GET', '/api/posts:list', undefined, { authorization }), 401, 'AUTH_INVALID_TOKEN');
      }
      expect((await client.request('GET', '/api/posts:list', undefined, { authorization: `Bearer ${good}` })).status).toBe(200);
    });

    it('a verified token is reused only until it expires', async () => {
      const client = anonymous();
      const short = await ctx.built.auth!.tokenFor('1', 1);
      const send = () => client.request('GET', '/api/posts:count', undefined, { authorization: `Bearer ${short}` });
      expect((await send()).status).toBe(200);
      offset += 2100;
      expectError(await send(), 401, 'AUTH_INVALID_TOKEN');
    });

    it('revokes a token at sign-out, and only that token', async () => {
      const client = anonymous();
      const signIn = async () => (await client.post('/api/auth:signIn', { account: 'root', password: TEST_ROOT.password })).body.data.token as string;
      const first = await signIn();
      const second = await signIn();
      const as = (token: string) => ({ authorization: `Bearer ${token}` });
      expect((await client.request('POST', '/api/auth:signOut', undefined, as(first))).status).toBe(200);
      expectError(await client.request('GET', '/api/posts:list', undefined, as(first)), 401, 'AUTH_INVALID_TOKEN');
      expectError(await client.request('POST', '/api/auth:signOut', undefined, as(first)), 401, 'AUTH_INVALID_TOKEN');
      expect((await client.request('GET', '/api/posts:list', undefined, as(second))).status).toBe(200);
      // Another node sharing the database learns of the revocation when it refreshes its list.
      await ctx.built.auth!.refreshRevocations();
      expectError(await client.request('GET', '/api/auth:check', undefined, as(first)), 401, 'AUTH_INVALID_TOKEN');
    });

    it('refuses an X-Role the user does not hold', async () => {
      const reply = await ctx.api.request('GET', '/api/posts:list', undefined, { 'x-role': 'editor' });
      expectError(reply, 403, 'FORBIDDEN');
      expect((await ctx.api.request('GET', '/api/posts:list', undefined, { 'x-role': 'root' })).status).toBe(200);
    });

    it('rate limits failed sign-ins per account with 429 RATE_LIMITED and Retry-After', async () => {
      const client = anonymous();
      await ctx.api.post('/api/users:create', { email: 'limited@corral.test', password: 'right-password' });
      for (let i = 0; i < ACCOUNT_FAILURES; i++) {
        expectError(await client.post('/api/auth:signIn', { account: 'limited@corral.test', password: `wrong ${i}` }), 401, 'AUTH_BAD_CREDENTIALS');
      }
      const limited = await client.post('/api/auth:signIn', { account: 'limited@corral.test', password: 'right-password' });
      expectError(limited, 429, 'RATE_LIMITED');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      // Other accounts are not locked out by it.
      expect((await client.post('/api/auth:signIn', { account: TEST_ROOT.email, password: TEST_ROOT.password })).status).toBe(200);
    });

    it('rate limits failed sign-ins per client address', async () => {
      const client = anonymous();
      let status = 0;
      for (let i = 0; i < ADDRESS_FAILURES + 1 && status !== 429; i++) {
        status = (await client.post('/api/auth:signIn', { account: `guess${i}@corral.test`, password: 'x' })).status;
      }
      expect(status).toBe(429);
      expectError(await client.post('/api/auth:signIn', { account: 'one-more-guess@corral.test', password: 'x' }), 429, 'RATE_LIMITED');
      // An account without failures of its own is not locked out by the address (test/http/sign-in-limits.test.ts).
      expect((await client.post('/api/auth:signIn', { account: TEST_ROOT.email, password: TEST_ROOT.password })).status).toBe(200);
    });
  });
}

for (const dialect of DIALECTS) {
  describe(`CORRAL_AUTH=off on ${dialect} (local development, loopback only)`, () => {
    const ctx = useDialectApp(dialect, { auth: { enabled: false, rootEmail: TEST_ROOT.email, rootPassword: TEST_ROOT.password, tokenTtlSeconds: 3600 } });

    it('opens every route without a token, the document included; the auth actions are not there', async () => {
      const client = apiFor(ctx.built, null);
      expect((await client.post('/api/collections:create', { name: 'notes', fields: [{ name: 'title', type: 'string' }] })).status).toBe(201);
      expect((await client.post('/api/notes:create', { title: 'open' })).status).toBe(201);
      expect((await client.get('/api/notes:list')).body.data.map((note: { title: string }) => note.title)).toEqual(['open']);
      expect((await client.get('/api/openapi.json')).status).toBe(200);
      expectError(await client.post('/api/auth:signIn', { account: TEST_ROOT.email, password: TEST_ROOT.password }), 404, 'ACTION_NOT_FOUND');
    });
  });
}
