import { toEvent, type ChangeEvent, type ChangeFeed } from '../changes/change-feed.js';
import { openEventStream } from '../changes/event-stream.js';
import { STREAM_TICKET_TTL_MS } from '../auth/stream-ticket.js';
import { ApiError } from '../errors/api-error.js';
import { bindFilter } from '../plan/bind-filter.js';
import { bindReadShape } from '../plan/bind-read-shape.js';
import { evaluateFilter } from '../plan/evaluate-filter.js';
import type { FilterNode } from '../plan/filter-node.js';
import type { Collection, Item } from '../schema/collection.js';
import type { ActionContext, ActionResult } from './action-context.js';

function feedOf(ctx: ActionContext): ChangeFeed {
  if (ctx.changes === undefined) throw new ApiError('ACTION_NOT_FOUND', 'the change feed is not running on this node');
  return ctx.changes;
}

/** Whether a filter tests only the collection's own fields (the feed evaluates it on each event's row). */
function rowOnly(node: FilterNode): boolean {
  switch (node.kind) {
    case 'exists':
    case 'linkedThrough':
      return false;
    case 'and':
    case 'or':
      return node.items.every(rowOnly);
    case 'not':
      return rowOnly(node.item);
    default:
      return true;
  }
}

/** What a caller's view of a collection's events is built from. */
interface EventView {
  /** The event as this caller sees it, or undefined when it is not shown. */
  readonly accept: (event: ChangeEvent) => ChangeEvent | undefined;
  /** Set when `accept` depends on the request's parameters only (no scope): a key for sharing renders. */
  readonly key?: string;
}

/**
 * How one caller sees the events of one collection, through the same seam as every read (the
 * store's ScopeProvider): only rows matching its scope's `where` (evaluated on the event's
 * row), only the fields of its scope's `fields` (the key stays in `key`), then `filter` (on
 * what it may read: a hidden field counts as absent) and `fields` narrowing `data` further.
 */
function eventView(ctx: ActionContext, collection: Collection, filter?: FilterNode, fields?: readonly string[]): EventView {
  // The store's view scope: DENIED for a root-only collection (webhooks) unless the caller is root.
  const scope = ctx.store.read(ctx).viewScope(collection);
  if (filter !== undefined && !rowOnly(filter)) throw new ApiError('FILTER_INVALID', 'a subscribe filter takes fields of the collection itself, not association paths');
  // A scope through associations cannot be decided from the event's row: nothing is shown (fail closed).
  if (scope !== undefined && !rowOnly(scope.where)) return { accept: () => undefined };
  const readable = scope?.fields;
  const shown = fields === undefined ? (readable === undefined ? undefined : [...readable]) : readable === undefined ? fields : fields.filter((name) => readable.has(name));
  const accept = (event: ChangeEvent): ChangeEvent | undefined => {
    const row = event.data as Item;
    if (scope !== undefined && !evaluateFilter(scope.where, row)) return undefined;
    const visible = readable === undefined ? row : narrow(row, readable);
    if (filter !== undefined && !evaluateFilter(filter, visible)) return undefined;
    if (shown === undefined) return event;
    return { ...event, data: narrow(row, shown) };
  };
  if (scope !== undefined) return { accept };
  return { accept, key: JSON.stringify([collection.name, ctx.request.params.filter ?? null, ctx.request.params.timeZone ?? null, fields ?? null]) };
}

function narrow(row: Item, names: Iterable<string>): Item {
  const out: Item = {};
  for (const name of names) if (Object.hasOwn(row, name)) out[name] = row[name]!;
  return out;
}

/**
 * `POST /api/<c>:subscribe`: a one-minute ticket that opens this subscription by
 * `GET /api/<c>:subscribe?ticket=` (same query) without an Authorization header, as a browser's
 * EventSource must (auth/stream-ticket.ts). With authentication off the stream needs none: the
 * answer has the same shape, so the same client code runs, and the ticket is not checked.
 */
function streamTicket(ctx: ActionContext, collection: Collection): { ticket: string; expiresAt: string } {
  const { principal } = ctx.request;
  if (ctx.auth === undefined || principal === undefined) return { ticket: 'none', expiresAt: new Date(Date.now() + STREAM_TICKET_TTL_MS).toISOString() };
  return ctx.auth.authenticator.streamTickets.issue(principal, collection.name, ctx.request.params);
}

/** `GET /api/<c>:subscribe`: the collection's events as Server-Sent Events, from `after` (or now). */
export async function subscribeAction(ctx: ActionContext, collection: Collection): Promise<ActionResult> {
  const feed = feedOf(ctx);
  const { params } = ctx.request;
  const filter = params.filter === undefined ? undefined : bindFilter(params.filter, collection, params.timeZone);
  const fields = params.fields === undefined && params.except === undefined ? undefined : bindReadShape(collection, params.fields, params.except).output.map((field) => field.name);
  const view = eventView(ctx, collection, filter, fields);
  if (ctx.request.method === 'POST') return { kind: 'item', item: streamTicket(ctx, collection) };
  let after: number;
  if (params.after === undefined) after = await feed.lastId();
  else {
    await feed.checkResume(params.after);
    after = params.after;
  }
  return {
    kind: 'events',
    open: (request, response, headers, recheck) =>
      openEventStream(feed, request, response, {
        collection: collection.name,
        after,
        accept: view.accept,
        ...(view.key === undefined ? {} : { view: view.key }),
        // After a change of users, roles or grants: the caller's view as it is now, or the stream ends (revoked).
        ...(recheck === undefined ? {} : { recheck: async () => eventView({ ...ctx, ...(await recheck()) }, collection, filter, fields) }),
        headers,
        log: ctx.log,
      }),
  };
}

/** `GET /api/changes:list?after=&collection=&pageSize=`: events in id order, a page at a time. */
export async function changesListAction(ctx: ActionContext): Promise<ActionResult> {
  const feed = feedOf(ctx);
  const { params } = ctx.request;
  const after = params.after ?? 0;
  if (params.after !== undefined) await feed.checkResume(after);
  let collection: Collection | undefined;
  if (params.collection !== undefined) {
    collection = ctx.snapshot.get(params.collection);
    if (collection === undefined) throw new ApiError('COLLECTION_NOT_FOUND', `collection ${params.collection} does not exist`);
  }
  const rows = await feed.readAfter(after, params.pageSize + 1, collection?.name);
  const hasNext = rows.length > params.pageSize;
  const views = new Map<string, EventView | undefined>();
  const items: ChangeEvent[] = [];
  for (const row of rows.slice(0, params.pageSize)) {
    if (!views.has(row.collection)) {
      const known = ctx.snapshot.get(row.collection);
      views.set(row.collection, known === undefined ? undefined : eventView(ctx, known));
    }
    const view = views.get(row.collection);
    const event = toEvent(row);
    // A collection dropped since: its events are shown only to an unscoped caller.
    const seen = view === undefined ? (ctx.scopes.size === 0 ? event : undefined) : view.accept(event);
    if (seen !== undefined) items.push(seen);
  }
  return { kind: 'page', items, paging: { page: 1, pageSize: params.pageSize, hasNext } };
}

/** The `changes` resource. */
export const changesActions = { list: changesListAction };
