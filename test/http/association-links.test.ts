import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type Reply, type TestApi } from '../support/test-app.js';

/**
 * add/set/remove/toggle on to-many associations, through values on belongsToMany, the to-one
 * associations (belongsTo, hasOne) and list parameters inside an association. Each step checks
 * the stored state afterwards, read back through the API.
 */

type Mode = 'add' | 'set' | 'remove' | 'toggle';

interface ToManyCase {
  association: 'comments' | 'tags';
  type: 'hasMany' | 'belongsToMany';
}

const TO_MANY: ToManyCase[] = [
  { association: 'comments', type: 'hasMany' },
  { association: 'tags', type: 'belongsToMany' },
];

const filterParam = (filter: unknown) => `filter=${encodeURIComponent(JSON.stringify(filter))}`;

function expectOk(reply: Reply): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body).toEqual({ data: null });
}

function expectError(reply: Reply, status: number, code: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.errors[0].code, reply.text).toBe(code);
}

for (const dialect of DIALECTS) {
  describe(`association links on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let api: TestApi;

    beforeAll(async () => {
      api = ctx.api;
      await api.collection({ name: 'authors', fields: [{ name: 'name', type: 'string' }] });
      await api.collection({ name: 'comments', fields: [{ name: 'name', type: 'string' }, { name: 'rank', type: 'integer' }] });
      await api.collection({ name: 'tags', fields: [{ name: 'name', type: 'string' }, { name: 'rank', type: 'integer' }] });
      await api.collection({ name: 'profiles', fields: [{ name: 'bio', type: 'string' }] });
      await api.collection({
        name: 'posts',
        fields: [
          { name: 'title', type: 'string' },
          { name: 'author', type: 'belongsTo' },
          { name: 'comments', type: 'hasMany' },
          { name: 'tags', type: 'belongsToMany' },
          { name: 'profile', type: 'hasOne' },
        ],
      });
      const weight = await api.post('/api/collections/posts_tags/fields:create', { name: 'weight', type: 'integer' });
      expect(weight.status, weight.text).toBe(201);
    });

    const newPost = async (title = 'p'): Promise<number> => {
      const reply = await api.post('/api/posts:create', { title });
      expect(reply.status, reply.text).toBe(201);
      return reply.body.data.id;
    };

    const newItem = async (collection: string, values: Record<string, unknown>): Promise<number> => {
      const reply = await api.post(`/api/${collection}:create`, values);
      expect(reply.status, reply.text).toBe(201);
      return reply.body.data.id;
    };

    /** Ids inside an association, ascending. */
    const linked = async (post: number, association: string): Promise<number[]> => {
      const reply = await api.get(`/api/posts/${post}/${association}:list?sort=id&paginate=false&fields=id`);
      expect(reply.status, reply.text).toBe(200);
      return reply.body.data.map((row: { id: number }) => row.id);
    };

    const throughRows = async (post: number): Promise<{ tagId: number; weight: number | null }[]> => {
      const reply = await api.get(`/api/posts_tags:list?paginate=false&sort=tagId&${filterParam({ postId: post })}`);
      expect(reply.status, reply.text).toBe(200);
      return reply.body.data.map((row: { tagId: number; weight: number | null }) => ({ tagId: row.tagId, weight: row.weight }));
    };

    const link = (post: number, association: string, mode: Mode, body?: unknown, suffix = '') =>
      api.post(`/api/posts/${post}/${association}:${mode}${suffix}`, body);

    for (const kind of TO_MANY) {
      const a = kind.association;
      describe(`${a} (${kind.type})`, () => {
        const targets = async (count: number): Promise<number[]> => {
          const ids: number[] = [];
          for (let i = 0; i < count; i++) ids.push(await newItem(a, { name: `t${i}` }));
          return ids;
        };

        it('add links, and adding a linked key again is a no-op', async () => {
          const post = await newPost();
          const [t1, t2, t3, t4] = await targets(4);
          expectOk(await link(post, a, 'add', [t1, t2]));
          expect(await linked(post, a)).toEqual([t1, t2]);
          expectOk(await link(post, a, 'add', [t2]));
          expect(await linked(post, a)).toEqual([t1, t2]);
          if (a === 'tags') expect((await throughRows(post)).map((row) => row.tagId)).toEqual([t1, t2]);
          // a key in the path, a key in filterByTk, a single key as the body
          expectOk(await link(post, a, 'add', undefined, `/${t3}`));
          expectOk(await api.post(`/api/posts/${post}/${a}:add?filterByTk=${t4}`));
          expect(await linked(post, a)).toEqual([t1, t2, t3, t4]);
          expectOk(await link(post, a, 'remove', t4));
          expect(await linked(post, a)).toEqual([t1, t2, t3]);
        });

        it('set replaces, remove unlinks without deleting, toggle flips', async () => {
          const post = await newPost();
          const [t1, t2, t3, t4] = await targets(4);
          expectOk(await link(post, a, 'set', [t1, t2, t3]));
          expect(await linked(post, a)).toEqual([t1, t2, t3]);
          expectOk(await link(post, a, 'set', [t2, t4]));
          expect(await linked(post, a)).toEqual([t2, t4]);
          expectOk(await link(post, a, 'remove', [t2]));
          expect(await linked(post, a)).toEqual([t4]);
          const kept = await api.get(`/api/${a}/${t2}`);
          expect(kept.status).toBe(200);
          if (a === 'comments') expect(kept.body.data.postId).toBeNull();
          // removing a key that is not linked changes nothing
          expectOk(await link(post, a, 'remove', [t1]));
          expect(await linked(post, a)).toEqual([t4]);
          expectOk(await link(post, a, 'toggle', [t4, t1, t3]));
          expect(await linked(post, a)).toEqual([t1, t3]);
          expectOk(await link(post, a, 'toggle', [t1]));
          expect(await linked(post, a)).toEqual([t3]);
          expectOk(await link(post, a, 'set', []));
          expect(await linked(post, a)).toEqual([]);
          expect((await api.get(`/api/${a}:list?paginate=false&${filterParam({ id: { $in: [t1, t2, t3, t4] } })}`)).body.data).toHaveLength(4);
        });

        it('links of one source never touch another source', async () => {
          const post = await newPost();
          const other = await newPost();
          const [t1, t2, t3] = await targets(3);
          expectOk(await link(other, a, 'set', [t1, t2]));
          expectOk(await link(post, a, 'set', [t3]));
          expectOk(await link(post, a, 'remove', [t1]));
          expect(await linked(other, a)).toEqual([t1, t2]);
          expectOk(await link(post, a, 'set', [t2, t3]));
          expect(await linked(post, a)).toEqual([t2, t3]);
          if (a === 'comments') {
            // a hasMany target has one owner: linking it moves it
            expect(await linked(other, a)).toEqual([t1]);
          } else {
            expect(await linked(other, a)).toEqual([t1, t2]);
          }
        });

        it('a missing key is 409 REFERENCE_VIOLATION and changes nothing', async () => {
          const post = await newPost();
          const [t1, t2, t3] = await targets(3);
          expectOk(await link(post, a, 'set', [t1, t2]));
          const cases: [Mode, unknown, string][] = [
            ['add', [t3, 999999], ''],
            ['set', [t3, 999999], ''],
            ['set', [t1, 999999], ''],
            ['toggle', [t1, t3, 999999], ''],
            ['add', undefined, '/999999'],
          ];
          for (const [mode, body, suffix] of cases) {
            const reply = await link(post, a, mode, body, suffix);
            expectError(reply, 409, 'REFERENCE_VIOLATION');
            expect(await linked(post, a), `${mode} ${JSON.stringify(body)}${suffix}`).toEqual([t1, t2]);
          }
          expect(await linked(post, a)).toEqual([t1, t2]);
          if (a === 'comments') expect((await api.get(`/api/comments/${t3}`)).body.data.postId).toBeNull();
        });

        it('a key named twice counts once', async () => {
          const post = await newPost();
          const [t1, t2] = await targets(2);
          expectOk(await link(post, a, 'add', [t1, t1]));
          expect(await linked(post, a)).toEqual([t1]);
          expectOk(await link(post, a, 'set', [t2, t1, t2]));
          expect(await linked(post, a)).toEqual([t1, t2]);
          expectOk(await link(post, a, 'toggle', [t1, t1]));
          expect(await linked(post, a)).toEqual([t2]);
          if (a === 'tags') expect((await throughRows(post)).map((row) => row.tagId)).toEqual([t2]);
        });

        it('concurrent adds of one key link it once and all succeed', async () => {
          const post = await newPost();
          const [t1] = await targets(1);
          const replies = await Promise.all(Array.from({ length: 6 }, () => link(post, a, 'add', [t1])));
          for (const reply of replies) expectOk(reply);
          expect(await linked(post, a)).toEqual([t1]);
          if (a === 'tags') expect(await throughRows(post)).toHaveLength(1);
        });

        it('a missing source is 404 RECORD_NOT_FOUND and a bad body is 400', async () => {
          const [t1] = await targets(1);
          for (const mode of ['add', 'set', 'remove', 'toggle'] as Mode[]) {
            expectError(await link(999999, a, mode, [t1]), 404, 'RECORD_NOT_FOUND');
          }
          const post = await newPost();
          const bad = await link(post, a, 'add', { name: 'not a key' });
          expect(bad.status, bad.text).toBe(400);
          expect(await linked(post, a)).toEqual([]);
        });

        it('list of an association supports filter, sort, fields and paging', async () => {
          const post = await newPost();
          const other = await newPost();
          const ids: number[] = [];
          for (let i = 1; i <= 5; i++) ids.push(await newItem(a, { name: `n${i}`, rank: i % 3 }));
          const outside = await newItem(a, { name: 'n9', rank: 1 });
          expectOk(await link(post, a, 'set', ids));
          expectOk(await link(other, a, 'set', [outside]));
          const base = `/api/posts/${post}/${a}:list`;

          const filtered = await api.get(`${base}?${filterParam({ rank: 1 })}&sort=name&fields=name`);
          expect(filtered.status, filtered.text).toBe(200);
          expect(filtered.body.data).toEqual([{ name: 'n1' }, { name: 'n4' }]);
          expect(filtered.body.meta).toEqual({ count: 2, page: 1, pageSize: 20, totalPage: 1 });

          const sorted = await api.get(`${base}?sort=-rank,name&fields=name,rank&paginate=false`);
          expect(sorted.body.data.map((row: { name: string }) => row.name)).toEqual(['n2', 'n5', 'n1', 'n4', 'n3']);
          expect(Object.keys(sorted.body.data[0])).toEqual(['name', 'rank']);

          const paged = await api.get(`${base}?sort=id&page=2&pageSize=2`);
          expect(paged.body.data.map((row: { id: number }) => row.id)).toEqual([ids[2], ids[3]]);
          expect(paged.body.meta).toEqual({ count: 5, page: 2, pageSize: 2, totalPage: 3 });

          const rest = await api.get(`/api/posts/${post}/${a}?sort=-id&pageSize=1`);
          expect(rest.body.data.map((row: { id: number }) => row.id)).toEqual([ids[4]]);
          expect(rest.body.meta).toEqual({ count: 5, page: 1, pageSize: 1, totalPage: 5 });

          const counted = await api.get(`/api/posts/${post}/${a}:count?${filterParam({ rank: { $gt: 0 } })}`);
          expect(counted.body).toEqual({ data: 4 });

          expectError(await api.get(`${base}?sort=nope`), 400, 'SORT_UNKNOWN_FIELD');
          expectError(await api.get(`${base}?${filterParam({ nope: 1 })}`), 400, 'FILTER_UNKNOWN_FIELD');
        });
      });
    }

    describe('through values on belongsToMany', () => {
      it('add, set and toggle take [key, {through values}] and store them on the through row', async () => {
        const post = await newPost();
        const t1 = await newItem('tags', { name: 'a' });
        const t2 = await newItem('tags', { name: 'b' });
        const t3 = await newItem('tags', { name: 'c' });
        expectOk(await link(post, 'tags', 'add', [[t1, { weight: 5 }], t2]));
        expect(await throughRows(post)).toEqual([{ tagId: t1, weight: 5 }, { tagId: t2, weight: null }]);
        // set keeps a linked key and updates its through values
        expectOk(await link(post, 'tags', 'set', [[t1, { weight: 7 }], [t3, { weight: 1 }]]));
        expect(await throughRows(post)).toEqual([{ tagId: t1, weight: 7 }, { tagId: t3, weight: 1 }]);
        // add of a linked key with through values updates them, with none leaves them
        expectOk(await link(post, 'tags', 'add', [t1, [t3, { weight: 2 }]]));
        expect(await throughRows(post)).toEqual([{ tagId: t1, weight: 7 }, { tagId: t3, weight: 2 }]);
        expectOk(await link(post, 'tags', 'toggle', [[t2, { weight: 9 }], t3]));
        expect(await throughRows(post)).toEqual([{ tagId: t1, weight: 7 }, { tagId: t2, weight: 9 }]);
        // a key named twice merges its through values
        expectOk(await link(post, 'tags', 'add', [[t3, { weight: 3 }], [t3, { weight: 4 }]]));
        expect(await throughRows(post)).toEqual([{ tagId: t1, weight: 7 }, { tagId: t2, weight: 9 }, { tagId: t3, weight: 4 }]);
        expectOk(await link(post, 'tags', 'remove', [t3]));
        expect(await throughRows(post)).toEqual([{ tagId: t1, weight: 7 }, { tagId: t2, weight: 9 }]);
        expect(await linked(post, 'tags')).toEqual([t1, t2]);
      });

      it('refuses unknown or invalid through values and changes nothing', async () => {
        const post = await newPost();
        const t1 = await newItem('tags', { name: 'a' });
        const t2 = await newItem('tags', { name: 'b' });
        expectOk(await link(post, 'tags', 'add', [[t1, { weight: 1 }]]));
        const unknown = await link(post, 'tags', 'add', [[t2, { nope: 1 }]]);
        expectError(unknown, 400, 'VALUE_UNKNOWN_FIELD');
        const invalid = await link(post, 'tags', 'set', [[t2, { weight: 'heavy' }]]);
        expect(invalid.status, invalid.text).toBe(400);
        const notObject = await link(post, 'tags', 'add', [[t2, 3]]);
        expect(notObject.status, notObject.text).toBe(400);
        expect(await throughRows(post)).toEqual([{ tagId: t1, weight: 1 }]);
      });

      it('through values work on a through collection created beforehand', async () => {
        await api.collection({ name: 'labels', fields: [{ name: 'name', type: 'string' }] });
        await api.collection({
          name: 'post_labels',
          fields: [{ name: 'note', type: 'string' }],
        });
        // a plain integer column of the default key name is not taken for a foreign key
        const clash = await api.post('/api/collections/post_labels/fields:create', { name: 'postId', type: 'integer' });
        expect(clash.status, clash.text).toBe(201);
        const refused = await api.post('/api/collections/posts/fields:create', { name: 'labels', type: 'belongsToMany', through: 'post_labels' });
        expectError(refused, 400, 'SCHEMA_INVALID');
        expect((await api.del('/api/collections/post_labels/fields/postId')).status).toBe(200);
        const field = await api.post('/api/collections/posts/fields:create', { name: 'labels', type: 'belongsToMany', through: 'post_labels' });
        expect(field.status, field.text).toBe(201);
        expect(field.body.data).toMatchObject({ through: 'post_labels', foreignKey: 'postId', otherKey: 'labelId' });
        const post = await newPost();
        const l1 = await newItem('labels', { name: 'x' });
        const l2 = await newItem('labels', { name: 'y' });
        expectOk(await link(post, 'labels', 'set', [[l1, { note: 'first' }], l2]));
        const rows = await api.get(`/api/post_labels:list?sort=labelId&${filterParam({ postId: post })}`);
        expect(rows.body.data.map((row: { labelId: number; note: string | null }) => [row.labelId, row.note])).toEqual([
          [l1, 'first'],
          [l2, null],
        ]);
        expect(await linked(post, 'labels')).toEqual([l1, l2]);
        const created = await api.post(`/api/posts/${post}/labels:create`, { name: 'z' });
        expect(created.status, created.text).toBe(201);
        expect(await linked(post, 'labels')).toEqual([l1, l2, created.body.data.id]);
      });
    });

    describe('hasMany create', () => {
      it('sets the key column to the source even when the body names another source', async () => {
        const post = await newPost();
        const other = await newPost();
        const reply = await api.post(`/api/posts/${post}/comments:create`, { name: 'mine', postId: other });
        expect(reply.status, reply.text).toBe(201);
        expect(reply.body.data.postId).toBe(post);
        expect((await api.get(`/api/comments/${reply.body.data.id}`)).body.data.postId).toBe(post);
        expect(await linked(post, 'comments')).toEqual([reply.body.data.id]);
        expect(await linked(other, 'comments')).toEqual([]);
      });

      it('bulk create links every item', async () => {
        const post = await newPost();
        const reply = await api.post(`/api/posts/${post}/comments:create`, [{ name: 'a' }, { name: 'b' }]);
        expect(reply.status, reply.text).toBe(201);
        expect(reply.body.data).toHaveLength(2);
        expect(await linked(post, 'comments')).toEqual(reply.body.data.map((row: { id: number }) => row.id));
      });
    });

    describe('belongsTo (posts.author)', () => {
      it('get, set, remove and the key column of the source', async () => {
        const post = await newPost();
        const a1 = await newItem('authors', { name: 'ann' });
        const a2 = await newItem('authors', { name: 'bob' });
        expectError(await api.get(`/api/posts/${post}/author:get`), 404, 'RECORD_NOT_FOUND');

        expectOk(await api.post(`/api/posts/${post}/author:set/${a1}`));
        const got = await api.get(`/api/posts/${post}/author:get`);
        expect(got.status, got.text).toBe(200);
        expect(got.body.data).toMatchObject({ id: a1, name: 'ann' });
        expect((await api.get(`/api/posts/${post}`)).body.data.authorId).toBe(a1);
        // REST form of a to-one get
        expect((await api.get(`/api/posts/${post}/author`)).body.data).toMatchObject({ id: a1 });

        expectOk(await api.post(`/api/posts/${post}/author:set`, [a2]));
        expect((await api.get(`/api/posts/${post}/author:get`)).body.data).toMatchObject({ id: a2, name: 'bob' });
        expectOk(await api.post(`/api/posts/${post}/author:set?filterByTk=${a1}`));
        expect((await api.get(`/api/posts/${post}`)).body.data.authorId).toBe(a1);

        expectError(await api.post(`/api/posts/${post}/author:set/999999`), 409, 'REFERENCE_VIOLATION');
        expect((await api.get(`/api/posts/${post}`)).body.data.authorId).toBe(a1);
        expect((await api.post(`/api/posts/${post}/author:set`, [a1, a2])).status).toBe(400);
        expect((await api.get(`/api/posts/${post}`)).body.data.authorId).toBe(a1);

        expectOk(await api.post(`/api/posts/${post}/author:remove`));
        expect((await api.get(`/api/posts/${post}`)).body.data.authorId).toBeNull();
        expectError(await api.get(`/api/posts/${post}/author:get`), 404, 'RECORD_NOT_FOUND');
        expect((await api.get(`/api/authors/${a1}`)).status).toBe(200);

        expectError(await api.post(`/api/posts/${post}/author:add/${a1}`), 404, 'ACTION_NOT_FOUND');
        expectError(await api.post(`/api/posts/${post}/author:toggle/${a1}`), 404, 'ACTION_NOT_FOUND');
        expect((await api.get(`/api/posts/${post}`)).body.data.authorId).toBeNull();
        expectError(await api.post(`/api/posts/999999/author:set/${a1}`), 404, 'RECORD_NOT_FOUND');
      });

      it('create links a new target, update and destroy reach the linked one only', async () => {
        const post = await newPost();
        const other = await newPost();
        const created = await api.post(`/api/posts/${post}/author:create`, { name: 'new' });
        expect(created.status, created.text).toBe(201);
        const author = created.body.data.id;
        expect((await api.get(`/api/posts/${post}`)).body.data.authorId).toBe(author);

        const updated = await api.post(`/api/posts/${post}/author:update`, { name: 'renamed' });
        expect(updated.status, updated.text).toBe(200);
        expect(updated.body.data).toMatchObject({ id: author, name: 'renamed' });
        expect((await api.get(`/api/authors/${author}`)).body.data.name).toBe('renamed');

        // nothing linked: update is 404 and touches no author
        expectError(await api.post(`/api/posts/${other}/author:update`, { name: 'x' }), 404, 'RECORD_NOT_FOUND');
        expect((await api.get(`/api/authors/${author}`)).body.data.name).toBe('renamed');

        const destroyed = await api.post(`/api/posts/${post}/author:destroy`);
        expect(destroyed.status, destroyed.text).toBe(200);
        expect(destroyed.body).toEqual({ data: 1 });
        expect((await api.get(`/api/authors/${author}`)).status).toBe(404);
        expect((await api.get(`/api/posts/${post}`)).body.data.authorId).toBeNull();
      });
    });

    describe('hasOne (posts.profile)', () => {
      const profileOf = async (post: number) => api.get(`/api/posts/${post}/profile:get`);
      const stored = async (id: number) => (await api.get(`/api/profiles/${id}`)).body.data as { id: number; bio: string; postId: number | null };

      it('get, create (replacing the previous one), set and remove', async () => {
        const post = await newPost();
        expectError(await profileOf(post), 404, 'RECORD_NOT_FOUND');

        const first = await api.post(`/api/posts/${post}/profile:create`, { bio: 'first' });
        expect(first.status, first.text).toBe(201);
        expect(first.body.data).toMatchObject({ bio: 'first', postId: post });
        const p1 = first.body.data.id;
        expect((await profileOf(post)).body.data).toMatchObject({ id: p1, bio: 'first' });

        const second = await api.post(`/api/posts/${post}/profile:create`, { bio: 'second' });
        expect(second.status, second.text).toBe(201);
        const p2 = second.body.data.id;
        expect((await profileOf(post)).body.data).toMatchObject({ id: p2, bio: 'second' });
        // the previous one is unlinked, not deleted
        expect(await stored(p1)).toMatchObject({ id: p1, bio: 'first', postId: null });

        expect((await api.post(`/api/posts/${post}/profile:create`, [{ bio: 'x' }, { bio: 'y' }])).status).toBe(400);
        expect((await profileOf(post)).body.data.id).toBe(p2);

        expectOk(await api.post(`/api/posts/${post}/profile:set/${p1}`));
        expect((await profileOf(post)).body.data.id).toBe(p1);
        expect(await stored(p2)).toMatchObject({ postId: null });
        expect(await stored(p1)).toMatchObject({ postId: post });

        expectError(await api.post(`/api/posts/${post}/profile:set/999999`), 409, 'REFERENCE_VIOLATION');
        expect((await profileOf(post)).body.data.id).toBe(p1);

        expectError(await api.post(`/api/posts/${post}/profile:add/${p2}`), 404, 'ACTION_NOT_FOUND');
        expect((await profileOf(post)).body.data.id).toBe(p1);

        expectOk(await api.post(`/api/posts/${post}/profile:remove`));
        expectError(await profileOf(post), 404, 'RECORD_NOT_FOUND');
        expect(await stored(p1)).toMatchObject({ bio: 'first', postId: null });
        expect((await api.get(`/api/profiles:list?${filterParam({ id: { $in: [p1, p2] } })}`)).body.meta.count).toBe(2);
      });

      it('concurrent creates leave exactly one profile linked', async () => {
        const post = await newPost();
        const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => api.post(`/api/posts/${post}/profile:create`, { bio: `b${i}` })));
        for (const reply of replies) expect(reply.status, reply.text).toBe(201);
        const owned = await api.get(`/api/profiles:list?paginate=false&${filterParam({ postId: post })}`);
        expect(owned.body.data).toHaveLength(1);
        expect((await profileOf(post)).body.data.id).toBe(owned.body.data[0].id);
        const all = await api.get(`/api/profiles:list?${filterParam({ id: { $in: replies.map((reply) => reply.body.data.id) } })}`);
        expect(all.body.meta.count).toBe(8);
      });

      it('setting a profile takes it from its previous owner', async () => {
        const post = await newPost();
        const other = await newPost();
        const created = await api.post(`/api/posts/${other}/profile:create`, { bio: 'shared' });
        const profile = created.body.data.id;
        expectOk(await api.post(`/api/posts/${post}/profile:set/${profile}`));
        expect((await profileOf(post)).body.data.id).toBe(profile);
        expectError(await profileOf(other), 404, 'RECORD_NOT_FOUND');
      });
    });
  });
}
