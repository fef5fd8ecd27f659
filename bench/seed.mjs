// @ts-check
// The bench's data, created through Corral's own schema and bulk-create API, so Corral and the
// baseline read the very tables and indexes Corral makes.
import { OWNER_USER_ID } from './lib/auth.mjs';
import { requestOk } from './lib/proc.mjs';

export const SEED = { posts: 10_000, commentsPerPost: 3, authors: 100, batch: 1000 };
const STATUSES = ['published', 'draft', 'archived'];

/** A small deterministic generator, so every run seeds the same data. */
export function random(seed = 42) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** @param {string} baseUrl @param {string} collection @param {object[]} rows */
async function bulk(baseUrl, collection, rows) {
  for (let start = 0; start < rows.length; start += SEED.batch) {
    await requestOk(baseUrl, 'POST', `/api/${collection}:create`, rows.slice(start, start + SEED.batch));
  }
}

/**
 * The bench's collections, with their indexes, made by Corral; and the authors. `searchable`:
 * posts' `title` is searchable (`q`, `$search`), as the `--large` set asks.
 * @param {string} baseUrl
 * @param {{ searchable?: boolean }} [options]
 */
async function createSchema(baseUrl, { searchable = false } = {}) {
  await requestOk(baseUrl, 'POST', '/api/collections:create', { name: 'authors', fields: [{ name: 'name', type: 'string' }] });
  await requestOk(baseUrl, 'POST', '/api/collections:create', { name: 'comments', fields: [{ name: 'body', type: 'text' }] });
  await requestOk(baseUrl, 'POST', '/api/collections:create', {
    name: 'posts',
    fields: [
      { name: 'title', type: 'string', ...(searchable ? { searchable: true } : {}) },
      { name: 'body', type: 'text' },
      { name: 'views', type: 'integer', index: true },
      { name: 'status', type: 'string', index: true },
      { name: 'author', type: 'belongsTo' },
      { name: 'comments', type: 'hasMany' },
      // The owner of the `list-scoped` scenario's tenant scope (bench/lib/auth.mjs).
      { name: 'ownerId', type: 'integer', index: true },
    ],
  });
  await bulk(baseUrl, 'authors', Array.from({ length: SEED.authors }, (_, i) => ({ name: `author ${i + 1}` })));
}

const body = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. '.repeat(3);

/** @param {string} baseUrl */
export async function seed(baseUrl) {
  const rand = random();
  const int = (/** @type {number} */ n) => Math.floor(rand() * n);
  await createSchema(baseUrl);
  await bulk(
    baseUrl,
    'posts',
    Array.from({ length: SEED.posts }, (_, i) => ({
      title: `post ${i + 1}`,
      body,
      views: int(1000),
      status: STATUSES[int(STATUSES.length)],
      authorId: 1 + int(SEED.authors),
      // Every tenth post belongs to the owner user; no random draw, so the other columns stay as they were.
      ownerId: (i + 1) % 10 === 0 ? OWNER_USER_ID : null,
    })),
  );
  const comments = [];
  for (let post = 1; post <= SEED.posts; post++) {
    for (let k = 1; k <= SEED.commentsPerPost; k++) comments.push({ body: `comment ${k} on post ${post}`, postId: post });
  }
  await bulk(baseUrl, 'comments', comments);
  // The ids the scenarios pick from must be exactly 1..posts.
  const last = await requestOk(baseUrl, 'GET', '/api/posts:list?pageSize=1&sort=-id');
  if (last.body.data[0]?.id !== SEED.posts || last.body.meta.count !== SEED.posts) {
    throw new Error(`seed: expected posts 1..${SEED.posts}, got ${JSON.stringify(last.body.meta)} last id ${last.body.data[0]?.id}`);
  }
}

/**
 * `--scale`: the same schema and authors, and one post through the API: the template whose
 * stored timestamps and body the bulk of the rows copy, inserted directly in SQL by the caller
 * (through the API, a million rows would take many minutes). `searchable`: see createSchema.
 * @param {string} baseUrl
 * @param {{ searchable?: boolean }} [options]
 */
export async function seedScaleTemplate(baseUrl, { searchable = false } = {}) {
  await createSchema(baseUrl, { searchable });
  await requestOk(baseUrl, 'POST', '/api/posts:create', { title: 'post 1', body, views: 0, status: 'published', authorId: 1 });
}

/** 50 collections of a few fields each, for the start-up measurement. @param {string} baseUrl @param {number} [count] */
export async function seedManyCollections(baseUrl, count = 50) {
  for (let i = 1; i <= count; i++) {
    const name = `c${String(i).padStart(2, '0')}`;
    await requestOk(baseUrl, 'POST', '/api/collections:create', {
      name,
      fields: [
        { name: 'title', type: 'string', index: true },
        { name: 'body', type: 'text' },
        { name: 'amount', type: 'integer' },
        { name: 'price', type: 'decimal' },
        { name: 'done', type: 'boolean' },
        { name: 'due', type: 'date' },
        { name: 'meta', type: 'json' },
        ...(i > 1 ? [{ name: 'parent', type: 'belongsTo', target: 'c01' }] : []),
      ],
    });
  }
  await requestOk(baseUrl, 'POST', '/api/c01:create', { title: 'one', amount: 1 });
}
