import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { send, upload } from '../support/multipart.js';
import { apiFor, useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * Who may download an attachment, against an oracle: the reader gets the bytes exactly when it
 * can view at least one post the attachment is linked to (under a random row grant), or the
 * attachment is linked nowhere and the reader uploaded it; everything else is 404, like a
 * missing attachment. Root reads every one.
 */
const SEED = Number(process.env.ATTACHMENT_ACCESS_SEED ?? 29_2026);
const RUNS = Number(process.env.ATTACHMENT_ACCESS_RUNS ?? 25);

/** The posts every run uses: [id, owner, rank]. */
const POSTS: [number, string, number][] = [
  [1, 'a', 1],
  [2, 'b', 2],
  [3, 'a', 3],
  [4, 'c', 4],
  [5, 'b', 5],
];

/** Row grants of the reader's `view` on posts, each with its meaning in JS. */
const GRANTS: { filter: object; sees: (post: [number, string, number]) => boolean }[] = [
  { filter: { owner: 'a' }, sees: ([, owner]) => owner === 'a' },
  { filter: { owner: { $in: ['b', 'c'] } }, sees: ([, owner]) => owner === 'b' || owner === 'c' },
  { filter: { rank: { $lt: 3 } }, sees: ([, , rank]) => rank < 3 },
  { filter: { $or: [{ owner: 'c' }, { rank: { $gte: 5 } }] }, sees: ([, owner, rank]) => owner === 'c' || rank >= 5 },
  { filter: { id: { $eq: -1 } }, sees: () => false },
];

const scenario = fc.record({
  grant: fc.integer({ min: 0, max: GRANTS.length - 1 }),
  files: fc.array(fc.record({ byReader: fc.boolean(), links: fc.subarray(POSTS.map(([id]) => id)) }), { minLength: 1, maxLength: 4 }),
});

for (const dialect of DIALECTS) {
  describe(`attachment access on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let root: Record<string, string>;
    let reader: Record<string, string>;

    beforeAll(async () => {
      root = await ctx.api.authHeaders();
      await ctx.api.collection({ name: 'posts', fields: [{ name: 'owner', type: 'string' }, { name: 'rank', type: 'integer' }, { name: 'files', type: 'attachment' }] });
      for (const [, owner, rank] of POSTS) expect((await ctx.api.post('/api/posts:create', { owner, rank })).status).toBe(201);
      expect((await ctx.api.post('/api/roles:create', { name: 'reader', strategy: { actions: ['view', 'create'] } })).status).toBe(201);
      expect((await ctx.api.post('/api/users:create', { email: 'reader@corral.test', password: 'reader-password', roles: ['reader'] })).status).toBe(201);
      reader = await apiFor(ctx.built, { account: 'reader@corral.test', password: 'reader-password' }).authHeaders();
    });

    it('serves an attachment to the reader exactly when the oracle says it may read it', async () => {
      let served = 0;
      let hidden = 0;
      const property = fc.asyncProperty(scenario, async ({ grant, files }) => {
        const rule = GRANTS[grant]!;
        const role = await ctx.api.put('/api/roles/reader', { resources: [{ name: 'posts', actions: [{ name: 'view', filter: rule.filter }] }] });
        expect(role.status, role.text).toBe(200);
        for (const file of files) {
          const created = await upload(ctx.built, '/api/attachments:create', file.byReader ? reader : root, { bytes: randomBytes(64), filename: 'f.bin' });
          expect(created.status).toBe(201);
          const id = created.json.data.id as number;
          for (const post of file.links) expect((await ctx.api.post(`/api/posts/${post}/files:add`, [id])).status).toBe(200);
          const readable = file.links.length === 0 ? file.byReader : POSTS.some((post) => file.links.includes(post[0]) && rule.sees(post));
          const asReader = await send(ctx.built, 'GET', `/api/attachments/${id}/content`, reader);
          expect(asReader.status, `grant ${JSON.stringify(rule.filter)}, links ${JSON.stringify(file.links)}, by reader ${file.byReader}`).toBe(readable ? 200 : 404);
          if (!readable) expect(asReader.json.errors[0].code).toBe('RECORD_NOT_FOUND');
          expect((await send(ctx.built, 'GET', `/api/attachments/${id}/content`, root)).status).toBe(200);
          if (readable) served += 1;
          else hidden += 1;
        }
      });
      await fc.assert(property, { seed: SEED, numRuns: RUNS });
      // Both outcomes were exercised, or the property proved little.
      expect(served).toBeGreaterThan(0);
      expect(hidden).toBeGreaterThan(0);
    }, 300_000);
  });
}
