import { bindQuery } from '../plan/bind-query.js';
import type { Collection } from '../schema/collection.js';
import { aggregate } from '../store/aggregate.js';
import { type ActionContext, type ActionResult } from './action-context.js';

/**
 * query: group-by aggregation (`measures`, `dimensions`, `orders`, `filter`, `having`,
 * `limit`) from the body, answered as `{"data":[{alias: value, …}]}`. A read: POST only.
 */
export async function queryAction(ctx: ActionContext, collection: Collection): Promise<ActionResult> {
  const plan = bindQuery(collection, ctx.request.body ?? {}, ctx.request.params.timeZone);
  return { kind: 'items', items: await aggregate(ctx.store.read(ctx), plan) };
}
