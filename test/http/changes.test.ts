import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';
import { openSse, type SseClient } from '../support/sse-client.js';
import { eventsAfter as eventsAfterOf, type ChangeEvent } from '../support/change-event.js';

/**
 * The outbox and the change feed: every committed write records one event per changed row
 * (API.md section 11), readable through changes:list and :subscribe.
 */
for (const dialect of DIALECTS) {
  describe(`change feed on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { changesPollMs: 50 });
    let api: TestApi;
    let base: string;
    const open: SseClient[] = [];
    let auth: Record<string, string> = {};
    const subscribe = (path: string, headers: Record<string, string> = {}): SseClient => {
      const client = openSse(`${base}${path}`, { ...auth, ...headers });
      open.push(client);
      return client;
    };

    const eventsAfter = (after: number, collection?: string): Promise<ChangeEvent[]> => eventsAfterOf(api, after, collection);
    const lastId = async (): Promise<number> => (await eventsAfter(0)).at(-1)?.id ?? 0;
    const brief = (events: ChangeEvent[]) => events.map((event) => `${event.collection}.${event.action}:${String(event.key)}`);

    beforeAll(async () => {
      api = ctx.api;
      auth = await api.authHeaders();
      await ctx.built.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(ctx.built.app.server.address() as AddressInfo).port}`;
      await api.collection({ name: 'authors', fields: [{ name: 'name', type: 'string' }] });
      await api.collection({ name: 'tags', fields: [{ name: 'name', type: 'string', unique: true }] });
      await api.collection({
        name: 'posts',
        fields: [
          { name: 'title', type: 'string' },
          { name: 'views', type: 'integer' },
          { name: 'author', type: 'belongsTo', target: 'authors' },
          { name: 'tags', type: 'belongsToMany', target: 'tags' },
        ],
      });
      await api.collection({ name: 'comments', fields: [{ name: 'body', type: 'string' }, { name: 'post', type: 'belongsTo', target: 'posts', onDelete: 'CASCADE' }] });
      await api.request('POST', '/api/collections/posts/fields:create', { name: 'comments', type: 'hasMany', target: 'comments', foreignKey: 'postId' });
    });

    afterAll(() => {
      for (const client of open) client.close();
    });

    it('records create, bulk create, update and destroy with the row after (before, for destroy)', async () => {
      const start = await lastId();
      const one = (await api.post('/api/posts:create', { title: 'one', views: 1 })).body.data.id;
      const bulk = await api.post('/api/posts:create', [{ title: 'two' }, { title: 'three' }]);
      expect(bulk.status, bulk.text).toBe(201);
      const [two, three] = bulk.body.data.map((item: { id: number }) => item.id);
      expect((await api.put(`/api/posts/${one}`, { views: 2 })).status).toBe(200);
      expect((await api.del(`/api/posts/${two}`)).status).toBe(200);
      const events = await eventsAfter(start);
      expect(brief(events)).toEqual([`posts.create:${one}`, `posts.create:${two}`, `posts.create:${three}`, `posts.update:${one}`, `posts.destroy:${two}`]);
      const ids = events.map((event) => event.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(new Set(ids).size).toBe(ids.length);
      expect(events[0]).toMatchObject({ collection: 'posts', action: 'create', key: one, data: { id: one, title: 'one', views: 1, authorId: null } });
      expect(Date.parse(events[0]!.at)).not.toBeNaN();
      expect(events[3]!.data).toMatchObject({ id: one, title: 'one', views: 2 });
      expect(events[4]!.data).toMatchObject({ id: two, title: 'two' });
    });

    it('records nested writes, association routes and add/set/remove/toggle', async () => {
      const tag = (await api.post('/api/tags:create', { name: 'nested-old' })).body.data.id;
      const start = await lastId();
      const created = await api.post('/api/posts:create', { title: 'n', author: { name: 'a' }, tags: [tag, { name: 'nested-new' }] });
      expect(created.status, created.text).toBe(201);
      const post = created.body.data.id;
      const nested = await eventsAfter(start);
      expect(nested.map((event) => `${event.collection}.${event.action}`).sort()).toEqual(['authors.create', 'posts.create', 'posts_tags.create', 'posts_tags.create', 'tags.create']);
      expect(nested.find((event) => event.collection === 'posts')!.data.authorId).toBe(created.body.data.authorId);

      let mark = await lastId();
      const comment = (await api.post(`/api/posts/${post}/comments:create`, { body: 'c' })).body.data.id;
      expect(brief(await eventsAfter(mark))).toEqual([`comments.create:${comment}`]);
      const loose = (await api.post('/api/comments:create', { body: 'loose' })).body.data.id;
      mark = await lastId();
      expect((await api.post(`/api/posts/${post}/comments:add`, [loose])).status).toBe(200);
      const added = await eventsAfter(mark);
      expect(brief(added)).toEqual([`comments.update:${loose}`]);
      expect(added[0]!.data.postId).toBe(post);
      mark = await lastId();
      await api.post(`/api/posts/${post}/comments:remove`, [loose]);
      const removed = await eventsAfter(mark);
      expect(brief(removed)).toEqual([`comments.update:${loose}`]);
      expect(removed[0]!.data.postId).toBeNull();
      mark = await lastId();
      await api.post(`/api/posts/${post}/tags:toggle`, [tag]);
      expect((await eventsAfter(mark)).map((event) => `${event.collection}.${event.action}`)).toEqual(['posts_tags.destroy']);
      mark = await lastId();
      await api.post(`/api/posts/${post}/tags:set`, [tag]);
      expect((await eventsAfter(mark)).map((event) => `${event.collection}.${event.action}`).sort()).toEqual(['posts_tags.create', 'posts_tags.destroy']);
    });

    it('records the rows the database cascades to (ON DELETE CASCADE and SET NULL)', async () => {
      const author = (await api.post('/api/authors:create', { name: 'gone' })).body.data.id;
      const tag = (await api.post('/api/tags:create', { name: 'cascade-tag' })).body.data.id;
      const post = (await api.post('/api/posts:create', { title: 'parent', authorId: author, tags: [tag] })).body.data.id;
      const comment = (await api.post(`/api/posts/${post}/comments:create`, { body: 'child' })).body.data.id;
      let mark = await lastId();
      expect((await api.del(`/api/authors/${author}`)).status).toBe(200);
      const nulled = await eventsAfter(mark);
      expect(brief(nulled).sort()).toEqual([`authors.destroy:${author}`, `posts.update:${post}`].sort());
      expect(nulled.find((event) => event.collection === 'posts')!.data.authorId).toBeNull();
      mark = await lastId();
      expect((await api.del(`/api/posts/${post}`)).status).toBe(200);
      const cascaded = await eventsAfter(mark);
      expect(cascaded.map((event) => `${event.collection}.${event.action}`).sort()).toEqual(['comments.destroy', 'posts.destroy', 'posts_tags.destroy']);
      expect(cascaded.find((event) => event.collection === 'comments')!.data).toMatchObject({ id: comment, body: 'child', postId: post });
    });

    it('a rolled-back write records nothing', async () => {
      await api.post('/api/tags:create', { name: 'taken' });
      const mark = await lastId();
      const failed = await api.post('/api/tags:create', [{ name: 'fresh' }, { name: 'taken' }]);
      expect(failed.status).toBe(409);
      const nested = await api.post('/api/posts:create', { title: 'rolled back', tags: [{ name: 'taken' }] });
      expect(nested.status).toBe(409);
      expect(await eventsAfter(mark)).toEqual([]);
    });

    it('changes:list pages with meta.hasNext and narrows to one collection', async () => {
      const mark = await lastId();
      for (let i = 0; i < 3; i++) await api.post('/api/authors:create', { name: `p${i}` });
      await api.post('/api/tags:create', { name: 'list-only' });
      const page = await api.get(`/api/changes:list?after=${mark}&pageSize=2`);
      expect(page.body.meta).toEqual({ page: 1, pageSize: 2, hasNext: true });
      expect(page.body.data).toHaveLength(2);
      expect((await eventsAfter(mark, 'tags')).map((event) => event.data.name)).toEqual(['list-only']);
      expect((await api.get('/api/changes:list?after=x')).status).toBe(400);
      expect((await api.get('/api/changes:list?collection=nope')).body.errors[0].code).toBe('COLLECTION_NOT_FOUND');
    });

    it('subscribe streams events as SSE with filter and fields', async () => {
      const filter = encodeURIComponent(JSON.stringify({ views: { $gt: 10 } }));
      const client = subscribe(`/api/posts:subscribe?filter=${filter}&fields=title,views`);
      expect(await client.status).toBe(200);
      await api.post('/api/posts:create', { title: 'low', views: 1 });
      const high = (await api.post('/api/posts:create', { title: 'high', views: 11 })).body.data.id;
      await api.put(`/api/posts/${high}`, { views: 12 });
      await client.waitFor(2);
      expect(client.events.map((event) => event.event)).toEqual(['create', 'update']);
      expect(client.events[0]!.data).toMatchObject({ collection: 'posts', action: 'create', key: high, data: { title: 'high', views: 11 } });
      expect(Object.keys(client.events[0]!.data.data).sort()).toEqual(['title', 'views']);
      expect(client.events[0]!.id).toBe(client.events[0]!.data.id);
      const bad = await api.get(`/api/posts:subscribe?filter=${encodeURIComponent(JSON.stringify({ 'author.name': 'x' }))}`);
      expect(bad.body.errors[0].code).toBe('FILTER_INVALID');
    });

    it('resumes after a disconnect with Last-ChangeEvent-ID or ?after=, each missed event exactly once', async () => {
      const first = subscribe('/api/authors:subscribe');
      expect(await first.status).toBe(200);
      await api.post('/api/authors:create', { name: 'r1' });
      await first.waitFor(1);
      first.close();
      const seen = first.events.at(-1)!.id;
      for (let i = 2; i <= 4; i++) await api.post('/api/authors:create', { name: `r${i}` });
      const resumed = subscribe('/api/authors:subscribe', { 'last-event-id': String(seen) });
      await resumed.waitFor(3);
      await api.post('/api/authors:create', { name: 'r5' });
      await resumed.waitFor(4);
      expect(resumed.events.map((event) => event.data.data.name)).toEqual(['r2', 'r3', 'r4', 'r5']);
      const byQuery = subscribe(`/api/authors:subscribe?after=${seen}`);
      await byQuery.waitFor(4);
      expect(byQuery.events.map((event) => event.id)).toEqual(resumed.events.map((event) => event.id));
    });

    it('8 concurrent writers while a subscriber reconnects: every committed event exactly once, in id order', async () => {
      const mark = await lastId();
      const received: number[] = [];
      let cursor = mark;
      let writing = true;
      const writers = Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; i < 15; i++) {
          const reply = await api.post('/api/tags:create', [{ name: `w${w}-${i}-a` }, { name: `w${w}-${i}-b` }]);
          expect(reply.status, reply.text).toBe(201);
        }
      });
      const reader = (async () => {
        while (writing) {
          const client = subscribe(`/api/tags:subscribe?after=${cursor}`);
          await client.status;
          await new Promise((resolve) => setTimeout(resolve, 40 + Math.random() * 40));
          client.close();
          for (const event of client.events) received.push(event.id);
          cursor = client.events.at(-1)?.id ?? cursor;
        }
      })();
      await Promise.all(writers);
      writing = false;
      await reader;
      const committed = (await eventsAfter(mark, 'tags')).map((event) => event.id);
      expect(committed).toHaveLength(8 * 15 * 2);
      const final = subscribe(`/api/tags:subscribe?after=${cursor}`);
      await final.waitFor(committed.length - received.length);
      received.push(...final.events.map((event) => event.id));
      expect(received).toEqual(committed);
    });

    it('an expired resume id is 410 CHANGES_EXPIRED', async () => {
      const mark = await lastId();
      await api.post('/api/authors:create', { name: 'old' });
      await ctx.built.changes.prune(Date.now() + 8 * 24 * 3600 * 1000);
      const reply = await api.get(`/api/authors:subscribe?after=${mark}`);
      expect(reply.status).toBe(410);
      expect(reply.body.errors[0].code).toBe('CHANGES_EXPIRED');
      expect((await api.get(`/api/changes:list?after=${mark}`)).status).toBe(410);
    });
  });
}
