import { ApiError } from '../errors/api-error.js';
import { keyFilter } from '../plan/bind-keys.js';
import { bindWriteValues } from '../plan/bind-write-values.js';
import { TRUE_NODE } from '../plan/filter-node.js';
import type { Collection } from '../schema/collection.js';
import { selectRows } from '../sql/select-rows.js';
import { insertItems } from '../store/insert-items.js';
import { updateMatched } from '../store/update-rows.js';
import { deleteWhere } from '../store/write-rows.js';
import { checkWebhookBody, WEBHOOKS, webhookItem, type WebhookItem } from '../webhooks/webhook-definitions.js';
import type { WebhookService } from '../webhooks/webhook-service.js';
import type { ActionContext, ActionResult } from './action-context.js';

/**
 * The `webhooks` system collection: list, get, create, update, destroy, and
 * `webhooks/<id>/deliveries:list|retry`. Its rows are written through the store (one
 * transaction each, with their change events); the secret is kept beside the delivery state,
 * written, never returned. Root-only (store/root-only.ts): the store refuses anyone but root
 * with 403 FORBIDDEN, on the rows and on their deliveries alike.
 */
function serviceOf(ctx: ActionContext): WebhookService {
  const collection = ctx.snapshot.get(WEBHOOKS);
  if (collection !== undefined) ctx.store.read(ctx).require(collection, 'view');
  if (ctx.webhooks === undefined) throw new ApiError('ACTION_NOT_FOUND', 'webhooks are not running on this node');
  return ctx.webhooks;
}

function collectionOf(ctx: ActionContext): Collection {
  const collection = ctx.snapshot.get(WEBHOOKS);
  if (collection === undefined) throw new ApiError('ACTION_NOT_FOUND', 'webhooks are not running on this node');
  return collection;
}

function idOf(value: unknown): number {
  const text = Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
  const id = typeof text === 'number' ? text : typeof text === 'string' && /^\d{1,15}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new ApiError(text === undefined ? 'KEY_REQUIRED' : 'KEY_INVALID', 'a webhook is named by its integer id');
  return id;
}

/** The webhooks (all, or the one of `id`), read through the store in id order. */
async function read(ctx: ActionContext, collection: Collection, id?: number): Promise<WebhookItem[]> {
  const unit = ctx.store.read(ctx);
  const where = unit.where(collection, id === undefined ? TRUE_NODE : keyFilter(collection, [id]), 'view');
  const rows = await selectRows(unit, { collection, where, select: collection.visible, order: [{ field: collection.key, desc: false }] }, unit.scopeOf);
  return rows.map((row) => webhookItem(collection.decode(row, collection.visible)));
}

async function one(ctx: ActionContext, collection: Collection, id: number): Promise<WebhookItem> {
  const [item] = await read(ctx, collection, id);
  if (item === undefined) throw new ApiError('RECORD_NOT_FOUND', `no webhook ${id}`);
  return item;
}

export const webhookActions = {
  list: async (ctx: ActionContext): Promise<ActionResult> => {
    serviceOf(ctx);
    return { kind: 'items', items: await read(ctx, collectionOf(ctx)) };
  },
  get: async (ctx: ActionContext): Promise<ActionResult> => {
    serviceOf(ctx);
    return { kind: 'item', item: await one(ctx, collectionOf(ctx), idOf(ctx.request.keys)) };
  },
  create: async (ctx: ActionContext): Promise<ActionResult> => {
    const service = serviceOf(ctx);
    const collection = collectionOf(ctx);
    const { values, secret } = await checkWebhookBody(ctx.request.body, 'create', service.options.allowPrivate);
    const now = new Date();
    const bound = await bindWriteValues(collection, values, 'create', now);
    // New webhooks receive the events committed from now on.
    const cursor = await service.cursorNow();
    const id = await ctx.store.write(ctx, collection, async (unit) => {
      const [row] = await insertItems(unit, collection, [bound]);
      const id = Number(row![collection.key.name]);
      await ctx.store.system().webhookState(unit).insert(id, secret!, cursor);
      return id;
    });
    service.touched();
    service.wake();
    return { kind: 'created', item: await one(ctx, collection, id), location: [WEBHOOKS, String(id)] };
  },
  update: async (ctx: ActionContext): Promise<ActionResult> => {
    const service = serviceOf(ctx);
    const collection = collectionOf(ctx);
    const id = idOf(ctx.request.keys);
    await one(ctx, collection, id);
    const { values, secret } = await checkWebhookBody(ctx.request.body, 'update', service.options.allowPrivate);
    if (Object.keys(values).length > 0 || secret !== undefined) {
      const now = new Date();
      const bound = await bindWriteValues(collection, values, 'update', now);
      await ctx.store.write(ctx, collection, async (unit) => {
        await updateMatched(unit, collection, bound, keyFilter(collection, [id]), { now, updateAssociationValues: new Set() });
        if (secret !== undefined) await ctx.store.system().webhookState(unit).updateSecret(id, secret);
      });
    }
    service.touched();
    return { kind: 'item', item: await one(ctx, collection, id) };
  },
  destroy: async (ctx: ActionContext): Promise<ActionResult> => {
    serviceOf(ctx);
    const collection = collectionOf(ctx);
    const id = idOf(ctx.request.keys);
    // The row, its state and its deliveries go together.
    const n = await ctx.store.write(ctx, collection, async (unit) => {
      const keys = await deleteWhere(unit, collection, keyFilter(collection, [id]));
      await ctx.store.system().webhookState(unit).delete(keys.map(Number));
      return keys.length;
    });
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
