import { ApiError } from '../errors/api-error.js';
import { bindReadShape, type ReadShape } from '../plan/bind-read-shape.js';
import { bindWriteValues, type WriteFilter, type WriteValues } from '../plan/bind-write-values.js';
import type { QueryParams } from '../request/query-params.js';
import type { Collection, Row } from '../schema/collection.js';
import { type ActionContext, type ActionResult } from './action-context.js';
import { writeNew, type NestedOptions } from '../store/nested-writes.js';
import { writtenItems } from '../store/read-rows.js';
import { insertItems } from '../store/insert-items.js';

export const MAX_BULK_CREATE = 1000;

export function writeFilter(params: QueryParams): WriteFilter {
  return { ...(params.whitelist ? { whitelist: params.whitelist } : {}), ...(params.blacklist ? { blacklist: params.blacklist } : {}) };
}

export function nestedOptions(params: QueryParams, now: Date): NestedOptions {
  return { now, updateAssociationValues: new Set(params.updateAssociationValues ?? []) };
}

/**
 * A write without a body (no content, or an empty one labelled JSON) is an empty object, as in
 * NocoBase: the SDK's `resource('posts').create()` sends no body and creates a row of defaults.
 */
export function bodyOrEmpty(body: unknown): unknown {
  return body === undefined ? {} : body;
}

/** Validates one object or a bulk array; bulk errors carry `details.index`. */
export async function bindCreateItems(collection: Collection, body: unknown, now: Date, filter: WriteFilter = {}): Promise<{ bulk: boolean; items: WriteValues[] }> {
  const bulk = Array.isArray(body);
  const inputs: unknown[] = bulk ? body : [body];
  if (bulk && (inputs.length === 0 || inputs.length > MAX_BULK_CREATE)) {
    throw new ApiError('BODY_INVALID', `a bulk create takes 1 to ${MAX_BULK_CREATE} objects`);
  }
  const items: WriteValues[] = [];
  for (const [index, input] of inputs.entries()) {
    try {
      items.push(await bindWriteValues(collection, input, 'create', now, filter));
    } catch (error) {
      if (bulk && error instanceof ApiError) for (const entry of error.entries) entry.details = { ...entry.details, index };
      throw error;
    }
  }
  return { bulk, items };
}

/** The create answer: 201 with Location for one object, the array for bulk; appends embedded. */
export async function createdResult(ctx: ActionContext, collection: Collection, shape: ReadShape, rows: Row[], bulk: boolean): Promise<ActionResult> {
  const written = writtenItems(() => ctx.store.read(ctx), ctx.grants.open, collection, shape, rows);
  const data = Array.isArray(written) ? written : await written;
  if (bulk) return { kind: 'createdMany', items: data };
  const item = data[0]!;
  return { kind: 'created', item, location: [collection.name, String(item[collection.key.name])] };
}

/** A multipart body reaches create only for an upload (attachments, an attachment field); any other create takes JSON: 415. */
export function refuseUpload(ctx: ActionContext): void {
  if (ctx.request.upload !== undefined) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'create takes application/json, not multipart/form-data (files are uploaded to attachments:create or an attachment field)');
}

/** create: one object (201 + Location) or an array (bulk), with nested association values, all or nothing. */
export async function createAction(ctx: ActionContext, collection: Collection): Promise<ActionResult> {
  refuseUpload(ctx);
  const { params } = ctx.request;
  const now = new Date();
  const shape = bindReadShape(collection, undefined, undefined, params.appends);
  const { bulk, items } = await bindCreateItems(collection, bodyOrEmpty(ctx.request.body), now, writeFilter(params));
  const options = nestedOptions(params, now);
  // The store decides from these facts how the write runs (one flat row may be one statement).
  const plan = ctx.store.plan(collection, { action: 'create', items: items.length, associations: items[0]!.associations.size > 0, sortFields: items[0]!.sortFields.length > 0 });
  const rows = await ctx.store.write(
    ctx,
    collection,
    async (unit) => {
      const created: Row[] = [];
      // A flat item (no association values) is just its row: writeNew would resolve and link nothing.
      for (const item of items) created.push(item.associations.size === 0 ? (await insertItems(unit, collection, [item]))[0]! : await writeNew(unit, collection, item, options));
      return created;
    },
    plan,
  );
  return createdResult(ctx, collection, shape, rows, bulk);
}
