import type { FastifyReply } from 'fastify';
import type { ActionResult } from '../actions/action-context.js';
import type { ApiError } from '../errors/api-error.js';
import { entityTag, noneMatch, parseTagCondition } from '../request/entity-tag.js';
import { streamJob, wantsEventStream } from './job-stream.js';

/** The `{data, meta}` envelope's meta of a page. */
export function pageMeta(paging: Extract<ActionResult, { kind: 'page' }>['paging']): Record<string, number | boolean | string | null> {
  if ('nextCursor' in paging) return { pageSize: paging.pageSize, hasNext: paging.hasNext, nextCursor: paging.nextCursor };
  if ('hasNext' in paging) return { page: paging.page, pageSize: paging.pageSize, hasNext: paging.hasNext };
  const meta = { count: paging.count, page: paging.page, pageSize: paging.pageSize, totalPage: Math.ceil(paging.count / paging.pageSize) };
  return paging.estimated === true ? { ...meta, countEstimated: true } : meta;
}

/**
 * The one place a typed result becomes an HTTP answer: status, envelope, Location, stream.
 * Returns the body for Fastify to serialize (or the reply itself once a stream is sent).
 */
export function renderResult(result: ActionResult, reply: FastifyReply, prefix: string, toError: (error: unknown) => ApiError): unknown {
  switch (result.kind) {
    case 'item':
      return tagged(reply, { data: result.item });
    case 'items':
      return tagged(reply, { data: result.items });
    case 'page':
      return tagged(reply, { data: result.items, meta: pageMeta(result.paging) });
    case 'count':
      return { data: result.n };
    case 'created':
      reply.status(201).header('location', `${prefix}/${result.location.map(encodeURIComponent).join('/')}`);
      return { data: result.item };
    case 'createdMany':
      reply.status(201);
      return { data: result.items };
    case 'none':
      return { data: null };
    case 'document':
      return result.body;
    case 'stream':
      return reply.type('application/json; charset=utf-8').send(result.stream);
    case 'file':
      // The filename is a collection name: letters, digits, `_` and `-` only (no quoting needed).
      reply.header('content-disposition', `attachment; filename="${result.filename}"`);
      return reply.type(result.contentType).send(result.stream);
    case 'events':
      // The stream outlives the handler: Fastify lets go of the response.
      reply.hijack();
      result.open(reply.request.raw, reply.raw, headersOf(reply));
      return reply;
    case 'job':
      // With `Accept: text/event-stream`, progress while it runs; otherwise the plain answer at the end.
      if (wantsEventStream(reply.request.headers.accept)) {
        streamJob(result, reply, (done) => dataBody(done), toError, headersOf(reply));
        return reply;
      }
      return result.run(() => undefined).then((done) => renderResult(done, reply, prefix, toError));
  }
}

/** The JSON body of a finished job's result (an item). */
function dataBody(result: ActionResult): unknown {
  return result.kind === 'item' ? { data: result.item } : { data: null };
}

/**
 * A GET (or HEAD) answer of records: serialized here, tagged with the entity tag of its bytes
 * (`ETag`, private and revalidated on every use since it depends on the token), and 304 with
 * no body when If-None-Match names its tag. Other methods' answers are left to Fastify.
 */
function tagged(reply: FastifyReply, body: object): unknown {
  const method = reply.request.method;
  if (method !== 'GET' && method !== 'HEAD') return body;
  const condition = parseTagCondition('If-None-Match', reply.request.headers['if-none-match']);
  // Sent as bytes: the tag is of these, and Node need not encode the text again.
  const bytes = Buffer.from(JSON.stringify(body));
  const tag = entityTag(bytes);
  const vary = reply.getHeader('vary');
  reply.headers({
    etag: tag,
    'cache-control': 'private, no-cache',
    vary: vary === undefined ? 'Authorization, X-Role' : `${String(vary)}, Authorization, X-Role`,
  });
  if (condition !== undefined && !noneMatch(condition, tag)) return reply.status(304).send();
  return reply.type('application/json; charset=utf-8').send(bytes);
}

/** The headers set on the reply so far (x-request-id), for a response written by hand. */
function headersOf(reply: FastifyReply): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) out[name] = typeof value === 'number' ? String(value) : value;
  }
  return out;
}
