import { sql } from 'kysely';
import { ApiError } from '../errors/api-error.js';
import { bindWriteValues, toDbRow, type WriteValues } from '../plan/bind-write-values.js';
import type { Collection } from '../schema/collection.js';
import { insertRow } from '../sql/insert-row.js';
import { json, type ActionContext, type ActionResult } from './action-context.js';
import { writeTransaction } from './write-transaction.js';

export const MAX_BULK_CREATE = 1000;

/** create: one object (201 + Location) or an array (bulk, all or nothing). */
export async function createAction(ctx: ActionContext, collection: Collection): Promise<ActionResult> {
  const { body } = ctx.request;
  const bulk = Array.isArray(body);
  const items: unknown[] = bulk ? body : [body];
  if (bulk && (items.length === 0 || items.length > MAX_BULK_CREATE)) {
    throw new ApiError('BODY_INVALID', `a bulk create takes 1 to ${MAX_BULK_CREATE} objects`);
  }
  const now = new Date();
  const bound: WriteValues[] = [];
  for (const [index, item] of items.entries()) {
    try {
      bound.push(await bindWriteValues(collection, item, 'create', now));
    } catch (error) {
      if (bulk && error instanceof ApiError) for (const entry of error.entries) entry.details = { ...entry.details, index };
      throw error;
    }
  }
  const { dialect } = ctx.database;
  const created = await writeTransaction(ctx, collection, async (trx) => {
    const rows = [];
    for (const { values, sortFields } of bound) {
      for (const name of sortFields) {
        const top = await trx.selectFrom(collection.name).select(sql<unknown>`max(${sql.ref(name)})`.as('top')).executeTakeFirst();
        values.set(name, Number(top?.top ?? 0) + 1);
      }
      rows.push(await insertRow(trx, dialect, collection, toDbRow(collection, values, dialect)));
    }
    return rows;
  });
  const data = created.map((row) => collection.decode(row, collection.visible));
  if (bulk) return json({ data }, 201);
  const item = data[0]!;
  return json({ data: item }, 201, { location: ctx.itemUrl(collection.name, item[collection.key.name]) });
}
