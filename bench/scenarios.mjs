// The scenarios: one entry each. Every scenario runs against Corral and the baseline in turn,
// on every database, with the same load. To add one, append an entry:
//
//   name     short name shown in the table (and `--only=name`)
//   target   the CPU-per-request ratio Corral/baseline Corral aims at, at most (shown, never asserted)
//   connections  concurrent connections (default 50, `--connections`)
//   seconds  length of a measured run (default 3, `--duration`)
//   writes   true when it adds posts: the rows it adds are deleted after each run, so every run
//            (and every later scenario) sees the seeded 10,000 posts
//   request  (ctx) => ({ method, path, body? }) called for every request; ctx.postId() is a
//            random seeded post id, ctx.authorId() a random author id, ctx.int(n) 0..n-1,
//            ctx.posts the number of seeded posts.
//            A body is an object; it is sent as JSON.
//
// The baseline (bench/baseline/server.mjs) must serve the same URL with the same answer: a
// new scenario usually needs a route there too. Before measuring, the bench sends one request
// of each scenario to both servers and fails when the answers differ (reads) or their keys do.

import { encodeCursor, queryDigest } from '../dist/plan/cursor.js';

// Cursors are signed; the bench fixes the key (inherited by both servers) so a scenario can
// name the cursor of a deep row without walking to it, and the baseline can sign the same.
export const BENCH_CURSOR_SECRET = 'corral-bench-cursor-secret';
process.env.CORRAL_CURSOR_SECRET ??= BENCH_CURSOR_SECRET;

/** The cursor Corral hands out after post `id` in `posts:list?cursor=` (key order, no filter). */
export function postCursor(id) {
  const digest = queryDigest({ collection: JSON.stringify(['posts', null, null]), order: [{ field: { name: 'id' }, desc: false }], filter: undefined, keys: undefined });
  return encodeCursor(Buffer.from(process.env.CORRAL_CURSOR_SECRET, 'utf8'), digest, [id]);
}

const INCLUDES = encodeURIComponent(JSON.stringify({ title: { $includes: 'ost 99' } }));
const DEEP_CURSOR = encodeURIComponent(postCursor(9000));
const QUERY = {
  dimensions: [{ field: 'status' }],
  measures: [{ aggregation: 'count', alias: 'n' }, { field: 'views', aggregation: 'avg', alias: 'avgViews' }, { field: 'views', aggregation: 'max', alias: 'maxViews' }],
};

const FILTER = encodeURIComponent(JSON.stringify({ views: { $gt: 500 }, status: 'published' }));

export const SCENARIOS = [
  { name: 'get', target: 1.25, request: (ctx) => ({ method: 'GET', path: `/api/posts:get/${ctx.postId()}` }) },
  { name: 'list', target: 1.35, request: () => ({ method: 'GET', path: '/api/posts:list?pageSize=20&sort=-id' }) },
  { name: 'filter', target: 1.35, request: () => ({ method: 'GET', path: `/api/posts:list?filter=${FILTER}&pageSize=20` }) },
  {
    name: 'create',
    target: 1.35,
    writes: true,
    request: (ctx) => ({
      method: 'POST',
      path: '/api/posts:create',
      body: { title: `new post ${ctx.int(1e6)}`, body: 'created by the bench', views: ctx.int(1000), status: 'draft', authorId: ctx.authorId() },
    }),
  },
  {
    name: 'update',
    target: 1.35,
    request: (ctx) => ({ method: 'POST', path: `/api/posts:update/${ctx.postId()}`, body: { title: `updated ${ctx.int(1e6)}`, views: ctx.int(1000) } }),
  },
  { name: 'assoc', target: 1.35, request: (ctx) => ({ method: 'GET', path: `/api/posts/${ctx.postId()}/comments:list` }) },
  { name: 'includes', target: 1.35, request: () => ({ method: 'GET', path: `/api/posts:list?filter=${INCLUDES}&pageSize=20` }) },
  { name: 'cursor1', target: 1.35, request: () => ({ method: 'GET', path: '/api/posts:list?pageSize=20&cursor=' }) },
  // The cursor of row 9,000 of 10,000: should run within 15% of cursor1 (no OFFSET).
  { name: 'cursor9000', target: 1.35, request: () => ({ method: 'GET', path: `/api/posts:list?pageSize=20&cursor=${DEEP_CURSOR}` }) },
  // page=450 is the OFFSET equivalent of cursor9000, allowed to be slower.
  { name: 'page450', target: 1.35, request: () => ({ method: 'GET', path: '/api/posts:list?pageSize=20&page=450' }) },
  { name: 'query', target: 1.35, request: () => ({ method: 'POST', path: '/api/posts:query', body: QUERY }) },
];

/**
 * `--scale`: what grows with the table, run on the 10,000 seeded posts and on 1,000,000 posts
 * inserted directly in SQL: a key lookup, a filtered page (with its exact count), a page 80%
 * deep by offset, and a count of every row.
 */
// Few connections: a slow question still in flight when a run ends loads the next run. Longer
// runs: at a million rows a count or a deep page takes a good part of a second.
const SCALE_CONNECTIONS = 2;
const SCALE_SECONDS = 6;
export const SCALE_SCENARIOS = [
  { name: 'get', target: 1.25, connections: SCALE_CONNECTIONS, seconds: SCALE_SECONDS, request: (ctx) => ({ method: 'GET', path: `/api/posts:get/${ctx.postId()}` }) },
  { name: 'filter', target: 1.35, connections: SCALE_CONNECTIONS, seconds: SCALE_SECONDS, request: () => ({ method: 'GET', path: `/api/posts:list?filter=${FILTER}&pageSize=20` }) },
  { name: 'deep', target: 1.35, connections: SCALE_CONNECTIONS, seconds: SCALE_SECONDS, request: (ctx) => ({ method: 'GET', path: `/api/posts:list?pageSize=20&sort=id&page=${Math.floor((ctx.posts * 0.8) / 20)}` }) },
  { name: 'count', target: 1.35, connections: SCALE_CONNECTIONS, seconds: SCALE_SECONDS, request: () => ({ method: 'GET', path: '/api/posts:count' }) },
];
