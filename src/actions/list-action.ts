import { bindReadShape } from '../plan/bind-read-shape.js';
import { bindSort } from '../plan/bind-sort.js';
import { and, TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import { bindSearch } from '../plan/bind-filter.js';
import type { Collection } from '../schema/collection.js';
import { readRows, selectedFields, sortValuesOf, streamItems, toItems } from '../store/read-rows.js';
import type { ReadShape } from '../plan/bind-read-shape.js';
import { listCount } from '../store/search-count.js';
import { cursorValues, decodeCursor, encodeCursor, queryDigest, type CursorQuery } from '../plan/cursor.js';
import type { ReadPlan } from '../plan/read-plan.js';
import { type ActionContext, type ActionResult } from './action-context.js';
import { bindTarget } from './target-filter.js';

export async function listAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE): Promise<ActionResult> {
  const { params } = ctx.request;
  const unit = ctx.store.read(ctx);
  const target = bindTarget(ctx.request, collection, scope);
  // `?q=` is `{"$search": q}` ANDed with the filter.
  const where = params.q === undefined ? target.where : and([target.where, bindSearch(collection, params.q)]);
  const shape = bindReadShape(collection, params.fields, params.except, params.appends);
  const order = bindSort(collection, params.sort);
  const select = selectedFields(shape);

  if (params.cursor !== undefined) {
    // Bound to the resource too: a cursor of /posts/1/comments is refused on /posts/2/comments.
    const { path } = ctx.request;
    const resource = [path.collection, path.sourceKey ?? null, path.association ?? null];
    const query = { collection: JSON.stringify(resource), order, filter: params.filter, keys: ctx.request.keys, ...(params.q === undefined ? {} : { search: params.q }) };
    return cursorPage(ctx, { collection, where, select: [...new Set([...select, ...order.filter((t) => t.path === undefined).map((t) => t.field)])], order }, shape, query, params.cursor);
  }

  if (!params.paginate) {
    return { kind: 'stream', stream: await streamItems(unit, () => ctx.store.readSnapshot(ctx), { collection, where, select, order }, shape) };
  }

  const { page, pageSize } = params;
  const offset = (page - 1) * pageSize;
  if (params.simplePaginate) {
    const rows = await readRows(unit, { collection, where, select, order, limit: pageSize + 1, offset });
    const hasNext = rows.length > pageSize;
    const data = await toItems(unit, collection, shape, rows.slice(0, pageSize));
    return { kind: 'page', items: data, paging: { page, pageSize, hasNext } };
  }

  const rows = await readRows(unit, { collection, where, select, order, limit: pageSize, offset });
  // A page that is neither full nor empty already tells the total: no second query.
  const total = rows.length > 0 && rows.length < pageSize ? { count: offset + rows.length, estimated: false } : await listCount(unit, collection, where);
  const data = await toItems(unit, collection, shape, rows);
  return { kind: 'page', items: data, paging: { page, pageSize, count: total.count, ...(total.estimated ? { countEstimated: true as const } : {}) } };
}

/**
 * One keyset page: the rows after the cursor's row (none for ''), one more than the page to
 * learn `hasNext`, and a signed cursor of the page's last row. No OFFSET and no count, so
 * every page costs the same.
 */
async function cursorPage(ctx: ActionContext, plan: ReadPlan, shape: ReadShape, query: CursorQuery, cursor: string): Promise<ActionResult> {
  const { pageSize } = ctx.request.params;
  const secret = await ctx.store.cursorSecret();
  const digest = queryDigest(query);
  const after = cursor === '' ? undefined : cursorValues(plan.order, decodeCursor(secret, digest, cursor, plan.order.length));
  const unit = ctx.store.read(ctx);
  const rows = await readRows(unit, { ...plan, limit: pageSize + 1, selectSortValues: true, ...(after === undefined ? {} : { after }) });
  const hasNext = rows.length > pageSize;
  const page = rows.slice(0, pageSize);
  const last = page[page.length - 1];
  const nextCursor = hasNext && last !== undefined ? encodeCursor(secret, digest, sortValuesOf(unit, plan.order, last)) : null;
  const items = await toItems(unit, plan.collection, shape, page);
  return { kind: 'page', items, paging: { pageSize, hasNext, nextCursor } };
}
