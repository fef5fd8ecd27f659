import { ApiError } from '../errors/api-error.js';
import { bindAppends } from '../plan/bind-appends.js';
import { bindSelection } from '../plan/bind-selection.js';
import { bindSort } from '../plan/bind-sort.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { selectRows } from '../sql/select-rows.js';
import { json, type ActionContext, type ActionResult } from './action-context.js';
import { bindTarget, requireTarget } from './target-filter.js';

export async function getAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE, scopeIsTarget = false): Promise<ActionResult> {
  const { params } = ctx.request;
  const target = bindTarget(ctx.request, collection, scope, scopeIsTarget);
  if (target.keys !== undefined && target.keys.length !== 1) throw new ApiError('KEY_INVALID', 'get takes exactly one key');
  requireTarget(target);
  const select = bindSelection(collection, params.fields, params.except);
  const order = bindSort(collection, params.sort);
  bindAppends(collection, params.appends);
  const [row] = await selectRows(ctx.database.db, ctx.database.dialect, { collection, where: target.where, select, order, limit: 1 });
  if (row === undefined) throw new ApiError('RECORD_NOT_FOUND', `no ${collection.name} record matches`);
  return json({ data: collection.decode(row, select) });
}
