import { bindReadShape } from '../plan/bind-read-shape.js';
import { bindSort } from '../plan/bind-sort.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { countRows, readRows, selectedFields, streamItems, toItems } from '../store/read-rows.js';
import { type ActionContext, type ActionResult } from './action-context.js';
import { bindTarget } from './target-filter.js';

export async function listAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE): Promise<ActionResult> {
  const { params } = ctx.request;
  const unit = ctx.store.read(ctx);
  const { where } = bindTarget(ctx.request, collection, scope);
  const shape = bindReadShape(collection, params.fields, params.except, params.appends);
  const order = bindSort(collection, params.sort);
  const select = selectedFields(shape);

  if (!params.paginate) {
    return { kind: 'stream', stream: streamItems(unit, { collection, where, select, order }, shape) };
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
  const count = rows.length > 0 && rows.length < pageSize ? offset + rows.length : await countRows(unit, collection, where);
  const data = await toItems(unit, collection, shape, rows);
  return { kind: 'page', items: data, paging: { page, pageSize, count } };
}
