import { bindReadShape } from '../plan/bind-read-shape.js';
import { keyFilter } from '../plan/bind-keys.js';
import { bindWriteValues } from '../plan/bind-write-values.js';
import type { Collection, Row } from '../schema/collection.js';
import { rowKey } from '../store/canonical.js';
import { updateMatched } from '../store/update-rows.js';
import type { UnitOfWork } from '../store/unit-of-work.js';
import { type ActionContext, type ActionResult } from './action-context.js';
import { bodyOrEmpty, nestedOptions, writeFilter } from './create-action.js';
import { filterKeysLookup } from './filter-keys.js';
import { findOrCreate } from './first-or-create-action.js';

/**
 * updateOrCreate: the first record (in key order) whose `filterKeys` fields equal the body's
 * values is updated with the body (200), or, when none matches, a record is created from the
 * body (201 + Location); one transaction either way.
 */
export async function updateOrCreateAction(ctx: ActionContext, collection: Collection): Promise<ActionResult> {
  const { params } = ctx.request;
  const body = bodyOrEmpty(ctx.request.body);
  const where = filterKeysLookup(collection, params, body);
  const now = new Date();
  const shape = bindReadShape(collection, undefined, undefined, params.appends);
  const create = await bindWriteValues(collection, body, 'create', now, writeFilter(params));
  const update = await bindWriteValues(collection, body, 'update', now, writeFilter(params));
  const options = nestedOptions(params, now);
  const updateRow = async (unit: UnitOfWork, row: Row): Promise<Row> => {
    const byKey = keyFilter(collection, [rowKey(collection, row, unit.dialect)]);
    const [updated] = await updateMatched(unit, collection, update, byKey, options);
    return updated ?? row;
  };
  return findOrCreate(ctx, collection, shape, where, create, options, { update, run: updateRow });
}
