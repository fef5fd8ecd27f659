import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { countRows } from '../store/read-rows.js';
import { type ActionContext, type ActionResult } from './action-context.js';
import { bindTarget } from './target-filter.js';

export async function countAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE): Promise<ActionResult> {
  const { where } = bindTarget(ctx.request, collection, scope);
  return { kind: 'count', n: await countRows(ctx.store.read(ctx), collection, where) };
}
