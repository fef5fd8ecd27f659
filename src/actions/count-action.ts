import type { Collection } from '../schema/collection.js';
import { countRows } from '../sql/select-rows.js';
import { json, type ActionContext, type ActionResult } from './action-context.js';
import { bindTarget } from './target-filter.js';

export async function countAction(ctx: ActionContext, collection: Collection): Promise<ActionResult> {
  const { where } = bindTarget(ctx.request, collection);
  return json({ data: await countRows(ctx.database.db, ctx.database.dialect, collection, where) });
}
