// The baseline: the bench's scenarios served by a minimal Fastify server with hand-written,
// prepared SQL on the tables Corral created. No schema, no filter language, no validation
// beyond what the routes need: the practical upper bound for a Node service on that database.
// Same URLs and response shapes as Corral, same SQLite pragmas, same PostgreSQL pool size.
//
// env: PORT, HOST, DATABASE_URL (sqlite:<file> | postgres://…), POOL_SIZE (PostgreSQL, default 10),
//      BASELINE_EVENTS=1: the context variant, whose create and update also record a change event
//      in the write's transaction (see EVENTS_TABLE below and bench/README.md)
import Fastify from 'fastify';
import { createHmac, timingSafeEqual } from 'node:crypto';
// The very list Corral applies, so the two servers run SQLite the same way.
import { SQLITE_PRAGMAS } from '../../dist/db/database.js';
import { OWNER_USER_ID, SCOPED_ALL_USER_ID } from '../lib/auth.mjs';
import { postCursor, postCursorId } from '../scenarios.mjs';
import { registerSearchRoute } from './search-route.mjs';

const url = process.env.DATABASE_URL ?? '';
const poolSize = Number(process.env.POOL_SIZE ?? 10);
const events = process.env.BASELINE_EVENTS === '1';

/**
 * The context variant (BASELINE_EVENTS=1) records one event per written row, as Corral must
 * (API.md section 11), the simplest correct way: in the write's own transaction, into a table
 * of the bench's own with Corral's event columns (id, collection, action, key as JSON text,
 * data as the JSON text of the written row, at in ms). Nothing reads it: no feed, no webhooks.
 */
const EVENTS_TABLE = 'bench_events';

/** Each store answers the same few questions with prepared statements. */
async function openSqlite(file) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  for (const pragma of SQLITE_PRAGMAS) db.pragma(pragma);
  const columns = 'id, createdAt, updatedAt, title, body, views, status, authorId, ownerId';
  const statements = {
    get: db.prepare(`select ${columns} from posts where id = ?`),
    pageAsc: db.prepare(`select ${columns} from posts order by id asc limit ? offset ?`),
    pageDesc: db.prepare(`select ${columns} from posts order by id desc limit ? offset ?`),
    count: db.prepare('select count(*) as n from posts').pluck(),
    ownerPageDesc: db.prepare(`select ${columns} from posts where ownerId = ? order by id desc limit ? offset ?`),
    ownerCount: db.prepare('select count(*) as n from posts where ownerId = ?').pluck(),
    afterPageDesc: db.prepare(`select ${columns} from posts where id > ? order by id desc limit ? offset ?`),
    afterCount: db.prepare('select count(*) as n from posts where id > ?').pluck(),
    filterPage: db.prepare(`select ${columns} from posts where views > ? and status = ? order by id asc limit ? offset ?`),
    filterCount: db.prepare('select count(*) as n from posts where views > ? and status = ?').pluck(),
    insert: db.prepare(
      `insert into posts (createdAt, updatedAt, title, body, views, status, authorId) values (?, ?, ?, ?, ?, ?, ?) returning ${columns}`,
    ),
    update: db.prepare(`update posts set updatedAt = ?, title = ?, views = ? where id = ? returning ${columns}`),
    comments: db.prepare('select id, createdAt, updatedAt, body, postId from comments where postId = ? order by id asc limit ? offset ?'),
    commentCount: db.prepare('select count(*) as n from comments where postId = ?').pluck(),
    includesPage: db.prepare(`select ${columns} from posts where title like ? escape '\\' order by id asc limit ? offset ?`),
    includesCount: db.prepare(`select count(*) as n from posts where title like ? escape '\\'`).pluck(),
    after: db.prepare(`select ${columns} from posts where id > ? order by id asc limit ?`),
    byStatus: db.prepare('select status, count(*) as n, avg(cast(views as real)) as avgViews, max(views) as maxViews from posts group by status order by status is null, status'),
  };
  // `.all()`, not `.get()`: a write statement that is reset before it has run to its end (as
  // `.get()` does once it has the returned row) commits without calling SQLite's WAL hook, so
  // the automatic checkpoint never runs and the log grows without bound (32 MB in a 2-second
  // run); a server must keep its log checkpointed, as Corral does.
  let insert = (now, p) => statements.insert.all(now, now, p.title, p.body, p.views, p.status, p.authorId)[0];
  let update = (id, now, p) => statements.update.all(now, p.title, p.views, id)[0];
  if (events) {
    // `integer primary key`: the rowid, one b-tree per event, as Corral's outbox on SQLite.
    db.exec(`create table if not exists ${EVENTS_TABLE} (id integer primary key, collection text not null, action text not null, key text not null, data text not null, at integer not null)`);
    const event = db.prepare(`insert into ${EVENTS_TABLE} (collection, action, key, data, at) values ('posts', ?, ?, ?, ?)`);
    const record = (action, row) => {
      if (row !== undefined) event.run(action, JSON.stringify(row.id), JSON.stringify(row), Date.now());
      return row;
    };
    // better-sqlite3's transaction: BEGIN, the write, its event, COMMIT (ROLLBACK on a throw).
    const plainInsert = insert;
    const plainUpdate = update;
    insert = db.transaction((now, p) => record('create', plainInsert(now, p)));
    update = db.transaction((id, now, p) => record('update', plainUpdate(id, now, p)));
  }
  return {
    get: async (id) => statements.get.get(id),
    page: async (desc, limit, offset) => (desc ? statements.pageDesc : statements.pageAsc).all(limit, offset),
    count: async () => statements.count.get(),
    ownerPage: async (ownerId, limit, offset) => statements.ownerPageDesc.all(ownerId, limit, offset),
    ownerCount: async (ownerId) => statements.ownerCount.get(ownerId),
    afterPage: async (id, limit, offset) => statements.afterPageDesc.all(id, limit, offset),
    afterCount: async (id) => statements.afterCount.get(id),
    filterPage: async (views, status, limit, offset) => statements.filterPage.all(views, status, limit, offset),
    filterCount: async (views, status) => statements.filterCount.get(views, status),
    insert: async (now, p) => insert(now, p),
    update: async (id, now, p) => update(id, now, p),
    comments: async (postId, limit, offset) => statements.comments.all(postId, limit, offset),
    commentCount: async (postId) => statements.commentCount.get(postId),
    includesPage: async (pattern, limit, offset) => statements.includesPage.all(pattern, limit, offset),
    includesCount: async (pattern) => statements.includesCount.get(pattern),
    after: async (id, limit) => statements.after.all(id, limit),
    byStatus: async () => statements.byStatus.all(),
    search: { kind: 'sqlite', db },
    close: async () => db.close(),
  };
}

async function openPostgres(connectionString) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString, max: poolSize });
  pool.on('error', () => undefined);
  const columns = 'id, "createdAt", "updatedAt", title, body, views, status, "authorId", "ownerId"';
  // Named queries are parsed and planned once per connection, then only bound and executed.
  const q = async (name, text, values) => (await pool.query({ name, text, values })).rows;
  const insertSql = `insert into posts ("createdAt", "updatedAt", title, body, views, status, "authorId") values ($1, $1, $2, $3, $4, $5, $6) returning ${columns}`;
  const updateSql = `update posts set "updatedAt" = $1, title = $2, views = $3 where id = $4 returning ${columns}`;
  // The context variant: one writable CTE, so the write and its event are one autocommitted
  // statement (atomic: both or neither) and one round trip, as Corral's own flat writes
  // (src/changes/fused-outbox.ts); BEGIN, write, event, COMMIT would be four round trips that
  // Corral does not pay. The event's JSON is built by PostgreSQL (row_to_json of the written row).
  const withEvent = (write, action, at) =>
    `with w as (${write}), e as (insert into ${EVENTS_TABLE} (collection, action, key, data, at) select 'posts', '${action}', to_json(w.id)::text, row_to_json(w)::text, cast(${at} as bigint) from w) select * from w`;
  if (events) {
    await pool.query(
      `create table if not exists ${EVENTS_TABLE} (id bigserial primary key, collection varchar(255) not null, action varchar(16) not null, key varchar(512) not null, data text not null, at bigint not null)`,
    );
  }
  return {
    get: async (id) => (await q('get', `select ${columns} from posts where id = $1`, [id]))[0],
    page: async (desc, limit, offset) =>
      desc
        ? q('pageDesc', `select ${columns} from posts order by id desc limit $1 offset $2`, [limit, offset])
        : q('pageAsc', `select ${columns} from posts order by id asc limit $1 offset $2`, [limit, offset]),
    count: async () => (await q('count', 'select count(*)::int as n from posts', []))[0].n,
    ownerPage: async (ownerId, limit, offset) => q('ownerPageDesc', `select ${columns} from posts where "ownerId" = $1 order by id desc limit $2 offset $3`, [ownerId, limit, offset]),
    ownerCount: async (ownerId) => (await q('ownerCount', 'select count(*)::int as n from posts where "ownerId" = $1', [ownerId]))[0].n,
    afterPage: async (id, limit, offset) => q('afterPageDesc', `select ${columns} from posts where id > $1 order by id desc limit $2 offset $3`, [id, limit, offset]),
    afterCount: async (id) => (await q('afterCount', 'select count(*)::int as n from posts where id > $1', [id]))[0].n,
    filterPage: async (views, status, limit, offset) =>
      q('filterPage', `select ${columns} from posts where views > $1 and status = $2 order by id asc limit $3 offset $4`, [views, status, limit, offset]),
    filterCount: async (views, status) =>
      (await q('filterCount', 'select count(*)::int as n from posts where views > $1 and status = $2', [views, status]))[0].n,
    insert: async (now, p) =>
      events
        ? (await q('insertEvent', withEvent(insertSql, 'create', '$7'), [now, p.title, p.body, p.views, p.status, p.authorId, Date.now()]))[0]
        : (await q('insert', insertSql, [now, p.title, p.body, p.views, p.status, p.authorId]))[0],
    update: async (id, now, p) =>
      events ? (await q('updateEvent', withEvent(updateSql, 'update', '$5'), [now, p.title, p.views, id, Date.now()]))[0] : (await q('update', updateSql, [now, p.title, p.views, id]))[0],
    comments: async (postId, limit, offset) =>
      q('comments', 'select id, "createdAt", "updatedAt", body, "postId" from comments where "postId" = $1 order by id asc limit $2 offset $3', [postId, limit, offset]),
    commentCount: async (postId) => (await q('commentCount', 'select count(*)::int as n from comments where "postId" = $1', [postId]))[0].n,
    includesPage: async (pattern, limit, offset) =>
      q('includesPage', `select ${columns} from posts where title ilike $1 order by id asc limit $2 offset $3`, [pattern, limit, offset]),
    includesCount: async (pattern) => (await q('includesCount', 'select count(*)::int as n from posts where title ilike $1', [pattern]))[0].n,
    after: async (id, limit) => q('after', `select ${columns} from posts where id > $1 order by id asc limit $2`, [id, limit]),
    byStatus: async () =>
      (await q('byStatus', 'select status, count(*)::int as n, avg(views::double precision) as "avgViews", max(views) as "maxViews" from posts group by status order by status asc nulls last', [])),
    search: { kind: 'postgres', query: q },
    close: () => pool.end(),
  };
}

const store = url.startsWith('sqlite:')
  ? await openSqlite(url.slice('sqlite:'.length))
  : /^postgres(ql)?:/.test(url)
    ? await openPostgres(url)
    : (() => {
        throw new Error(`baseline: unsupported DATABASE_URL ${url}`);
      })();

const app = Fastify({ logger: false });

// Every /api route needs the same kind of bearer token Corral issues: an HS256 JWT signed with
// the same secret. The simplest correct check: header says HS256, the HMAC matches (compared in
// constant time), the payload has not expired. No library, no cache.
const secret = process.env.AUTH_SECRET ?? '';
const HS256_HEADER = /^\{"alg":"HS256"(,"typ":"JWT")?\}$/;
/** The claims of a valid token, else undefined. */
function validToken(authorization) {
  const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
  if (token === undefined) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header, payload, signature] = parts;
  if (!HS256_HEADER.test(Buffer.from(header, 'base64url').toString())) return undefined;
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let claims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  } catch {
    return undefined; // not JSON: not a token
  }
  return typeof claims?.exp === 'number' && claims.exp * 1000 > Date.now() ? claims : undefined;
}
app.decorateRequest('userId', 0);
app.addHook('onRequest', async (request, reply) => {
  if (!request.url.startsWith('/api/')) return;
  const claims = validToken(request.headers.authorization);
  if (claims === undefined) {
    return reply.code(401).send({ errors: [{ code: 'AUTH_INVALID_TOKEN', message: 'The token is invalid or expired' }] });
  }
  request.userId = Number(claims.sub);
});

const notFound = (reply) => reply.code(404).send({ errors: [{ code: 'NOT_FOUND', message: 'not found' }] });
const badRequest = (reply, message) => reply.code(400).send({ errors: [{ code: 'PARAM_INVALID', message }] });

function paging(query) {
  const page = query.page === undefined ? 1 : Number(query.page);
  const pageSize = query.pageSize === undefined ? 20 : Number(query.pageSize);
  if (!Number.isInteger(page) || page < 1 || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000) return undefined;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** The list envelope; like Corral, a page that is neither full nor empty already tells the count. */
async function listReply(rows, { page, pageSize, offset }, count) {
  const total = rows.length > 0 && rows.length < pageSize ? offset + rows.length : await count();
  return { data: rows, meta: { count: total, page, pageSize, totalPage: Math.ceil(total / pageSize) } };
}

function postValues(body) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  return {
    title: body.title ?? null,
    body: body.body ?? null,
    views: body.views ?? null,
    status: body.status ?? null,
    authorId: body.authorId ?? null,
  };
}

app.get('/readyz', async () => ({ data: { status: 'ok' } }));

app.get('/api/posts::get/:id', async (request, reply) => {
  const row = await store.get(Number(request.params.id));
  return row === undefined ? notFound(reply) : { data: row };
});

app.get('/api/posts::list', async (request, reply) => {
  const paged = paging(request.query);
  if (paged === undefined) return badRequest(reply, 'bad page or pageSize');
  const { filter, sort } = request.query;
  // The bench's scoped users (bench/lib/auth.mjs), known by the token's user id, with the same
  // WHERE as their roles give Corral: the owner's posts, or every post with id > 0.
  if (request.userId === OWNER_USER_ID || request.userId === SCOPED_ALL_USER_ID) {
    if (sort !== '-id' || filter !== undefined || request.query.cursor !== undefined) return badRequest(reply, 'unsupported list for a scoped user');
    if (request.userId === OWNER_USER_ID) {
      const rows = await store.ownerPage(OWNER_USER_ID, paged.pageSize, paged.offset);
      return listReply(rows, paged, () => store.ownerCount(OWNER_USER_ID));
    }
    const rows = await store.afterPage(0, paged.pageSize, paged.offset);
    return listReply(rows, paged, () => store.afterCount(0));
  }
  if (filter !== undefined) {
    // The one filter the bench sends: {"views":{"$gt":n},"status":s}. A hand-written route
    // knows its query; it takes the two values, nothing more.
    let parsed;
    try {
      parsed = JSON.parse(filter);
    } catch {
      return badRequest(reply, 'filter is not JSON');
    }
    const includes = parsed?.title?.$includes;
    if (typeof includes === 'string') {
      const pattern = `%${includes.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const rows = await store.includesPage(pattern, paged.pageSize, paged.offset);
      return listReply(rows, paged, () => store.includesCount(pattern));
    }
    // Root asking for the owner's posts (list-owner): the same WHERE as the owner's role.
    if (typeof parsed?.ownerId === 'number' && Object.keys(parsed).length === 1) {
      if (sort !== '-id') return badRequest(reply, 'unsupported sort');
      const rows = await store.ownerPage(parsed.ownerId, paged.pageSize, paged.offset);
      return listReply(rows, paged, () => store.ownerCount(parsed.ownerId));
    }
    const views = parsed?.views?.$gt;
    const status = parsed?.status;
    if (typeof views !== 'number' || typeof status !== 'string') return badRequest(reply, 'unsupported filter');
    const rows = await store.filterPage(views, status, paged.pageSize, paged.offset);
    return listReply(rows, paged, () => store.filterCount(views, status));
  }
  if (request.query.cursor !== undefined) {
    // Key order only: the cursor holds [last id], encrypted and authenticated (AES-256-GCM),
    // so the baseline opens it with Corral's own function, the simplest correct way.
    const cursor = request.query.cursor;
    const after = cursor === '' ? 0 : postCursorId(cursor);
    const rows = await store.after(after, paged.pageSize + 1);
    const hasNext = rows.length > paged.pageSize;
    const data = rows.slice(0, paged.pageSize);
    return { data, meta: { pageSize: paged.pageSize, hasNext, nextCursor: hasNext ? postCursor(data[data.length - 1].id) : null } };
  }
  if (sort !== undefined && sort !== '-id' && sort !== 'id') return badRequest(reply, 'unsupported sort');
  const rows = await store.page(sort === '-id', paged.pageSize, paged.offset);
  return listReply(rows, paged, () => store.count());
});

app.get('/api/posts::count', async () => ({ data: await store.count() }));

app.post('/api/posts::create', async (request, reply) => {
  const values = postValues(request.body);
  if (values === undefined) return badRequest(reply, 'body must be an object');
  const row = await store.insert(new Date().toISOString(), values);
  return reply.code(201).send({ data: row });
});

app.post('/api/posts::update/:id', async (request, reply) => {
  const values = postValues(request.body);
  if (values === undefined) return badRequest(reply, 'body must be an object');
  const row = await store.update(Number(request.params.id), new Date().toISOString(), values);
  return row === undefined ? notFound(reply) : { data: row };
});

app.get('/api/posts/:id/comments::list', async (request, reply) => {
  const paged = paging(request.query);
  if (paged === undefined) return badRequest(reply, 'bad page or pageSize');
  const postId = Number(request.params.id);
  const rows = await store.comments(postId, paged.pageSize, paged.offset);
  return listReply(rows, paged, () => store.commentCount(postId));
});

app.post('/api/posts::query', async () => ({
  data: (await store.byStatus()).map((row) => ({ status: row.status, n: Number(row.n), avgViews: Number(row.avgViews), maxViews: Number(row.maxViews) })),
}));

registerSearchRoute(app, store.search, { paging, listReply, badRequest });

const shutdown = () => {
  app.close().then(
    () => store.close().then(() => process.exit(0)),
    () => process.exit(1),
  );
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

await app.listen({ port: Number(process.env.PORT ?? 13100), host: process.env.HOST ?? '127.0.0.1' });
