import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { apiFor, testConfig, useDialectApp, type Reply, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * The authenticator reuses a header's principal and its Access while nothing they were built
 * from changed (src/auth/principal-loader.ts, KnownPrincipal). These tests send the same token
 * again and again, so every answer after the first comes from that reuse unless it was
 * invalidated: grants, role lists, users, revocations and X-Role must apply as before.
 */

function expectError(reply: Reply, status: number, code: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.errors[0].code, reply.text).toBe(code);
}

/** The apps' shared clock: real time plus what the tests moved it forward (instead of sleeping). */
let offset = 0;
const clock = () => Date.now() + offset;
const advance = (ms: number): void => {
  offset += ms;
};

/** The role and user caches' lifetime on a node (USER_CACHE_MS) plus a margin. */
const OTHER_NODE_MS = 1100;

for (const dialect of DIALECTS) {
  describe(`cached principals on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, {}, { clock });
    /** A second node on the same database. */
    let other: BuiltApp;
    let anonymous: TestApi;
    let otherAnonymous: TestApi;
    const ids: Record<string, number> = {};

    const signIn = async (name: string): Promise<string> => {
      const reply = await anonymous.post('/api/auth:signIn', { account: `${name}@corral.test`, password: `${name}-password` });
      expect(reply.status, reply.text).toBe(200);
      return reply.body.data.token as string;
    };
    const create = (api: TestApi, token: string, role?: string) =>
      api.request('POST', '/api/notes:create', { text: 'x' }, { authorization: `Bearer ${token}`, ...(role === undefined ? {} : { 'x-role': role }) });
    const list = (api: TestApi, token: string, role?: string) =>
      api.request('GET', '/api/notes:list', undefined, { authorization: `Bearer ${token}`, ...(role === undefined ? {} : { 'x-role': role }) });

    beforeAll(async () => {
      anonymous = apiFor(ctx.built, null);
      await ctx.api.collection({ name: 'notes', fields: [{ name: 'text', type: 'string' }] });
      for (const role of [
        { name: 'writer', strategy: { actions: ['view', 'create'] } },
        { name: 'reader', strategy: { actions: ['view'] } },
        // Sees the notes whose text is the user's nickname: a scope bound from the user's row.
        { name: 'nicknamed', strategy: { actions: [] }, resources: [{ name: 'notes', actions: [{ name: 'view', filter: { text: '{{$user.nickname}}' } }] }] },
      ]) {
        expect((await ctx.api.post('/api/roles:create', role)).status).toBe(201);
      }
      for (const [name, roles] of [['grantee', ['writer']], ['moved', ['writer']], ['both', ['reader', 'writer']], ['leaver', ['writer']], ['revoked', ['writer']], ['renamed', ['nicknamed']]] as const) {
        const created = await ctx.api.post('/api/users:create', { email: `${name}@corral.test`, password: `${name}-password`, roles });
        expect(created.status, created.text).toBe(201);
        ids[name] = created.body.data.id as number;
      }
      other = await buildApp(testConfig(ctx.database), { clock });
      otherAnonymous = apiFor(other, null);
    });

    afterAll(async () => {
      await other?.close();
    });

    it('a grant taken from a role applies to the next request on this node and within a second on another', async () => {
      const token = await signIn('grantee');
      for (let i = 0; i < 3; i++) {
        expect((await create(anonymous, token)).status).toBe(201);
        expect((await create(otherAnonymous, token)).status).toBe(201);
      }
      expect((await ctx.api.post('/api/roles:update/writer', { strategy: { actions: ['view'] } })).status).toBe(200);
      expectError(await create(anonymous, token), 403, 'FORBIDDEN');
      expect((await list(anonymous, token)).status).toBe(200);
      advance(OTHER_NODE_MS);
      expectError(await create(otherAnonymous, token), 403, 'FORBIDDEN');
      // And given back: allowed again, here at once, there within a second.
      expect((await ctx.api.post('/api/roles:update/writer', { strategy: { actions: ['view', 'create'] } })).status).toBe(200);
      expect((await create(anonymous, token)).status).toBe(201);
      advance(OTHER_NODE_MS);
      expect((await create(otherAnonymous, token)).status).toBe(201);
    });

    it('a header that only ends like a known one gets nothing of its principal', async () => {
      const token = await signIn('grantee');
      for (let i = 0; i < 3; i++) expect((await list(anonymous, token)).status).toBe(200);
      // The principal is kept under the header's last 24 characters: these share them.
      const other = token.at(-25) === 'A' ? 'B' : 'A';
      for (const forged of [`x${token.slice(-24)}`, `${token.slice(0, -25)}${other}${token.slice(-24)}`, `a.b.${token.slice(-30)}`]) {
        expectError(await list(anonymous, forged), 401, 'AUTH_INVALID_TOKEN');
      }
      expect((await list(anonymous, token)).status).toBe(200);
    });

    it('a scope bound from the user\'s row follows a change of that row made on another node', async () => {
      for (const text of ['red', 'blue']) expect((await ctx.api.post('/api/notes:create', { text })).status).toBe(201);
      expect((await ctx.api.post(`/api/users:update/${ids.renamed}`, { nickname: 'red' })).status).toBe(200);
      const token = await signIn('renamed');
      const texts = async (): Promise<string[]> => {
        const reply = await list(otherAnonymous, token);
        expect(reply.status, reply.text).toBe(200);
        return (reply.body.data as { text: string }[]).map((note) => note.text);
      };
      for (let i = 0; i < 3; i++) expect(await texts()).toEqual(['red']);
      expect((await ctx.api.post(`/api/users:update/${ids.renamed}`, { nickname: 'blue' })).status).toBe(200);
      advance(OTHER_NODE_MS);
      expect(await texts()).toEqual(['blue']);
    });

    it('a user\'s new role list applies to the next request, X-Role included (a role taken away revokes the token)', async () => {
      const token = await signIn('moved');
      for (let i = 0; i < 3; i++) expect((await create(anonymous, token)).status).toBe(201);
      expect((await create(anonymous, token, 'writer')).status).toBe(201);
      expectError(await list(anonymous, token, 'reader'), 403, 'FORBIDDEN');
      expect((await ctx.api.post(`/api/users:update/${ids.moved}`, { roles: ['writer', 'reader'] })).status).toBe(200);
      expect((await list(anonymous, token, 'reader')).status).toBe(200);
      expectError(await create(anonymous, token, 'reader'), 403, 'FORBIDDEN');
      expect((await create(anonymous, token)).status).toBe(201);
      expect((await ctx.api.post(`/api/users:update/${ids.moved}`, { roles: ['reader'] })).status).toBe(200);
      expectError(await create(anonymous, token), 401, 'AUTH_INVALID_TOKEN');
      const again = await signIn('moved');
      expectError(await create(anonymous, again), 403, 'FORBIDDEN');
      expectError(await create(anonymous, again, 'writer'), 403, 'FORBIDDEN');
      expect((await list(anonymous, again)).status).toBe(200);
    });

    it('X-Role alternating on one token: each request gets the roles it asked for', async () => {
      const token = await signIn('both');
      for (let i = 0; i < 2; i++) {
        expect((await create(anonymous, token)).status).toBe(201);
        expectError(await create(anonymous, token, 'reader'), 403, 'FORBIDDEN');
        expect((await create(anonymous, token, 'writer')).status).toBe(201);
        expectError(await create(anonymous, token, 'root'), 403, 'FORBIDDEN');
        expectError(await create(anonymous, token, 'reader'), 403, 'FORBIDDEN');
        expect((await create(anonymous, token)).status).toBe(201);
      }
    });

    it('a destroyed user\'s token stops working at the next request', async () => {
      const token = await signIn('leaver');
      for (let i = 0; i < 3; i++) expect((await list(anonymous, token)).status).toBe(200);
      expect((await ctx.api.post(`/api/users:destroy/${ids.leaver}`)).status).toBe(200);
      expectError(await list(anonymous, token), 401, 'AUTH_INVALID_TOKEN');
    });

    it('a revoked token stops at once here, on another worker at its message, on another node at its refresh', async () => {
      const token = await signIn('revoked');
      const kept = await signIn('revoked');
      for (let i = 0; i < 3; i++) {
        expect((await list(anonymous, token)).status).toBe(200);
        expect((await list(otherAnonymous, token)).status).toBe(200);
      }
      // Another worker of the other node hears of a sign-out through the cluster's message.
      const { jti, exp } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as { jti: string; exp: number };
      const otherWorker = await buildApp(testConfig(ctx.database), { clock });
      try {
        const workerApi = apiFor(otherWorker, null);
        expect((await list(workerApi, token)).status).toBe(200);
        expect((await anonymous.request('POST', '/api/auth:signOut', undefined, { authorization: `Bearer ${token}` })).status).toBe(200);
        expectError(await list(anonymous, token), 401, 'AUTH_INVALID_TOKEN');
        otherWorker.auth!.noteRevoked(jti, exp * 1000);
        expectError(await list(workerApi, token), 401, 'AUTH_INVALID_TOKEN');
      } finally {
        await otherWorker.close();
      }
      await other.auth!.refreshRevocations();
      expectError(await list(otherAnonymous, token), 401, 'AUTH_INVALID_TOKEN');
      // The same user's other token is not touched.
      expect((await list(anonymous, kept)).status).toBe(200);
      expect((await list(otherAnonymous, kept)).status).toBe(200);
    });
  });
}
