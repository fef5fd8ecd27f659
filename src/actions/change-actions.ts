import { toEvent, type ChangeEvent, type ChangeFeed } from '../changes/change-feed.js';
import { openEventStream } from '../changes/event-stream.js';
import { ApiError } from '../errors/api-error.js';
import { bindFilter } from '../plan/bind-filter.js';
import { bindReadShape } from '../plan/bind-read-shape.js';
import { evaluateFilter } from '../plan/evaluate-filter.js';
import { and, type FilterNode } from '../plan/filter-node.js';
import type { Collection, Item } from '../schema/collection.js';
import { scopeWhere } from '../store/scope.js';
import type { ActionContext, ActionResult } from './action-context.js';

function feedOf(ctx: ActionContext): ChangeFeed {
  if (ctx.changes === undefined) throw new ApiError('ACTION_NOT_FOUND', 'the change feed is not running on this node');
  return ctx.changes;
}

/** Filters of the feed are evaluated on each event's row: only the collection's own fields. */
function rowOnly(node: FilterNode): void {
  switch (node.kind) {
    case 'exists':
    case 'linkedThrough':
      throw new ApiError('FILTER_INVALID', 'a subscribe filter takes fields of the collection itself, not association paths');
    case 'and':
    case 'or':
      for (const item of node.items) rowOnly(item);
      return;
    case 'not':
      rowOnly(node.item);
      return;
    default:
      return;
  }
}

/**
 * How one caller sees the events of one collection: the permission guard and the caller's
 * scope first, then `filter` on the row, then `fields` narrowing `data`. Undefined: skipped.
 */
function eventView(ctx: ActionContext, collection: Collection, filter?: FilterNode, fields?: readonly string[]): (event: ChangeEvent) => ChangeEvent | undefined {
  const guard = ctx.eventGuard?.(ctx.request, collection);
  const where = and([scopeWhere(ctx.scopes, collection), filter ?? { kind: 'const', value: true }]);
  rowOnly(where);
  return (event) => {
    const data = guard === undefined ? event.data : guard(event.data as Item);
    if (data === undefined || !evaluateFilter(where, data as Item)) return undefined;
    if (fields === undefined) return data === event.data ? event : { ...event, data };
    const narrowed: Item = {};
    for (const name of fields) if (Object.hasOwn(data, name)) narrowed[name] = (data as Item)[name]!;
    return { ...event, data: narrowed };
  };
}

/** `GET /api/<c>:subscribe`: the collection's events as Server-Sent Events, from `after` (or now). */
export async function subscribeAction(ctx: ActionContext, collection: Collection): Promise<ActionResult> {
  const feed = feedOf(ctx);
  const { params } = ctx.request;
  const filter = params.filter === undefined ? undefined : bindFilter(params.filter, collection, params.timeZone);
  const fields = params.fields === undefined && params.except === undefined ? undefined : bindReadShape(collection, params.fields, params.except).output.map((field) => field.name);
  const accept = eventView(ctx, collection, filter, fields);
  let after: number;
  if (params.after === undefined) after = await feed.lastId();
  else {
    await feed.checkResume(params.after);
    after = params.after;
  }
  return {
    kind: 'events',
    open: (request, response, headers) => openEventStream(feed, request, response, { collection: collection.name, after, accept, headers, log: ctx.log }),
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
  const views = new Map<string, ((event: ChangeEvent) => ChangeEvent | undefined) | undefined>();
  const items: ChangeEvent[] = [];
  for (const row of rows.slice(0, params.pageSize)) {
    if (!views.has(row.collection)) {
      const known = ctx.snapshot.get(row.collection);
      views.set(row.collection, known === undefined ? undefined : eventView(ctx, known));
    }
    const view = views.get(row.collection);
    const event = toEvent(row);
    const seen = view === undefined ? (ctx.eventGuard === undefined ? event : undefined) : view(event);
    if (seen !== undefined) items.push(seen);
  }
  return { kind: 'page', items, paging: { page: 1, pageSize: params.pageSize, hasNext } };
}

/** The `changes` resource. */
export const changesActions = { list: changesListAction };
