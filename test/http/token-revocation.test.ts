import { beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { apiFor, testConfig, useDialectApp, type Reply, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';
import { dropBuiltInField } from '../support/unprotected.js';

/**
 * A user's sign-in tokens stand only for the user as they were signed in: a password change,
 * a deletion, disabling and a role taken away revoke them (401 AUTH_INVALID_TOKEN). API keys
 * act as their creator: deletion, disabling and losing the key's role stop them, a password
 * change does not (docs/auth.md "Tokens").
 */

function expectError(reply: Reply, status: number, code: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.errors[0].code, reply.text).toBe(code);
}

for (const dialect of DIALECTS) {
  describe(`token revocation on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let anonymous: TestApi;
    const as = (token: string, role?: string) => ({ authorization: `Bearer ${token}`, ...(role === undefined ? {} : { 'x-role': role }) });
    const check = (token: string) => anonymous.request('GET', '/api/auth:check', undefined, as(token));
    const signIn = (account: string, password: string) => anonymous.post('/api/auth:signIn', { account, password });
    const tokenOf = async (account: string, password: string): Promise<string> => {
      const reply = await signIn(account, password);
      expect(reply.status, reply.text).toBe(200);
      return reply.body.data.token as string;
    };
    /** A user with a password of its name (who may make API keys); returns its id. */
    const createUser = async (name: string, roles: string[]): Promise<number> => {
      const created = await ctx.api.post('/api/users:create', { email: `${name}@corral.test`, username: name, password: `${name}-password`, roles: [...roles, 'keyMaker'] });
      expect(created.status, created.text).toBe(201);
      return created.body.data.id as number;
    };
    const apiKey = async (token: string, role: string): Promise<string> => {
      const created = await anonymous.request('POST', '/api/apiKeys:create', { name: `key for ${role}`, role }, as(token));
      expect(created.status, created.text).toBe(201);
      return created.body.data.token as string;
    };

    beforeAll(async () => {
      anonymous = apiFor(ctx.built, null);
      for (const role of [
        { name: 'reader', strategy: { actions: ['view'] } },
        { name: 'writer', strategy: { actions: ['view', 'create'] } },
        { name: 'keyMaker', strategy: { actions: [] }, resources: [{ name: 'apiKeys', actions: [{ name: 'create' }] }] },
        // Changes its own password, and nothing else of users.
        {
          name: 'selfService',
          strategy: { actions: ['view'] },
          resources: [{ name: 'users', actions: [{ name: 'view', filter: { id: '{{$user.id}}' } }, { name: 'update', filter: { id: '{{$user.id}}' }, fields: ['password'] }] }],
        },
      ]) {
        expect((await ctx.api.post('/api/roles:create', role)).status).toBe(201);
      }
    });

    it('a password change revokes the tokens issued before it, and leaves API keys alone', async () => {
      const id = await createUser('changer', ['reader']);
      const first = await tokenOf('changer@corral.test', 'changer-password');
      const second = await tokenOf('changer', 'changer-password');
      const key = await apiKey(first, 'reader');
      for (const token of [first, second, key]) expect((await check(token)).status).toBe(200);
      expect((await ctx.api.post(`/api/users:update/${id}`, { password: 'changed-password' })).status).toBe(200);
      for (const token of [first, second]) expectError(await check(token), 401, 'AUTH_INVALID_TOKEN');
      expect((await check(key)).status).toBe(200);
      expectError(await signIn('changer', 'changer-password'), 401, 'AUTH_BAD_CREDENTIALS');
      expect((await check(await tokenOf('changer', 'changed-password'))).status).toBe(200);
    });

    it('a user changing their own password revokes their own token too: they sign in again', async () => {
      const id = await createUser('selfish', ['selfService']);
      const token = await tokenOf('selfish', 'selfish-password');
      const other = await tokenOf('selfish', 'selfish-password');
      const changed = await anonymous.request('POST', `/api/users:update/${id}`, { password: 'my-new-password' }, as(token));
      expect(changed.status, changed.text).toBe(200);
      for (const old of [token, other]) expectError(await check(old), 401, 'AUTH_INVALID_TOKEN');
      expect((await check(await tokenOf('selfish', 'my-new-password'))).status).toBe(200);
    });

    it('deleting a user revokes its tokens, also when a new user is given its id', async () => {
      const id = await createUser('leaving', ['reader']);
      const token = await tokenOf('leaving', 'leaving-password');
      const key = await apiKey(token, 'reader');
      expect((await ctx.api.post(`/api/users:destroy/${id}`)).status).toBe(200);
      for (const old of [token, key]) expectError(await check(old), 401, 'AUTH_INVALID_TOKEN');
      // An id can come back (given explicitly, a restored dump, MySQL 5.7's counter after a restart): the old tokens must not act as the newcomer.
      const again = await ctx.api.post('/api/users:create', { id, email: 'newcomer@corral.test', password: 'newcomer-password', roles: ['reader', 'keyMaker'] });
      expect(again.status, again.text).toBe(201);
      expect(again.body.data.id).toBe(id);
      for (const old of [token, key]) expectError(await check(old), 401, 'AUTH_INVALID_TOKEN');
    });

    it('disabling a user revokes its tokens and refuses sign-in', async () => {
      const id = await createUser('disabled', ['reader']);
      const token = await tokenOf('disabled', 'disabled-password');
      const key = await apiKey(token, 'reader');
      expect((await anonymous.request('GET', '/api/users:list', undefined, as(token))).status).toBe(403);
      const listed = await ctx.api.get(`/api/users:get/${id}`);
      expect(listed.body.data.disabled, listed.text).toBe(false);
      expect((await ctx.api.post(`/api/users:update/${id}`, { disabled: true })).status).toBe(200);
      for (const old of [token, key]) expectError(await check(old), 401, 'AUTH_INVALID_TOKEN');
      expectError(await signIn('disabled', 'disabled-password'), 401, 'AUTH_BAD_CREDENTIALS');
      // Enabled again, the user signs in; the right password did not count as a failure.
      expect((await ctx.api.post(`/api/users:update/${id}`, { disabled: false })).status).toBe(200);
      expect((await check(await tokenOf('disabled', 'disabled-password'))).status).toBe(200);
    });

    it('removing a role from a user revokes the tokens issued before it, and the API keys of that role', async () => {
      const id = await createUser('demoted', ['reader', 'writer']);
      const token = await tokenOf('demoted', 'demoted-password');
      const writerKey = await apiKey(token, 'writer');
      const readerKey = await apiKey(token, 'reader');
      for (const held of [token, writerKey, readerKey]) expect((await check(held)).status).toBe(200);
      expect((await anonymous.request('GET', '/api/users:list', undefined, as(token, 'reader'))).status).toBe(403);
      expect((await ctx.api.post(`/api/users:update/${id}`, { roles: ['reader', 'keyMaker'] })).status).toBe(200);
      expectError(await check(token), 401, 'AUTH_INVALID_TOKEN');
      expectError(await anonymous.request('GET', '/api/users:list', undefined, as(token, 'reader')), 401, 'AUTH_INVALID_TOKEN');
      expectError(await check(writerKey), 401, 'AUTH_INVALID_TOKEN');
      expect((await check(readerKey)).status).toBe(200);
      // A token signed in after the change holds what the user holds now.
      const fresh = await tokenOf('demoted', 'demoted-password');
      expect((await check(fresh)).body.data.roles).toEqual(['reader', 'keyMaker']);
      // A role given leaves the tokens as they are.
      expect((await ctx.api.post(`/api/users:update/${id}`, { roles: ['reader', 'keyMaker', 'writer'] })).status).toBe(200);
      expect((await check(fresh)).body.data.roles).toEqual(['reader', 'keyMaker', 'writer']);
    });

    it('a users collection made before users.disabled existed gets the field at the next start', async () => {
      await dropBuiltInField(ctx.built.schema, dialect, 'users', 'disabled');
      expect(ctx.built.schema.snapshot.get('users')!.fields.has('disabled')).toBe(false);
      const restarted = await buildApp(testConfig(ctx.database));
      try {
        expect(restarted.schema.snapshot.get('users')!.fields.get('disabled')?.def).toMatchObject({ type: 'boolean', allowNull: false, defaultValue: false });
        const root = await apiFor(restarted).get('/api/auth:check');
        expect(root.body.data.disabled, root.text).toBe(false);
      } finally {
        await restarted.close();
      }
      await ctx.built.schema.reload();
    });

    it('a user without a password cannot sign in with any password', async () => {
      const created = await ctx.api.post('/api/users:create', { email: 'nopassword@corral.test', roles: ['reader'] });
      expect(created.status, created.text).toBe(201);
      for (const password of ['', 'not a real password', 'x']) expectError(await signIn('nopassword@corral.test', password), 401, 'AUTH_BAD_CREDENTIALS');
    });
  });
}
