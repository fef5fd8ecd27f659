import { ApiError } from '../errors/api-error.js';
import { bindReadShape } from '../plan/bind-read-shape.js';
import { bindWriteValues } from '../plan/bind-write-values.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { toItems, writtenItems } from '../store/read-rows.js';
import { requireRecordTag } from '../store/record-tag.js';
import { updateMatched, updateReturning } from '../store/update-rows.js';
import { type ActionContext, type ActionResult } from './action-context.js';
import { bodyOrEmpty, nestedOptions, writeFilter } from './create-action.js';
import { bindTarget, requireTarget } from './target-filter.js';

/**
 * update: one key → the updated object (404 when missing); a key array or a filter → an array.
 * The matching keys are read first, so exactly those rows are updated and returned. Nested
 * association values are written in the same transaction.
 */
export async function updateAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE, scopeIsTarget = false): Promise<ActionResult> {
  const { params } = ctx.request;
  const target = bindTarget(ctx.request, collection, scope, scopeIsTarget);
  requireTarget(target);
  const shape = bindReadShape(collection, undefined, undefined, params.appends);
  const now = new Date();
  const bound = await bindWriteValues(collection, bodyOrEmpty(ctx.request.body), 'update', now, writeFilter(params));
  const options = nestedOptions(params, now);
  const { ifMatch } = params;
  if (ifMatch !== undefined && !target.single) throw new ApiError('PRECONDITION_NOT_SINGLE');
  const oneKey = target.single && target.keys !== undefined && scope === TRUE_NODE;
  const plan = ctx.store.plan(collection, { action: 'update', oneKey, associations: bound.associations.size > 0, values: bound.values.size > 0, ifMatch: ifMatch !== undefined });
  if (plan.oneStatement) {
    // One key, flat values: a single UPDATE … RETURNING, atomic by itself.
    const rows = await ctx.store.write(ctx, collection, (unit) => updateReturning(unit, collection, bound, target.where), plan);
    if (rows[0] === undefined) throw new ApiError('RECORD_NOT_FOUND', `no ${collection.name} record matches`);
    const written = writtenItems(() => ctx.store.read(ctx), ctx.grants.open, collection, shape, rows);
    const [item] = Array.isArray(written) ? written : await written;
    return { kind: 'item', item: item! };
  }
  const rows = await ctx.store.write(ctx, collection, async (unit) => {
    if (ifMatch !== undefined) await requireRecordTag(unit, collection, target.where, ifMatch);
    return updateMatched(unit, collection, bound, target.where, options);
  });
  const data = await toItems(ctx.store.read(ctx), collection, shape, rows, true);
  if (target.single) {
    if (data[0] === undefined) throw new ApiError('RECORD_NOT_FOUND', `no ${collection.name} record matches`);
    return { kind: 'item', item: data[0] };
  }
  return { kind: 'items', items: data };
}
