import { beforeAll, describe, expect, it } from 'vitest';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * NocoBase's path forms (packages/core/resourcer/src/__tests__/utils.test.ts, "parseRequest"
 * cases, and its key decoding: the item key once, as decodeURI does; the source key of an
 * association path once more) replayed over HTTP with string keys.
 */
const KEYS = ['plain', 'a b', 'a/b', 'a:b', 'a%2Fb', 'a%20b', '100%', 'ünï'];

for (const dialect of DIALECTS) {
  describe(`NocoBase path forms on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    beforeAll(async () => {
      await ctx.api.collection({ name: 'notes', filterTargetKey: 'slug', fields: [{ name: 'slug', type: 'string', unique: true, allowNull: false }, { name: 'text', type: 'string' }] });
      await ctx.api.collection({ name: 'lines', fields: [{ name: 'text', type: 'string' }, { name: 'note', type: 'belongsTo', target: 'notes', targetKey: 'slug' }] });
      const hasMany = await ctx.api.post('/api/collections/notes/fields:create', { name: 'lines', type: 'hasMany', target: 'lines', sourceKey: 'slug', foreignKey: 'noteId' });
      expect(hasMany.status, hasMany.text).toBe(201);
      for (const slug of KEYS) expect((await ctx.api.post('/api/notes:create', { slug, text: `text of ${slug}` })).status).toBe(201);
    });

    it('utils.test.ts "parseRequest": list, create, get, update (PUT and PATCH), destroy and the association forms route as in NocoBase', async () => {
      const cases: [string, string, unknown, number][] = [
        ['GET', '/api/notes', undefined, 200],
        ['POST', '/api/notes', { slug: 'rest', text: 'r' }, 201],
        ['GET', '/api/notes/rest', undefined, 200],
        ['PUT', '/api/notes/rest', { text: 'put' }, 200],
        ['PATCH', '/api/notes/rest', { text: 'patch' }, 200],
        ['POST', '/api/notes/rest/lines', { text: 'line' }, 201],
        ['GET', '/api/notes/rest/lines', undefined, 200],
        ['GET', '/api/notes:list', undefined, 200],
        ['POST', '/api/notes:get/rest', undefined, 405],
        ['GET', '/api/notes:get/rest', undefined, 200],
        ['DELETE', '/api/notes/rest', undefined, 200],
      ];
      for (const [method, url, body, status] of cases) {
        const reply = await ctx.api.request(method, url, body);
        expect(reply.status, `${method} ${url} ${reply.text}`).toBe(status);
      }
    });

    it('an item key encoded once (as the SDK and encodeURIComponent do) reads back as it was, in every key position', async () => {
      for (const slug of KEYS) {
        const encoded = encodeURIComponent(slug);
        for (const url of [`/api/notes/${encoded}`, `/api/notes:get/${encoded}`, `/api/notes:get?filterByTk=${encoded}`]) {
          const reply = await ctx.api.get(url);
          expect(reply.status, url).toBe(200);
          expect(reply.body.data.slug, url).toBe(slug);
        }
        const line = await ctx.api.post(`/api/notes/${encoded}/lines:create`, { text: `line of ${slug}` });
        expect(line.status, slug).toBe(201);
        expect(line.body.data.noteId, slug).toBe(slug);
      }
    });

    it('a key encoded twice decodes once, as NocoBase decodes an item key: /api/notes/a%252Fb is "a%2Fb" and notes:get/a%2520b is "a%20b"', async () => {
      const cases: [string, string][] = [
        ['/api/notes/a%252Fb', 'a%2Fb'],
        ['/api/notes:get/a%2520b', 'a%20b'],
        ['/api/notes:get?filterByTk=a%252Fb', 'a%2Fb'],
      ];
      for (const [url, slug] of cases) {
        const reply = await ctx.api.get(url);
        expect(reply.status, url).toBe(200);
        expect(reply.body.data.slug, url).toBe(slug);
      }
      // The source key of an association path too (NocoBase decodes that one twice; see docs/api.md).
      const lines = await ctx.api.get('/api/notes/a%2520b/lines:list');
      expect(lines.status).toBe(200);
      expect(lines.body.data.map((line: { noteId: string }) => line.noteId)).toEqual(['a%20b']);
    });

    it('bad percent-encoding in a key is 400 KEY_INVALID (NocoBase: 500)', async () => {
      for (const url of ['/api/notes/%E0%A4%A', '/api/notes/100%', '/api/notes/100%/lines']) {
        const reply = await ctx.api.get(url);
        expect(reply.status, url).toBe(400);
        expect(reply.body.errors[0].code, url).toBe('KEY_INVALID');
      }
    });
  });
}
