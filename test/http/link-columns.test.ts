import { beforeAll, describe, expect, it } from 'vitest';
import { multipartBody } from '../support/multipart-body.js';
import { apiFor, useDialectApp, type Reply, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * Issue 37, finding 7: the link rule holds for every column that holds another row's key,
 * whichever side declares the relation: the key column of `posts.comments` (hasMany, written
 * on comments) and the two columns of the `posts.tags` junction, on create, update, both
 * or-create actions and import. A row the caller cannot view answers exactly like a missing one.
 * `staff` sees only its own posts (`view:own`, as in the issue) and the `open` tags; it may write
 * comments and junction rows.
 */

const MISSING = 999_999;

interface Names {
  postId: string;
  junctionPost: string;
  junctionTag: string;
}

interface Ids {
  visiblePost: number;
  hiddenPost: number;
  openTag: number;
  hiddenTag: number;
  comment: number;
}

/** [what, url, body naming a key, which key is hidden]: each sent by staff. */
const WRITES: Array<[string, (ids: Ids) => string, (names: Names, ids: Ids, key: number) => unknown, (ids: Ids) => number]> = [
  ['comments:create with the hasMany key column', () => '/api/comments:create', (n, _ids, key) => ({ body: 'c', [n.postId]: key }), (ids) => ids.hiddenPost],
  ['comments:update of the key column', (ids) => `/api/comments:update?filterByTk=${ids.comment}`, (n, _ids, key) => ({ [n.postId]: key }), (ids) => ids.hiddenPost],
  ['comments:firstOrCreate', () => '/api/comments:firstOrCreate?filterKeys=body', (n, _ids, key) => ({ body: 'new-foc', [n.postId]: key }), (ids) => ids.hiddenPost],
  ['comments:updateOrCreate', () => '/api/comments:updateOrCreate?filterKeys=body', (n, _ids, key) => ({ body: 'new-uoc', [n.postId]: key }), (ids) => ids.hiddenPost],
  ['a junction row naming a hidden post', () => '/api/posts_tags:create', (n, ids, key) => ({ [n.junctionPost]: key, [n.junctionTag]: ids.openTag }), (ids) => ids.hiddenPost],
  ['a junction row naming a hidden tag', () => '/api/posts_tags:create', (n, ids, key) => ({ [n.junctionPost]: ids.visiblePost, [n.junctionTag]: key }), (ids) => ids.hiddenTag],
];

/** [what, url, CSV for a key, which key is hidden]: imports by staff. */
const IMPORTS: Array<[string, string, (names: Names, ids: Ids, key: number) => string, (ids: Ids) => number]> = [
  ['comments with the hasMany key column', '/api/comments:import', (n, _ids, key) => `body,${n.postId}\r\nimported,${key}\r\n`, (ids) => ids.hiddenPost],
  ['junction rows naming a hidden post', '/api/posts_tags:import', (n, ids, key) => `${n.junctionPost},${n.junctionTag}\r\n${key},${ids.openTag}\r\n`, (ids) => ids.hiddenPost],
  ['junction rows naming a hidden tag', '/api/posts_tags:import', (n, ids, key) => `${n.junctionPost},${n.junctionTag}\r\n${ids.visiblePost},${key}\r\n`, (ids) => ids.hiddenTag],
];

/** The answer with the key replaced, so a hidden key and a missing one compare equal. */
function shape(reply: Reply, key: number): string {
  // Only where the answer names the key (`has no record 7`, `"missing":["7"]`): row numbers stay.
  return `${reply.status} ${reply.text.replaceAll(`record ${key}`, 'record <key>').replaceAll(`"${key}"`, '"<key>"')}`;
}

for (const dialect of DIALECTS) {
  describe(`link columns on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const names = {} as Names;
    const ids = {} as Ids;
    let staff: TestApi;
    let staffAuth: Record<string, string>;
    /** Every comment and junction row as root sees them. */
    const state = async (): Promise<string> =>
      JSON.stringify([(await ctx.api.get('/api/comments:list?paginate=false&sort=id')).body.data, (await ctx.api.get('/api/posts:list?paginate=false&sort=id&appends=tags&fields=id')).body.data]);
    const importCsv = async (url: string, text: string): Promise<Reply> => {
      const { payload, contentType } = multipartBody([{ name: 'file', filename: 'rows.csv', type: 'text/csv', content: text }]);
      const reply = await ctx.built.app.inject({ method: 'POST', url, payload, headers: { ...staffAuth, 'content-type': contentType } });
      return { status: reply.statusCode, headers: reply.headers, body: undefined, text: reply.body };
    };

    beforeAll(async () => {
      const api = ctx.api;
      await api.collection({ name: 'comments', fields: [{ name: 'body', type: 'string' }] });
      await api.collection({ name: 'tags', fields: [{ name: 'name', type: 'string' }] });
      await api.collection({ name: 'posts', createdBy: true, fields: [{ name: 'title', type: 'string' }, { name: 'comments', type: 'hasMany' }, { name: 'tags', type: 'belongsToMany' }] });
      const posts = ctx.built.schema.snapshot.get('posts')!;
      const comments = posts.relations.get('comments')!;
      const tags = posts.relations.get('tags')!;
      if (comments.type !== 'hasMany' || tags.type !== 'belongsToMany') throw new Error('unexpected relation types');
      Object.assign(names, { postId: comments.foreignKey.name, junctionPost: tags.foreignKey.name, junctionTag: tags.otherKey.name });
      const role = {
        name: 'staff',
        strategy: { actions: [] },
        resources: [
          { name: 'posts', actions: [{ name: 'view', scope: 'own' }, { name: 'create' }] },
          { name: 'tags', actions: [{ name: 'view', filter: { name: 'open' } }] },
          { name: 'comments', actions: [{ name: 'view' }, { name: 'create' }, { name: 'update' }] },
          { name: 'posts_tags', actions: [{ name: 'view' }, { name: 'create' }] },
        ],
      };
      expect((await api.post('/api/roles:create', role)).status).toBe(201);
      expect((await api.post('/api/users:create', { email: 'staff@corral.test', password: 'staff-password', roles: ['staff'] })).status).toBe(201);
      staff = apiFor(ctx.built, { account: 'staff@corral.test', password: 'staff-password' });
      staffAuth = await staff.authHeaders();
      const id = async (url: string, body: unknown): Promise<number> => {
        const reply = await api.post(url, body);
        expect(reply.status, reply.text).toBe(201);
        return reply.body.data.id;
      };
      const mine = await staff.post('/api/posts:create', { title: 'mine' });
      expect(mine.status, mine.text).toBe(201);
      ids.visiblePost = mine.body.data.id;
      ids.hiddenPost = await id('/api/posts:create', { title: 'theirs' });
      ids.openTag = await id('/api/tags:create', { name: 'open' });
      ids.hiddenTag = await id('/api/tags:create', { name: 'closed' });
      ids.comment = await id('/api/comments:create', { body: 'existing' });
    });

    it.each(WRITES)('%s: a row the caller cannot view answers exactly like a missing one, nothing written', async (_what, url, body, hidden) => {
      const before = await state();
      const missing = await staff.post(url(ids), body(names, ids, MISSING));
      const refused = await staff.post(url(ids), body(names, ids, hidden(ids)));
      expect(missing.status, missing.text).toBe(409);
      expect(shape(refused, hidden(ids))).toBe(shape(missing, MISSING));
      expect(await state()).toBe(before);
    });

    it.each(IMPORTS)('an import of %s: a row the caller cannot view answers exactly like a missing one, nothing written', async (_what, url, csv, hidden) => {
      const before = await state();
      const missing = await importCsv(url, csv(names, ids, MISSING));
      const refused = await importCsv(url, csv(names, ids, hidden(ids)));
      expect(missing.status, missing.text).toBe(400);
      expect(shape(refused, hidden(ids))).toBe(shape(missing, MISSING));
      expect(await state()).toBe(before);
    });

    it('visible rows link on every path', async () => {
      expect((await staff.post('/api/comments:create', { body: 'ok', [names.postId]: ids.visiblePost })).status).toBe(201);
      expect((await staff.post(`/api/comments:update?filterByTk=${ids.comment}`, { [names.postId]: ids.visiblePost })).status).toBe(200);
      const junction = await staff.post('/api/posts_tags:create', { [names.junctionPost]: ids.visiblePost, [names.junctionTag]: ids.openTag });
      expect(junction.status, junction.text).toBe(201);
      const imported = await importCsv('/api/comments:import', `body,${names.postId}\r\nvia import,${ids.visiblePost}\r\n`);
      expect(imported.status, imported.text).toBe(200);
      const linked = await ctx.api.get(`/api/posts/${ids.visiblePost}/comments:list?paginate=false&sort=id&fields=body`);
      expect(linked.body.data).toEqual([{ body: 'existing' }, { body: 'ok' }, { body: 'via import' }]);
    });
  });
}
