import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { upload } from '../support/multipart.js';
import { storedFiles } from '../support/stored-files.js';
import { apiFor, useDialectApp, type Reply, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * Decisions that actions used to make themselves are grants the store evaluates (issue 37,
 * point 3; docs/architecture.md "The store is the only door"): an upload needs `create` on
 * attachments before its body is read; changing a named scope's filter is an update of every
 * role naming it, so the caller's `update` grant on roles must reach that role's row (its
 * filter too, not only the action), and never a role the caller holds; a collection whose
 * rows carry grants takes no import (test/http/import.test.ts).
 */
const ok = (reply: Reply, status = 200): Reply => {
  expect(reply.status, reply.text).toBe(status);
  return reply;
};

for (const dialect of DIALECTS) {
  describe(`decisions the store evaluates on ${dialect}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-store-decisions-'));
    const ctx = useDialectApp(dialect, { storage: { kind: 'local', dir } });
    let n = 0;
    const user = async (roles: string[]): Promise<TestApi> => {
      const name = `d${++n}`;
      ok(await ctx.api.post('/api/users:create', { email: `${name}@decisions.test`, password: `${name}-password`, roles }), 201);
      return apiFor(ctx.built, { account: `${name}@decisions.test`, password: `${name}-password` });
    };
    const role = async (name: string, actions: string[], resources: unknown[] = []): Promise<void> =>
      void ok(await ctx.api.post('/api/roles:create', { name, strategy: { actions }, resources }), 201);
    let scopeId: number;

    beforeAll(async () => {
      await ctx.api.collection({ name: 'posts', fields: [{ name: 'title', type: 'string' }, { name: 'published', type: 'boolean' }] });
      scopeId = ok(await ctx.api.post('/api/rolesResourcesScopes:create', { resourceName: 'posts', name: 'published', scope: { published: true } }), 201).body.data.id;
      // Two roles name the scope: `uses-a` and `uses-b`.
      for (const name of ['uses-a', 'uses-b']) await role(name, [], [{ name: 'posts', actions: [{ name: 'view', scopeId }] }]);
    });

    // [who, strategy, resources, upload status, code]
    const UPLOADS: Array<[string, string[], unknown[], number, string | undefined]> = [
      ['no create on attachments (strategy view only)', ['view'], [], 403, 'FORBIDDEN'],
      ['a resource grant on attachments without create', ['create'], [{ name: 'attachments', actions: [{ name: 'view' }] }], 403, 'FORBIDDEN'],
      ['create in the strategy', ['view', 'create'], [], 201, undefined],
    ];

    it.each(UPLOADS)('an upload by a caller with %s', async (_who, actions, resources, status, code) => {
      const name = `uploader${++n}`;
      await role(name, actions, resources);
      const api = await user([name]);
      const before = storedFiles(dir).length;
      const reply = await upload(ctx.built, '/api/attachments:create', await api.authHeaders(), { bytes: Buffer.from(`bytes of ${name}\n`), filename: 'a.txt', type: 'text/plain' });
      expect(reply.status, JSON.stringify(reply.json)).toBe(status);
      if (code !== undefined) {
        expect(reply.json.errors[0].code).toBe(code);
        // Refused before the body was read: nothing stored, nothing staged.
        expect(storedFiles(dir).length).toBe(before);
      }
    });

    // [who, resources of the writer's role (besides update on the scopes), holds uses-a, status]
    const SCOPE_CHANGES: Array<[string, unknown[], boolean, number]> = [
      ['no grant on roles', [], false, 403],
      ['update on roles filtered to uses-b only (uses-a is out of its reach)', [{ name: 'roles', actions: [{ name: 'view' }, { name: 'update', filter: { name: 'uses-b' } }] }], false, 403],
      ['update on every role, holding uses-a', [{ name: 'roles', actions: [{ name: 'view' }, { name: 'update' }] }], true, 403],
      ['update on roles filtered to both roles', [{ name: 'roles', actions: [{ name: 'view' }, { name: 'update', filter: { name: { $in: ['uses-a', 'uses-b'] } } }] }], false, 200],
    ];

    it.each(SCOPE_CHANGES)("changing a named scope's filter with %s", async (_who, resources, holdsA, status) => {
      const name = `scope-writer${++n}`;
      await role(name, [], [{ name: 'rolesResourcesScopes', actions: [{ name: 'view' }, { name: 'update' }] }, ...resources]);
      const api = await user(holdsA ? [name, 'uses-a'] : [name]);
      const reply = await api.post(`/api/rolesResourcesScopes:update?filterByTk=${scopeId}`, { scope: { published: true, title: { $ne: 'x' } } });
      expect(reply.status, reply.text).toBe(status);
      if (status !== 200) expect(reply.body.errors[0].code).toBe('FORBIDDEN');
      // A refused change leaves the scope as it was.
      const stored = ok(await ctx.api.get(`/api/rolesResourcesScopes:get?filterByTk=${scopeId}`)).body.data.scope;
      expect(stored).toEqual(status === 200 ? { published: true, title: { $ne: 'x' } } : { published: true });
      if (status === 200) ok(await ctx.api.post(`/api/rolesResourcesScopes:update?filterByTk=${scopeId}`, { scope: { published: true } }));
    });
  });
}
