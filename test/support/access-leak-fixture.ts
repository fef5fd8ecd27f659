import { beforeAll, expect } from 'vitest';
import type { Dialect } from '../../src/schema/types.js';
import { apiFor, useDialectApp, type DialectApp, type Reply, type TestApi } from './test-app.js';

/**
 * The attacker's set-up shared by the access-leak regression tests: a `member`
 * who may view its own posts (without `secret`), create comments with a field list, view tags
 * and nothing on authors; posts owned by the member and by others. Hidden values carry the
 * markers SECRET- and NOTE- so a leak anywhere in an answer's text is found by one match.
 */
export const OWN = { ownerId: '{{$user.id}}' } as const;
export const POST_VIEW = ['id', 'title', 'ownerId', 'authorId', 'author', 'comments', 'tags', 'createdAt', 'updatedAt'];
export const COMMENT_VIEW = ['id', 'body', 'postId', 'post'];
export const LEAK = /SECRET-|NOTE-/;
/** An id no row has: what "missing" answers look like. */
export const MISSING_ID = 987654;

const ROLES = [
  {
    name: 'member',
    strategy: { actions: [] },
    resources: [
      { name: 'posts', actions: [{ name: 'view', filter: OWN, fields: POST_VIEW }] },
      {
        name: 'comments',
        actions: [
          // Every comment is visible (the set-up), only not its secretNote.
          { name: 'view', fields: COMMENT_VIEW },
          { name: 'create', fields: ['body', 'postId', 'post'] },
        ],
      },
      { name: 'tags', actions: [{ name: 'view' }] },
    ],
  },
  // Held with `member`: writes posts with field lists; reads them through member's view grant.
  {
    name: 'postWriter',
    strategy: { actions: [] },
    resources: [
      {
        name: 'posts',
        actions: [
          { name: 'create', fields: ['title', 'secret', 'ownerId', 'author', 'authorId', 'tags', 'comments'] },
          { name: 'update', filter: OWN, fields: ['title', 'secret', 'tags', 'comments'] },
        ],
      },
    ],
  },
  // Views its own posts but may create and update any: the lookups must still be the view's.
  {
    name: 'editor',
    strategy: { actions: [] },
    resources: [
      {
        name: 'posts',
        actions: [
          { name: 'view', filter: OWN, fields: POST_VIEW },
          { name: 'create', fields: ['title', 'ownerId'] },
          { name: 'update', fields: ['title', 'ownerId'] },
        ],
      },
    ],
  },
  // Writes posts without any view grant: its answers carry the key only.
  { name: 'blind', strategy: { actions: [] }, resources: [{ name: 'posts', actions: [{ name: 'create', fields: ['title', 'secret', 'ownerId'] }, { name: 'update', fields: ['title', 'secret'] }] }] },
  { name: 'keyKeeper', strategy: { actions: [] }, resources: [{ name: 'apiKeys', actions: [{ name: 'view' }, { name: 'create' }, { name: 'destroy' }] }] },
];

const USERS: Record<string, string[]> = {
  alice: ['member'],
  bob: ['member'],
  writer: ['member', 'postWriter'],
  editor: ['editor'],
  blind: ['blind'],
  keeper: ['keyKeeper'],
};

export interface LeakFixture {
  readonly ctx: DialectApp;
  /** User ids by name, post ids (alice, bob, writer, editor, blind), comment ids (alice, bob), the author's and tag's ids. */
  readonly user: Record<string, number>;
  readonly post: Record<string, number>;
  readonly comment: Record<string, number>;
  readonly row: { author: number; tag: number };
  as(name: string): TestApi;
  /** Every row of the blog collections as root reads them. */
  state(): Promise<string>;
}

/** Registers the app and the set-up for one describe block on one dialect. */
export function useLeakFixture(dialect: Dialect): LeakFixture {
  const ctx = useDialectApp(dialect);
  const user: Record<string, number> = {};
  const post: Record<string, number> = {};
  const comment: Record<string, number> = {};
  const row = { author: 0, tag: 0 };
  const clients = new Map<string, TestApi>();
  const as = (name: string): TestApi => {
    if (!clients.has(name)) clients.set(name, apiFor(ctx.built, { account: `${name}@corral.test`, password: `${name}-password` }));
    return clients.get(name)!;
  };
  const create = async (url: string, body: unknown): Promise<number> => {
    const reply = await ctx.api.post(url, body);
    expect(reply.status, reply.text).toBe(201);
    return reply.body.data.id;
  };

  beforeAll(async () => {
    const root = ctx.api;
    await root.collection({ name: 'authors', fields: [{ name: 'name', type: 'string' }] });
    await root.collection({ name: 'tags', fields: [{ name: 'label', type: 'string' }] });
    await root.collection({ name: 'comments', fields: [{ name: 'body', type: 'string' }, { name: 'secretNote', type: 'string' }] });
    await root.collection({
      name: 'posts',
      fields: [
        { name: 'title', type: 'string' },
        { name: 'secret', type: 'string' },
        { name: 'ownerId', type: 'integer' },
        { name: 'author', type: 'belongsTo' },
        { name: 'comments', type: 'hasMany' },
        { name: 'tags', type: 'belongsToMany' },
      ],
    });
    const back = await root.post('/api/collections/comments/fields:create', { name: 'post', type: 'belongsTo', target: 'posts', foreignKey: 'postId' });
    expect(back.status, back.text).toBe(201);
    for (const role of ROLES) {
      const created = await root.post('/api/roles:create', role);
      expect(created.status, created.text).toBe(201);
    }
    for (const [name, roles] of Object.entries(USERS)) user[name] = await create('/api/users:create', { email: `${name}@corral.test`, password: `${name}-password`, roles });
    const author = (row.author = await create('/api/authors:create', { name: 'ann' }));
    const tag = (row.tag = await create('/api/tags:create', { label: 'red' }));
    for (const name of ['alice', 'bob', 'writer', 'editor', 'blind']) {
      post[name] = await create('/api/posts:create', { title: `${name} post`, secret: `SECRET-${name}`, ownerId: user[name], author, tags: [tag] });
    }
    for (const name of ['alice', 'bob']) comment[name] = await create('/api/comments:create', { body: `${name} comment`, secretNote: `NOTE-${name}`, postId: post[name] });
  });

  const state = async (): Promise<string> => {
    const read = async (collection: string) => JSON.stringify((await ctx.api.get(`/api/${collection}:list?sort=id&paginate=false`)).body.data);
    return (await Promise.all(['posts', 'comments', 'authors', 'tags', 'posts_tags'].map(read))).join('\n');
  };
  return { ctx, user, post, comment, row, as, state };
}

export function expectError(reply: Reply, status: number, code: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.body.errors[0].code, reply.text).toBe(code);
}

/** An error answer with every occurrence of `id` replaced, to compare a hidden row's answer with a missing one's. */
export function normalised(reply: Reply, id: number): string {
  return JSON.stringify({ status: reply.status, errors: reply.body?.errors }).replace(new RegExp(`\\b${id}\\b`, 'g'), '<id>');
}

/** Every row an answer carries (one object, an array, or a list envelope). */
export function rowsOf(reply: Reply): Record<string, unknown>[] {
  const data: unknown = reply.body?.data;
  return (Array.isArray(data) ? data : [data]) as Record<string, unknown>[];
}
