import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { ApiError } from '../errors/api-error.js';
import { countRows } from '../store/read-rows.js';
import { type ActionContext, type ActionResult } from './action-context.js';
import { bindTarget } from './target-filter.js';

export async function countAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE): Promise<ActionResult> {
  const { where } = bindTarget(ctx.request, collection, scope);
  const mode = ctx.request.params.count;
  if (mode === undefined || mode === 'exact') return { kind: 'count', n: await countRows(ctx.store.read(ctx), collection, where) };
  if (mode === 'none') throw new ApiError('PARAM_INVALID', 'count must be exact or estimated on a count action', { field: 'count' });
  return { kind: 'count', n: (await ctx.store.counts.total(ctx.store.read(ctx), collection, where, mode)).count };
}
