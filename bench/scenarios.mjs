// The scenarios: one entry each. Every scenario runs against Corral and the baseline in turn,
// on every database, with the same load. To add one, append an entry:
//
//   name     short name shown in the table (and `--only=name`)
//   target   the ratio Corral/baseline Corral aims at (shown, never asserted)
//   writes   true when it adds posts: the rows it adds are deleted after each run, so every run
//            (and every later scenario) sees the seeded 10,000 posts
//   request  (ctx) => ({ method, path, body? }) called for every request; ctx.postId() is a
//            random seeded post id, ctx.authorId() a random author id, ctx.int(n) 0..n-1.
//            A body is an object; it is sent as JSON.
//   as       'scoped' to send the requests as a user whose role reaches posts only through a
//            row filter (bench/lib/auth.mjs); by default they are sent as root. Every request
//            carries a bearer token either way.
//
// The baseline (bench/baseline/server.mjs) must serve the same URL with the same answer: a
// new scenario usually needs a route there too. Before measuring, the bench sends one request
// of each scenario to both servers and fails when the answers differ (reads) or their keys do.

const FILTER = encodeURIComponent(JSON.stringify({ views: { $gt: 500 }, status: 'published' }));

export const SCENARIOS = [
  { name: 'get', target: 0.75, request: (ctx) => ({ method: 'GET', path: `/api/posts:get/${ctx.postId()}` }) },
  { name: 'list', target: 0.7, request: () => ({ method: 'GET', path: '/api/posts:list?pageSize=20&sort=-id' }) },
  { name: 'list-scoped', target: 0.7, as: 'scoped', request: () => ({ method: 'GET', path: '/api/posts:list?pageSize=20&sort=-id' }) },
  { name: 'filter', target: 0.7, request: () => ({ method: 'GET', path: `/api/posts:list?filter=${FILTER}&pageSize=20` }) },
  {
    name: 'create',
    target: 0.7,
    writes: true,
    request: (ctx) => ({
      method: 'POST',
      path: '/api/posts:create',
      body: { title: `new post ${ctx.int(1e6)}`, body: 'created by the bench', views: ctx.int(1000), status: 'draft', authorId: ctx.authorId() },
    }),
  },
  {
    name: 'update',
    target: 0.7,
    request: (ctx) => ({ method: 'POST', path: `/api/posts:update/${ctx.postId()}`, body: { title: `updated ${ctx.int(1e6)}`, views: ctx.int(1000) } }),
  },
  { name: 'assoc', target: 0.7, request: (ctx) => ({ method: 'GET', path: `/api/posts/${ctx.postId()}/comments:list` }) },
];
