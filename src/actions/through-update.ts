import { ApiError } from '../errors/api-error.js';
import { bindReadShape } from '../plan/bind-read-shape.js';
import { bindWriteValues } from '../plan/bind-write-values.js';
import { and } from '../plan/filter-node.js';
import type { BelongsToMany } from '../schema/collection.js';
import { canonical } from '../store/canonical.js';
import { among } from '../store/links.js';
import { readRows, toItems } from '../store/read-rows.js';
import { bindThroughValues, updateThroughRows } from '../store/through-values.js';
import { updateMatched } from '../store/update-rows.js';
import type { ActionContext, ActionResult } from './action-context.js';
import { loadScope } from './association-scope.js';
import { nestedOptions, writeFilter } from './create-action.js';
import { bindTarget, requireTarget } from './target-filter.js';

/**
 * update on a belongsToMany association whose body holds the values of the link
 * (`POST /api/posts/1/tags:update?filterByTk=3 {"posts_tags": {"tagged_at": "…"}}`): the through
 * rows linking the source to the addressed targets take them, and the targets take the rest of
 * the body (when there is any: through values alone need no grant on the target), in one
 * transaction. The answer is the targets, as for any update.
 */
export async function updateWithThrough(ctx: ActionContext, relation: BelongsToMany, own: unknown, through: Record<string, unknown>): Promise<ActionResult> {
  const { target } = relation;
  const { params } = ctx.request;
  const addressed = bindTarget(ctx.request, target);
  requireTarget(addressed);
  const shape = bindReadShape(target, undefined, undefined, params.appends);
  const now = new Date();
  const bound = await bindWriteValues(target, own, 'update', now, writeFilter(params));
  const links = await bindThroughValues(relation, through, 'update', now);
  const options = nestedOptions(params, now);
  const order = [{ field: target.key, desc: false }];
  const rows = await ctx.store.write(ctx, target, async (unit) => {
    const source = await loadScope(ctx, relation, unit);
    const where = and([source.where, addressed.where]);
    const matched = bound.given.length > 0
      ? await updateMatched(unit, target, bound, where, options)
      : await readRows(unit, { collection: target, where, select: [...new Set([...target.visible, target.key, relation.targetKey])], order });
    if (matched.length === 0) return matched;
    const values = matched.map((row) => canonical(relation.targetKey, row[relation.targetKey.name], unit.dialect));
    await updateThroughRows(unit, relation, source.anchor, among(relation.otherKey, values), links);
    return matched;
  });
  const data = await toItems(ctx.store.read(ctx), target, shape, rows, true);
  if (!addressed.single) return { kind: 'items', items: data };
  if (data[0] === undefined) throw new ApiError('RECORD_NOT_FOUND', `no ${target.name} record matches`);
  return { kind: 'item', item: data[0] };
}
