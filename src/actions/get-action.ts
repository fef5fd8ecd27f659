import { ApiError } from '../errors/api-error.js';
import { bindReadShape } from '../plan/bind-read-shape.js';
import { bindSort } from '../plan/bind-sort.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { readRows, selectedFields, toItems } from '../store/read-rows.js';
import { type ActionContext, type ActionResult } from './action-context.js';
import { bindTarget, requireTarget } from './target-filter.js';

export async function getAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE, scopeIsTarget = false): Promise<ActionResult> {
  const { params } = ctx.request;
  const target = bindTarget(ctx.request, collection, scope, scopeIsTarget);
  if (target.keys !== undefined && target.keys.length !== 1) throw new ApiError('KEY_INVALID', 'get takes exactly one key');
  requireTarget(target);
  const shape = bindReadShape(collection, params.fields, params.except, params.appends);
  // One key names at most one row: no order to compute.
  const order = target.keys !== undefined ? [] : bindSort(collection, params.sort);
  const unit = ctx.store.read(ctx);
  const rows = await readRows(unit, { collection, where: target.where, select: selectedFields(shape), order, limit: 1 });
  if (rows.length === 0) throw new ApiError('RECORD_NOT_FOUND', `no ${collection.name} record matches`);
  const [item] = await toItems(unit, collection, shape, rows);
  return { kind: 'item', item: item! };
}
