import { ApiError } from '../errors/api-error.js';
import type { WebhookService } from '../webhooks/webhook-service.js';
import type { ActionContext, ActionResult } from './action-context.js';

/**
 * The `webhooks` system collection: list, get, create, update, destroy, and
 * `webhooks/<id>/deliveries:list`. The secret is written, never returned. Root-only: a
 * request `ctx.isRoot` does not accept is 403 FORBIDDEN (no check given: everyone is root).
 */
function serviceOf(ctx: ActionContext): WebhookService {
  if (ctx.isRoot !== undefined && !ctx.isRoot(ctx.request)) throw new ApiError('FORBIDDEN', 'webhooks are for root only');
  if (ctx.webhooks === undefined) throw new ApiError('ACTION_NOT_FOUND', 'webhooks are not running on this node');
  return ctx.webhooks;
}

function idOf(value: unknown): number {
  const text = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
  const id = typeof text === 'number' ? text : typeof text === 'string' && /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new ApiError(text === undefined ? 'KEY_REQUIRED' : 'KEY_INVALID', 'a webhook is named by its integer id');
  return id;
}

export const webhookActions = {
  list: async (ctx: ActionContext): Promise<ActionResult> => ({ kind: 'items', items: await serviceOf(ctx).list() }),
  get: async (ctx: ActionContext): Promise<ActionResult> => ({ kind: 'item', item: await serviceOf(ctx).get(idOf(ctx.request.keys)) }),
  create: async (ctx: ActionContext): Promise<ActionResult> => {
    const item = await serviceOf(ctx).create(ctx.request.body);
    serviceOf(ctx).wake();
    return { kind: 'created', item, location: ['webhooks', String(item.id)] };
  },
  update: async (ctx: ActionContext): Promise<ActionResult> => ({ kind: 'item', item: await serviceOf(ctx).update(idOf(ctx.request.keys), ctx.request.body) }),
  destroy: async (ctx: ActionContext): Promise<ActionResult> => {
    const n = await serviceOf(ctx).destroy(idOf(ctx.request.keys));
    if (n === 0) throw new ApiError('RECORD_NOT_FOUND', 'no such webhook');
    return { kind: 'count', n };
  },
};

export const deliveryActions = {
  list: async (ctx: ActionContext): Promise<ActionResult> => {
    const { page, pageSize } = ctx.request.params;
    const { items, hasNext } = await serviceOf(ctx).deliveries(idOf(ctx.request.path.sourceKey), page, pageSize);
    return { kind: 'page', items, paging: { page, pageSize, hasNext } };
  },
  /** `POST webhooks/<id>/deliveries:retry/<deliveryId>`: send it again (WebhookService.retry). */
  retry: async (ctx: ActionContext): Promise<ActionResult> => {
    const service = serviceOf(ctx);
    const item = await service.retry(idOf(ctx.request.path.sourceKey), idOf(ctx.request.keys));
    service.wake();
    return { kind: 'item', item };
  },
};
