import { beforeAll, describe, expect, it } from 'vitest';
import { apiFor, useDialectApp, type Reply, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * NocoBase's API key cases (packages/plugins/@nocobase/plugin-api-keys/src/server/__tests__/actions.test.ts),
 * ported in our words over HTTP. Differences: docs/api.md "Differences from NocoBase" → "ACL and API keys".
 */
const NB = 'plugin-api-keys/src/server/__tests__/actions.test.ts';
const DAY = 24 * 3600;

const ok = (reply: Reply, status = 200): Reply => {
  expect(reply.status, reply.text).toBe(status);
  return reply;
};

/** The claims of a token (its signature is the server's business). */
const claims = (token: string): Record<string, unknown> => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

for (const dialect of DIALECTS) {
  describe(`NocoBase compatibility: API keys on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let owner: TestApi;
    let other: TestApi;
    let ownerName: string;
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    const anonymous = () => apiFor(ctx.built, null);

    beforeAll(async () => {
      for (const role of [{ name: 'admin', strategy: { actions: ['view', 'create', 'update', 'destroy'] } }, { name: 'TEST_ROLE' }]) ok(await ctx.api.post('/api/roles:create', role), 201);
      ok(await ctx.api.post('/api/roles:update?filterByTk=admin', { resources: [{ name: 'apiKeys', actions: [{ name: 'view' }, { name: 'create' }, { name: 'destroy' }] }] }));
      for (const name of ['owner', 'other']) ok(await ctx.api.post('/api/users:create', { email: `${name}@keys.test`, nickname: name, password: `${name}-password`, roles: ['admin'] }), 201);
      owner = apiFor(ctx.built, { account: 'owner@keys.test', password: 'owner-password' });
      other = apiFor(ctx.built, { account: 'other@keys.test', password: 'other-password' });
      ownerName = 'owner';
    });

    const create = (api: TestApi, body: Record<string, unknown>) => api.request('POST', '/api/apiKeys:create', body, { 'x-role': 'admin' });

    it(`create basic (${NB}): role as NocoBase sends it, {name, ...}`, async () => {
      const reply = ok(await create(owner, { name: 'TEST', role: { name: 'admin', title: 'Admin', default: true }, expiresIn: DAY }), 201);
      expect(typeof reply.body.data.token).toBe('string');
    });

    it(`the role that does not belong to you should throw error (${NB}): 400`, async () => {
      const reply = ok(await create(owner, { name: 'TEST', role: { name: 'TEST_ROLE' }, expiresIn: DAY }), 400);
      expect(reply.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', field: 'role' });
      ok(await create(owner, { name: 'TEST', role: 'root' }), 400);
    });

    it(`token should work (${NB})`, async () => {
      const { token } = ok(await create(owner, { name: 'works', role: 'admin', expiresIn: DAY }), 201).body.data;
      const check = ok(await anonymous().request('GET', '/api/auth:check', undefined, bearer(token)));
      expect(check.body.data.nickname).toBe(ownerName);
    });

    it(`token expiresIn correctly, token roleName correctly (${NB})`, async () => {
      const { token } = ok(await create(owner, { name: 'exp', role: { name: 'admin' }, expiresIn: DAY }), 201).body.data;
      const payload = claims(token);
      expect(Number(payload.exp) - Number(payload.iat)).toBe(DAY);
      expect(payload.roleName).toBe('admin');
    });

    it('expiresIn as NocoBase\'s form writes it: 1d, 7d, 30d, 90d, never; anything else is 400 (Corral)', async () => {
      for (const [expiresIn, seconds] of [['1d', DAY], ['7d', 7 * DAY], ['30d', 30 * DAY], ['90d', 90 * DAY], ['never', 10 * 365 * DAY]] as const) {
        const { token } = ok(await create(owner, { name: `k-${expiresIn}`, role: 'admin', expiresIn }), 201).body.data;
        const payload = claims(token);
        expect(Number(payload.exp) - Number(payload.iat), expiresIn).toBe(seconds);
      }
      for (const expiresIn of ['soon', '0d', -5, 1.5, 11 * 365 * DAY, '99999999999d']) {
        expect(ok(await create(owner, { name: 'bad', role: 'admin', expiresIn }), 400).body.errors[0].field).toBe('expiresIn');
      }
    });

    it(`list basic (${NB}): rows expose roleName`, async () => {
      const rows = ok(await owner.request('GET', '/api/apiKeys:list?paginate=false', undefined, { 'x-role': 'admin' })).body.data;
      const row = rows.find((key: { name: string }) => key.name === 'TEST');
      expect(row).toMatchObject({ name: 'TEST', roleName: 'admin' });
    });

    it(`Only show current user's API keys (${NB})`, async () => {
      expect(ok(await other.request('GET', '/api/apiKeys:list', undefined, { 'x-role': 'admin' })).body.data).toEqual([]);
      ok(await create(other, { name: 'TEST_USER_KEY', role: 'admin', expiresIn: 180 * DAY }), 201);
      const mine = ok(await other.request('GET', '/api/apiKeys:list', undefined, { 'x-role': 'admin' })).body.data;
      expect(mine.map((key: { name: string }) => key.name)).toEqual(['TEST_USER_KEY']);
    });

    it(`destroy basic, Cannot delete other user's API keys, The token should not work after removing the api key (${NB})`, async () => {
      const { id, token } = ok(await create(owner, { name: 'doomed', role: 'admin' }), 201).body.data;
      ok(await other.request('POST', `/api/apiKeys:destroy?filterByTk=${id}`, undefined, { 'x-role': 'admin' }), 404);
      ok(await anonymous().request('GET', '/api/auth:check', undefined, bearer(token)));
      ok(await owner.request('POST', `/api/apiKeys:destroy?filterByTk=${id}`, undefined, { 'x-role': 'admin' }));
      const names = ok(await owner.request('GET', '/api/apiKeys:list?paginate=false', undefined, { 'x-role': 'admin' })).body.data.map((key: { name: string }) => key.name);
      expect(names).not.toContain('doomed');
      ok(await anonymous().request('GET', '/api/auth:check', undefined, bearer(token)), 401);
    });
  });
}
