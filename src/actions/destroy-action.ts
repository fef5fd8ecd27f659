import { ApiError } from '../errors/api-error.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { requireRecordTag } from '../store/record-tag.js';
import { deleteWhere } from '../store/write-rows.js';
import { type ActionContext, type ActionResult } from './action-context.js';
import { bindTarget, requireTarget } from './target-filter.js';

/** destroy: `{data: n}` rows deleted; one named key that does not exist is 404. */
export async function destroyAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE, scopeIsTarget = false): Promise<ActionResult> {
  const target = bindTarget(ctx.request, collection, scope, scopeIsTarget);
  requireTarget(target);
  const { ifMatch } = ctx.request.params;
  if (ifMatch !== undefined && !target.single) throw new ApiError('PRECONDITION_NOT_SINGLE');
  // The store decides from these facts how the write runs (one key of a collection nothing references may be one DELETE).
  const plan = ctx.store.plan(collection, { action: 'destroy', oneKey: target.single, ifMatch: ifMatch !== undefined });
  const deleted = (await ctx.store.write(ctx, collection, async (unit) => {
    // If-Match: the record's tag is checked in the same transaction, before the DELETE.
    if (ifMatch !== undefined) await requireRecordTag(unit, collection, target.where, ifMatch);
    return deleteWhere(unit, collection, target.where);
  }, plan)).length;
  if (target.single && deleted === 0) throw new ApiError('RECORD_NOT_FOUND', `no ${collection.name} record matches`);
  return { kind: 'count', n: deleted };
}
