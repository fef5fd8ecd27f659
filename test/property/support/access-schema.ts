import type { TestApi } from '../../support/test-app.js';

/**
 * The access property's schema: every relation type (docs/relations.md), with fields a grant
 * can leave out (`posts.secret`, `comments.secretNote`) and fields a row filter can test.
 *   authors  name, rating; profile (hasOne profiles), posts (hasMany posts, inverse of posts.author)
 *   profiles bio, code; authorId (key column of authors.profile)
 *   tags     label
 *   comments body (searchable), secretNote; post (belongsTo posts, inverse of posts.comments)
 *   posts    title (searchable), secret (searchable), views, ownerId; author (belongsTo),
 *            (posts and comments: `createdBy: true`, so createdById, what `:own` grants compare)
 *            comments (hasMany), tags (belongsToMany through posts_tags)
 */
export type CollectionName = 'authors' | 'profiles' | 'tags' | 'comments' | 'posts' | 'posts_tags';

export interface Relation {
  readonly name: string;
  readonly kind: 'belongsTo' | 'hasOne' | 'hasMany' | 'belongsToMany';
  readonly target: CollectionName;
  /** The key column: on the source (belongsTo), on the target (hasOne/hasMany), on posts_tags (belongsToMany). */
  readonly foreignKey: string;
  /** The relation of the other side that shares the key column, if the schema defines it. */
  readonly inverse?: string;
}

export interface CollectionInfo {
  /** Stored, non-relation fields (the key, key columns and timestamps included). */
  readonly columns: readonly string[];
  /** Columns a request may write (no key, no timestamps, no key columns). */
  readonly writable: readonly string[];
  readonly relations: readonly Relation[];
  /** Fields marked searchable: `q` and `$search` read all of them. */
  readonly searchable: readonly string[];
}

const STAMPS = ['createdAt', 'updatedAt'];

export const SCHEMA: Record<CollectionName, CollectionInfo> = {
  authors: {
    columns: ['id', 'name', 'rating', ...STAMPS],
    writable: ['name', 'rating'],
    relations: [
      { name: 'profile', kind: 'hasOne', target: 'profiles', foreignKey: 'authorId' },
      { name: 'posts', kind: 'hasMany', target: 'posts', foreignKey: 'authorId', inverse: 'author' },
    ],
    searchable: [],
  },
  profiles: { columns: ['id', 'bio', 'code', 'authorId', ...STAMPS], writable: ['bio', 'code'], relations: [], searchable: [] },
  tags: { columns: ['id', 'label', ...STAMPS], writable: ['label'], relations: [], searchable: [] },
  comments: {
    columns: ['id', 'body', 'secretNote', 'postId', 'createdById', ...STAMPS],
    writable: ['body', 'secretNote'],
    relations: [{ name: 'post', kind: 'belongsTo', target: 'posts', foreignKey: 'postId', inverse: 'comments' }],
    searchable: ['body'],
  },
  posts: {
    columns: ['id', 'title', 'secret', 'views', 'ownerId', 'authorId', 'createdById', ...STAMPS],
    writable: ['title', 'secret', 'views', 'ownerId'],
    relations: [
      { name: 'author', kind: 'belongsTo', target: 'authors', foreignKey: 'authorId', inverse: 'posts' },
      { name: 'comments', kind: 'hasMany', target: 'comments', foreignKey: 'postId', inverse: 'post' },
      { name: 'tags', kind: 'belongsToMany', target: 'tags', foreignKey: 'postId' },
    ],
    searchable: ['title', 'secret'],
  },
  posts_tags: { columns: ['id', 'postId', 'tagId', ...STAMPS], writable: [], relations: [], searchable: [] },
};

/** Collections a role's resources name (posts_tags only ever through the strategy). */
export const GRANTED: readonly CollectionName[] = ['authors', 'profiles', 'tags', 'comments', 'posts'];
export const ALL: readonly CollectionName[] = [...GRANTED, 'posts_tags'];

export const relationOf = (collection: CollectionName, name: string): Relation | undefined => SCHEMA[collection].relations.find((r) => r.name === name);

/** Every key column: [owner collection, column, the collection it points at]. */
export const KEY_COLUMNS: ReadonlyArray<readonly [CollectionName, string, CollectionName]> = [
  ['posts', 'authorId', 'authors'],
  ['comments', 'postId', 'posts'],
  ['profiles', 'authorId', 'authors'],
  ['posts_tags', 'postId', 'posts'],
  ['posts_tags', 'tagId', 'tags'],
];

export async function defineAccessSchema(api: TestApi): Promise<void> {
  await api.collection({ name: 'profiles', fields: [{ name: 'bio', type: 'string' }, { name: 'code', type: 'string' }] });
  await api.collection({ name: 'authors', fields: [{ name: 'name', type: 'string' }, { name: 'rating', type: 'integer' }, { name: 'profile', type: 'hasOne', target: 'profiles' }] });
  await api.collection({ name: 'tags', fields: [{ name: 'label', type: 'string' }] });
  await api.collection({ name: 'comments', createdBy: true, fields: [{ name: 'body', type: 'string', searchable: true }, { name: 'secretNote', type: 'string' }] });
  await api.collection({
    name: 'posts',
    createdBy: true,
    fields: [
      { name: 'title', type: 'string', searchable: true },
      { name: 'secret', type: 'string', searchable: true },
      { name: 'views', type: 'integer' },
      { name: 'ownerId', type: 'integer', index: true },
      { name: 'author', type: 'belongsTo' },
      { name: 'comments', type: 'hasMany' },
      { name: 'tags', type: 'belongsToMany' },
    ],
  });
  for (const [collection, field] of [
    ['comments', { name: 'post', type: 'belongsTo', target: 'posts' }],
    ['authors', { name: 'posts', type: 'hasMany', target: 'posts', foreignKey: 'authorId' }],
  ] as const) {
    const reply = await api.post(`/api/collections/${collection}/fields:create`, field);
    if (reply.status !== 201) throw new Error(`defining ${collection}.${field.name} failed: ${reply.status} ${reply.text}`);
  }
}

/** What seeding needs of a client: root's TestApi or the harness's user. */
export interface Sender {
  request(method: string, url: string, body?: unknown): Promise<{ status: number; body: any; text: string }>;
}

async function must(api: Sender, method: string, url: string, body?: unknown): Promise<any> {
  const reply = await api.request(method, url, body);
  if (reply.status >= 300) throw new Error(`${method} ${url} failed: ${reply.status} ${reply.text}`);
  return reply.body?.data;
}

const EVERYTHING = encodeURIComponent(JSON.stringify({ id: { $gt: 0 } }));

/** Collections whose rows record their creator (`createdById`), which `:own` grants compare. */
export const OWNED: ReadonlySet<CollectionName> = new Set(['posts', 'comments']);

/**
 * Empties every collection and seeds a fresh set (as root, and as the user through `mine`,
 * with a role that may do everything): rows owned by `userId` and by others (`ownerId` and
 * `createdById`), rows each row filter keeps and rows it drops, links of every relation.
 */
export async function resetRows(api: TestApi, userId: number, mine: Sender): Promise<void> {
  for (const collection of ['posts_tags', 'comments', 'posts', 'profiles', 'authors', 'tags']) await must(api, 'POST', `/api/${collection}:destroy?filter=${EVERYTHING}`);
  const authors = await must(api, 'POST', '/api/authors:create', [
    { name: 'ann', rating: 1, profile: { bio: 'ann bio', code: 'c-ann' } },
    { name: 'bob', rating: 5, profile: { bio: 'hidden', code: 'c-bob' } },
    { name: 'hidden', rating: 9 },
  ]);
  await must(api, 'POST', '/api/profiles:create', { bio: 'orphan', code: 'c-none' });
  const tags = await must(api, 'POST', '/api/tags:create', [{ label: 'news' }, { label: 'hidden' }, { label: 'x' }]);
  const posts = [];
  for (let i = 0; i < 6; i += 1) {
    posts.push({
      title: ['a', 'mine', 'hidden', 'x', 'news', 'b'][i],
      secret: `sec-${i}`,
      views: i * 4,
      ownerId: i % 2 === 0 ? userId : 1,
      author: i === 5 ? null : authors[i % 3].id,
      tags: tags.slice(0, i % 3).map((tag: { id: number }) => tag.id).concat(i === 4 ? [tags[2].id] : []),
      comments: i % 3 === 2 ? [] : [{ body: `c${i}`, secretNote: `note-${i}` }, { body: 'hidden', secretNote: 'x' }],
    });
  }
  // Posts 0, 3 and 4 (with their comments) are created by the user: createdById is theirs.
  await must(api, 'POST', '/api/posts:create', posts.filter((_, i) => i % 3 !== 0 && i !== 4));
  await must(mine, 'POST', '/api/posts:create', posts.filter((_, i) => i % 3 === 0 || i === 4));
  await must(api, 'POST', '/api/comments:create', { body: 'orphan', secretNote: 'n' });
  await must(mine, 'POST', '/api/comments:create', { body: 'mine orphan', secretNote: 'm' });
}
