import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindFilter } from '../../src/plan/bind-filter.js';
import type { ApiRequest } from '../../src/request/api-request.js';
import type { ScopeProvider, Scopes } from '../../src/store/scope.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';
import { openSse, type SseClient } from '../support/sse-client.js';

/**
 * The change feed honours the store's scopes (API.md section 11, item 6), the seam roles plug
 * into: a caller sees only events of rows in its scope and only the fields it may read, and
 * `webhooks` is root-only. The test's provider scopes a request by its x-request-id: `reader-…`
 * may see posts with views < 100 (id and title only) and notes of authors named 'mine' (a
 * scope through an association: not decidable from the event's row, so nothing is shown);
 * authors are unrestricted. Any other request is root.
 */
const isReader = (request: ApiRequest): boolean => request.id.startsWith('reader-');

const provider: ScopeProvider = (request, snapshot) => {
  if (!isReader(request)) return new Map();
  const scopes: Scopes = new Map([
    ['posts', { where: bindFilter({ views: { $lt: 100 } }, snapshot.get('posts')!), fields: new Set(['id', 'title']) }],
    ['notes', { where: bindFilter({ author: { name: { $eq: 'mine' } } }, snapshot.get('notes')!) }],
  ]);
  return scopes;
};

interface Case {
  name: string;
  /** `reader-…` (scoped) or `root-…`. */
  as: string;
  query: string;
  /** Titles (posts) or names (authors, notes) of the events expected, in order. */
  expected: string[];
  /** The data keys every event carries. */
  keys: string[];
}

for (const dialect of DIALECTS) {
  describe(`change feed permissions on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { changesPollMs: 50, webhookAllowPrivate: true }, { store: { scopes: provider } });
    let api: TestApi;
    let base: string;
    const open: SseClient[] = [];

    beforeAll(async () => {
      api = ctx.api;
      await ctx.built.app.listen({ port: 0, host: '127.0.0.1' });
      base = `http://127.0.0.1:${(ctx.built.app.server.address() as AddressInfo).port}`;
      await api.collection({ name: 'authors', fields: [{ name: 'name', type: 'string' }] });
      await api.collection({ name: 'posts', fields: [{ name: 'title', type: 'string' }, { name: 'views', type: 'integer' }] });
      await api.collection({ name: 'notes', fields: [{ name: 'name', type: 'string' }, { name: 'author', type: 'belongsTo', target: 'authors' }] });
    });

    afterAll(() => {
      for (const client of open) client.close();
    });

    const label = (event: { collection: string; data: Record<string, unknown> }): string => String(event.data.title ?? event.data.name);

    /** Writes one batch as root: posts with views 1 (low) and 500 (high), an author, a note of that author. */
    const writeBatch = async (tag: string): Promise<void> => {
      for (const [title, views] of [[`low-${tag}`, 1], [`high-${tag}`, 500]] as const) {
        expect((await api.post('/api/posts:create', { title, views })).status).toBe(201);
      }
      const author = await api.post('/api/authors:create', { name: 'mine' });
      expect(author.status).toBe(201);
      expect((await api.post('/api/notes:create', { name: `note-${tag}`, author: author.body.data.id })).status).toBe(201);
    };

    const subscribeCases = (tag: string): Case[] => [
      { name: 'root sees every post with every field', as: 'root-s1', query: 'posts:subscribe', expected: [`low-${tag}`, `high-${tag}`], keys: ['createdAt', 'id', 'title', 'updatedAt', 'views'] },
      { name: 'a reader sees posts in its scope, only the fields it may read', as: 'reader-s1', query: 'posts:subscribe', expected: [`low-${tag}`], keys: ['id', 'title'] },
      { name: 'fields narrows further, never wider than the scope', as: 'reader-s2', query: 'posts:subscribe?fields=title,views', expected: [`low-${tag}`], keys: ['title'] },
      { name: 'a filter on a field the reader may not read matches as if it were absent', as: 'reader-s3', query: `posts:subscribe?filter=${encodeURIComponent('{"views":{"$gt":0}}')}`, expected: [], keys: [] },
      { name: 'a filter on a readable field applies within the scope', as: 'reader-s4', query: `posts:subscribe?filter=${encodeURIComponent(JSON.stringify({ title: { $startsWith: 'low' } }))}`, expected: [`low-${tag}`], keys: ['id', 'title'] },
      { name: 'a collection outside the reader scopes is unrestricted', as: 'reader-s5', query: 'authors:subscribe', expected: ['mine'], keys: ['createdAt', 'id', 'name', 'updatedAt'] },
      { name: 'a scope through an association shows nothing (fail closed)', as: 'reader-s6', query: 'notes:subscribe', expected: [], keys: [] },
      { name: 'root sees the notes', as: 'root-s2', query: 'notes:subscribe', expected: [`note-${tag}`], keys: ['authorId', 'createdAt', 'id', 'name', 'updatedAt'] },
    ];

    it('subscribe: each caller gets the events and fields of its scope', async () => {
      const cases = subscribeCases('sse');
      const clients = await Promise.all(cases.map(async (entry) => {
        const client = openSse(`${base}/api/${entry.query}`, { ...(await api.authHeaders()), 'x-request-id': entry.as });
        open.push(client);
        return client;
      }));
      for (const client of clients) expect(await client.status).toBe(200);
      await writeBatch('sse');
      // Root's notes stream ends the batch: once it has its event, every stream has had its chance.
      await clients.at(-1)!.waitFor(1);
      await Promise.all(clients.map((client, index) => (cases[index]!.expected.length > 0 ? client.waitFor(cases[index]!.expected.length) : undefined)));
      await ctx.built.changes.settle();
      for (const [index, entry] of cases.entries()) {
        const events = clients[index]!.events.map((event) => event.data);
        expect(events.map(label), entry.name).toEqual(entry.expected);
        for (const event of events) expect(Object.keys(event.data).sort(), entry.name).toEqual(entry.keys);
      }
    });

    it('changes:list: a reader sees only the events and fields of its scope', async () => {
      const before = await api.get('/api/changes:list?pageSize=1000');
      const after = before.body.data.at(-1)?.id ?? 0;
      await writeBatch('pull');
      const cases: Case[] = [
        { name: 'root', as: 'root-l1', query: `changes:list?after=${after}`, expected: ['low-pull', 'high-pull', 'mine', 'note-pull'], keys: [] },
        { name: 'reader', as: 'reader-l1', query: `changes:list?after=${after}`, expected: ['low-pull', 'mine'], keys: [] },
        { name: 'reader, one collection', as: 'reader-l2', query: `changes:list?after=${after}&collection=posts`, expected: ['low-pull'], keys: [] },
      ];
      for (const entry of cases) {
        const reply = await api.request('GET', `/api/${entry.query}`, undefined, { 'x-request-id': entry.as });
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body.data.map(label), entry.name).toEqual(entry.expected);
      }
      const reader = await api.request('GET', `/api/changes:list?after=${after}&collection=posts`, undefined, { 'x-request-id': 'reader-l3' });
      expect(Object.keys(reader.body.data[0].data).sort()).toEqual(['id', 'title']);
    });

    it('webhooks are root-only: 403 FORBIDDEN for anyone else', async () => {
      const routes: Array<[string, string, unknown?]> = [
        ['GET', '/api/webhooks:list'],
        ['GET', '/api/webhooks'],
        ['POST', '/api/webhooks:create', { url: 'https://example.com/hook', secret: 'a-long-secret', collections: ['posts'] }],
        ['GET', '/api/webhooks/1/deliveries:list'],
      ];
      for (const [method, url, body] of routes) {
        const reply = await api.request(method, url, body, { 'x-request-id': 'reader-w' });
        expect(reply.status, `${method} ${url}: ${reply.text}`).toBe(403);
        expect(reply.body.errors[0].code).toBe('FORBIDDEN');
      }
      expect((await api.request('GET', '/api/webhooks:list', undefined, { 'x-request-id': 'root-w' })).status).toBe(200);
    });

    it('webhook events are root-only in the feed too: a reader never sees them, root does', async () => {
      const before = await api.get('/api/changes:list?pageSize=1000');
      const after = before.body.data.at(-1)?.id ?? 0;
      const created = await api.request('POST', '/api/webhooks:create', { url: 'http://127.0.0.1:9/feed-hook', secret: 'a-long-secret', collections: ['posts'], active: false }, { 'x-request-id': 'root-w2' });
      expect(created.status, created.text).toBe(201);
      const collections = async (as: string, query: string): Promise<string[]> => {
        const reply = await api.request('GET', `/api/changes:list?after=${after}${query}`, undefined, { 'x-request-id': as });
        expect(reply.status, reply.text).toBe(200);
        return reply.body.data.map((event: { collection: string }) => event.collection);
      };
      expect(await collections('root-w3', '')).toContain('webhooks');
      expect(await collections('reader-w3', '')).not.toContain('webhooks');
      expect(await collections('reader-w4', '&collection=webhooks')).toEqual([]);
      expect(JSON.stringify((await api.request('GET', `/api/changes:list?after=${after}`, undefined, { 'x-request-id': 'root-w4' })).body)).not.toContain('a-long-secret');
    });
  });
}
