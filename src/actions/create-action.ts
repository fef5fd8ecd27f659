import { sql, type Transaction } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import { ApiError } from '../errors/api-error.js';
import { bindWriteValues, toDbRow, type WriteValues } from '../plan/bind-write-values.js';
import type { Collection, Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { insertRow } from '../sql/insert-row.js';
import { json, type ActionContext, type ActionResult } from './action-context.js';
import { writeTransaction } from './write-transaction.js';

export const MAX_BULK_CREATE = 1000;

/** Validates one object or a bulk array; bulk errors carry `details.index`. */
export async function bindCreateItems(collection: Collection, body: unknown, now: Date): Promise<{ bulk: boolean; items: WriteValues[] }> {
  const bulk = Array.isArray(body);
  const inputs: unknown[] = bulk ? body : [body];
  if (bulk && (inputs.length === 0 || inputs.length > MAX_BULK_CREATE)) {
    throw new ApiError('BODY_INVALID', `a bulk create takes 1 to ${MAX_BULK_CREATE} objects`);
  }
  const items: WriteValues[] = [];
  for (const [index, input] of inputs.entries()) {
    try {
      items.push(await bindWriteValues(collection, input, 'create', now));
    } catch (error) {
      if (bulk && error instanceof ApiError) for (const entry of error.entries) entry.details = { ...entry.details, index };
      throw error;
    }
  }
  return { bulk, items };
}

/** Inserts bound items in the caller's transaction, filling `sort` fields with max + 1. */
export async function insertItems(trx: Transaction<DynamicDb>, dialect: Dialect, collection: Collection, items: WriteValues[]): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { values, sortFields } of items) {
    for (const name of sortFields) {
      const top = await trx.selectFrom(collection.name).select(sql<unknown>`max(${sql.ref(name)})`.as('top')).executeTakeFirst();
      values.set(name, Number(top?.top ?? 0) + 1);
    }
    rows.push(await insertRow(trx, dialect, collection, toDbRow(collection, values, dialect)));
  }
  return rows;
}

/** The create answer: 201 with Location for one object, the array for bulk. */
export function createdResult(ctx: ActionContext, collection: Collection, rows: Row[], bulk: boolean): ActionResult {
  const data = rows.map((row) => collection.decode(row, collection.visible));
  if (bulk) return json({ data }, 201);
  const item = data[0]!;
  return json({ data: item }, 201, { location: ctx.itemUrl(collection.name, item[collection.key.name]) });
}

/** create: one object (201 + Location) or an array (bulk, all or nothing). */
export async function createAction(ctx: ActionContext, collection: Collection): Promise<ActionResult> {
  const { bulk, items } = await bindCreateItems(collection, ctx.request.body, new Date());
  const rows = await writeTransaction(ctx, collection, (trx) => insertItems(trx, ctx.database.dialect, collection, items));
  return createdResult(ctx, collection, rows, bulk);
}
