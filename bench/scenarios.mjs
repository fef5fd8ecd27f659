// @ts-check
// The scenarios: one entry each. Every scenario runs against Corral and the baseline in turn,
// on every database, with the same load. To add one, append an entry:
//
//   name     short name shown in the table (and `--only=name`)
//   target   the CPU-per-request ratio Corral/baseline Corral aims at, at most (shown, never asserted)
//   connections  concurrent connections (default 50, `--connections`)
//   seconds  length of a measured run (default 3, `--duration`)
//   writes   true when it adds posts: the rows it adds are deleted after each run, so every run
//            (and every later scenario) sees the seeded 10,000 posts
//   data     'search': the scenario reads the 100,000 `articles` of bench/lib/search-data.mjs,
//            inserted (directly in SQL, a few seconds) only when a selected scenario says so
//   request  (ctx) => ({ method, path, body? }) called for every request; ctx.postId() is a
//            random seeded post id, ctx.authorId() a random author id, ctx.int(n) 0..n-1,
//            ctx.posts the number of seeded posts.
//            A body is an object; it is sent as JSON.
//   as       'owner' or 'scopedAll' to send the requests as a user whose role reaches posts
//            only through a row filter (bench/lib/auth.mjs); by default they are sent as root.
//            Every request carries a bearer token either way.
//   target   may be left out: the scenario is context (shown without a target).
//
// The baseline (bench/baseline/server.mjs) must serve the same URL with the same answer: a
// new scenario usually needs a route there too. Before measuring, the bench sends one request
// of each scenario to both servers and fails when the answers differ (reads) or their keys do.

import { decodeCursor, encodeCursor, queryDigest } from '../dist/plan/cursor.js';
import { OWNER_USER_ID } from './lib/auth.mjs';
import { SEARCH_WORDS } from './lib/search-data.mjs';

// Cursors are signed; the bench fixes the key (inherited by both servers) so a scenario can
// name the cursor of a deep row without walking to it, and the baseline can sign the same.
export const BENCH_CURSOR_SECRET = 'corral-bench-cursor-secret';
process.env.CORRAL_CURSOR_SECRET ??= BENCH_CURSOR_SECRET;

const POST_CURSOR_DIGEST = () => queryDigest({ collection: JSON.stringify(['posts', null, null]), order: [{ field: { name: 'id' }, desc: false }], filter: undefined, keys: undefined });

/** The cursor Corral hands out after post `id` in `posts:list?cursor=` (key order, no filter). @param {number} id */
export function postCursor(id) {
  return encodeCursor(Buffer.from(String(process.env.CORRAL_CURSOR_SECRET), 'utf8'), POST_CURSOR_DIGEST(), [id]);
}

/** The post id a `postCursor` (Corral's or the baseline's) holds: cursors are encrypted, each with its own nonce. @param {string} cursor */
export function postCursorId(cursor) {
  return decodeCursor(Buffer.from(String(process.env.CORRAL_CURSOR_SECRET), 'utf8'), POST_CURSOR_DIGEST(), cursor, 1)[0];
}

const INCLUDES = encodeURIComponent(JSON.stringify({ title: { $includes: 'ost 99' } }));
const DEEP_CURSOR = encodeURIComponent(postCursor(9000));
const QUERY = {
  dimensions: [{ field: 'status' }],
  measures: [{ aggregation: 'count', alias: 'n' }, { field: 'views', aggregation: 'avg', alias: 'avgViews' }, { field: 'views', aggregation: 'max', alias: 'maxViews' }],
};

const OWNER_FILTER = encodeURIComponent(JSON.stringify({ ownerId: OWNER_USER_ID }));
const FILTER = encodeURIComponent(JSON.stringify({ views: { $gt: 500 }, status: 'published' }));

/**
 * Scenarios whose one request costs a millisecond or more answer 50 connections in bursts, and
 * the edge of the measured window then cuts a burst anywhere: with 8 connections per server the
 * per-round spread of their CPU ratio was about three times smaller (docs/performance.md).
 */
const SLOW_CONNECTIONS = 8;

/** @type {import('./lib/types.mjs').Scenario[]} */
export const SCENARIOS = [
  { name: 'get', target: 1.25, request: (ctx) => ({ method: 'GET', path: `/api/posts:get/${ctx.postId()}` }) },
  { name: 'list', target: 1.35, request: () => ({ method: 'GET', path: '/api/posts:list?pageSize=20&sort=-id' }) },
  // Context, no target: `get` and `list` asking for brotli or gzip (issue 27). The one-record
  // answer is below the compression threshold; the 13 KB page is compressed (once: the same
  // page again comes from the cache of compressed answers). Compare with get and list.
  { name: 'get-br', acceptEncoding: 'br, gzip', request: (ctx) => ({ method: 'GET', path: `/api/posts:get/${ctx.postId()}` }) },
  { name: 'list-br', acceptEncoding: 'br, gzip', request: () => ({ method: 'GET', path: '/api/posts:list?pageSize=20&sort=-id' }) },
  // As a user whose role sees posts of its own `ownerId` (1,000 of 10,000): the permission
  // check with a `{{$user.id}}` binding, and a page and count that use the ownerId index.
  { name: 'list-scoped', target: 1.35, as: 'owner', request: () => ({ method: 'GET', path: '/api/posts:list?pageSize=20&sort=-id' }) },
  // Root asking for the very rows list-scoped gets (the owner's 1,000 posts, page and count):
  // the same SQL, so list-scoped ÷ list-owner is what the permission check costs (issue 10).
  { name: 'list-owner', target: 1.35, request: () => ({ method: 'GET', path: `/api/posts:list?filter=${OWNER_FILTER}&pageSize=20&sort=-id` }) },
  // Context, no target: a role filter every post matches (`id > 0`); SQLite's count(*) under
  // any WHERE visits all 10,000 rows, where the root's unfiltered count reads the b-tree.
  { name: 'list-scoped-all', as: 'scopedAll', request: () => ({ method: 'GET', path: '/api/posts:list?pageSize=20&sort=-id' }) },
  { name: 'filter', target: 1.35, connections: SLOW_CONNECTIONS, request: () => ({ method: 'GET', path: `/api/posts:list?filter=${FILTER}&pageSize=20` }) },
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
  { name: 'includes', target: 1.35, connections: SLOW_CONNECTIONS, request: () => ({ method: 'GET', path: `/api/posts:list?filter=${INCLUDES}&pageSize=20` }) },
  { name: 'cursor1', target: 1.35, request: () => ({ method: 'GET', path: '/api/posts:list?pageSize=20&cursor=' }) },
  // The cursor of row 9,000 of 10,000: should run within 15% of cursor1 (no OFFSET).
  { name: 'cursor9000', target: 1.35, request: () => ({ method: 'GET', path: `/api/posts:list?pageSize=20&cursor=${DEEP_CURSOR}` }) },
  // page=450 is the OFFSET equivalent of cursor9000, allowed to be slower.
  { name: 'page450', target: 1.35, connections: SLOW_CONNECTIONS, request: () => ({ method: 'GET', path: '/api/posts:list?pageSize=20&page=450' }) },
  { name: 'query', target: 1.35, connections: SLOW_CONNECTIONS, request: () => ({ method: 'POST', path: '/api/posts:query', body: QUERY }) },
  // `$search` of two distinct common words (each in about a sixth of the rows) over 100,000
  // articles (bench/lib/search-data.mjs): the page and its count. Tens of milliseconds each,
  // so few connections and longer runs, as the scale scenarios (no backlog between runs).
  { name: 'search', target: 1.35, data: 'search', connections: 2, seconds: 6, request: (ctx) => ({ method: 'GET', path: `/api/articles:list?pageSize=20&filter=${searchFilter(ctx)}` }) },
];

/** Two distinct words of SEARCH_WORDS, drawn from `ctx`. @param {import('./lib/types.mjs').RequestContext} ctx */
function searchFilter(ctx) {
  const first = ctx.int(SEARCH_WORDS.length);
  const second = (first + 1 + ctx.int(SEARCH_WORDS.length - 1)) % SEARCH_WORDS.length;
  return encodeURIComponent(JSON.stringify({ $search: `${SEARCH_WORDS[first]} ${SEARCH_WORDS[second]}` }));
}

/**
 * `--scale`: what grows with the table, run on the 10,000 seeded posts and on 1,000,000 posts
 * inserted directly in SQL: a key lookup, a filtered page (with its exact count), a page 80%
 * deep by offset, and a count of every row.
 */
// Few connections: a slow question still in flight when a run ends loads the next run. Longer
// runs: at a million rows a count or a deep page takes a good part of a second.
const SCALE_CONNECTIONS = 2;
const SCALE_SECONDS = 6;
/** @type {import('./lib/types.mjs').Scenario[]} */
export const SCALE_SCENARIOS = [
  { name: 'get', target: 1.25, connections: SCALE_CONNECTIONS, seconds: SCALE_SECONDS, request: (ctx) => ({ method: 'GET', path: `/api/posts:get/${ctx.postId()}` }) },
  { name: 'filter', target: 1.35, connections: SCALE_CONNECTIONS, seconds: SCALE_SECONDS, request: () => ({ method: 'GET', path: `/api/posts:list?filter=${FILTER}&pageSize=20` }) },
  { name: 'deep', target: 1.35, connections: SCALE_CONNECTIONS, seconds: SCALE_SECONDS, request: (ctx) => ({ method: 'GET', path: `/api/posts:list?pageSize=20&sort=id&page=${Math.floor((ctx.posts * 0.8) / 20)}` }) },
  { name: 'count', target: 1.35, connections: SCALE_CONNECTIONS, seconds: SCALE_SECONDS, request: () => ({ method: 'GET', path: '/api/posts:count' }) },
];

/**
 * `--large`: the questions of issue 28 on a table of 1,000,000 posts (bench/lib/large.mjs),
 * each measured on Corral and, where `baseline` is true, on the baseline after it (the answers'
 * rows compared first). `question` is what the table shows. A question Corral does not answer
 * with 2xx (a parameter it does not know yet, a page it refuses) is reported with its status
 * and error code instead of being measured. `stall`: the question is measured while `stall`
 * loads the same server (heavy requests in flight), Corral only.
 */
const LARGE_CONNECTIONS = 2;
const LIST_PAGE = '/api/posts:list?pageSize=20&sort=-id';
/** The deep page of the table (row 800,000 of 1,000,000), and the row of its cursor page (199,980): in proportion on a smaller table. */
const LARGE_PAGE = 40_000;
/** @param {number} posts */
const largePage = (posts) => Math.max(1, Math.floor((posts * LARGE_PAGE) / 1_000_000));
/** @param {number} posts */
const largeCursorRow = (posts) => Math.max(1, Math.floor((posts * 199_980) / 1_000_000));
const HEAVY = encodeURIComponent(JSON.stringify({ title: { $includes: 'ost 99' } }));
/** @type {import('./lib/types.mjs').Scenario[]} */
const LARGE_QUESTIONS = [
  { name: 'list', question: 'list page 1 with count', baseline: true, request: () => ({ method: 'GET', path: LIST_PAGE }) },
  { name: 'filter', question: '`views>500 & status=published` with count (index on status, views)', baseline: true, request: () => ({ method: 'GET', path: `/api/posts:list?filter=${FILTER}&pageSize=20` }) },
  { name: 'count-estimated', question: '`count=estimated`', request: () => ({ method: 'GET', path: '/api/posts:count?count=estimated' }) },
  { name: 'list-estimated', question: 'list page 1 with `count=estimated`', request: () => ({ method: 'GET', path: `${LIST_PAGE}&count=estimated` }) },
  { name: 'deep', question: '`page=40000` with count', baseline: true, request: (ctx) => ({ method: 'GET', path: `/api/posts:list?pageSize=20&sort=id&page=${largePage(ctx.posts)}` }) },
  { name: 'count', question: '`count`', baseline: true, request: () => ({ method: 'GET', path: '/api/posts:count' }) },
  { name: 'q', question: '`q=post` (a word in every row)', request: () => ({ method: 'GET', path: '/api/posts:list?pageSize=20&q=post' }) },
  { name: 'cursor', question: 'cursor page after row 199,980', baseline: true, request: (ctx) => ({ method: 'GET', path: `/api/posts:list?pageSize=20&cursor=${encodeURIComponent(postCursor(largeCursorRow(ctx.posts)))}` }) },
  {
    name: 'stall-healthz',
    question: '`/healthz` while two heavy filters run',
    stall: { name: 'heavy', connections: 2, request: () => ({ method: 'GET', path: `/api/posts:list?filter=${HEAVY}&pageSize=20` }) },
    connections: 1,
    request: () => ({ method: 'GET', path: '/healthz' }),
  },
  {
    name: 'stall-get',
    question: 'a get while two heavy filters run',
    stall: { name: 'heavy', connections: 2, request: () => ({ method: 'GET', path: `/api/posts:list?filter=${HEAVY}&pageSize=20` }) },
    connections: 1,
    request: (ctx) => ({ method: 'GET', path: `/api/posts:get/${ctx.postId()}` }),
  },
];
export const LARGE_SCENARIOS = LARGE_QUESTIONS.map((scenario) => ({ connections: LARGE_CONNECTIONS, ...scenario }));
