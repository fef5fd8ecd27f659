import { ApiError } from '../errors/api-error.js';
import { bindReadShape, type ReadShape } from '../plan/bind-read-shape.js';
import { bindWriteValues } from '../plan/bind-write-values.js';
import type { FilterNode } from '../plan/filter-node.js';
import type { Collection, Row } from '../schema/collection.js';
import { writeNew } from '../store/nested-writes.js';
import { readRows, selectedFields, toItems } from '../store/read-rows.js';
import type { UnitOfWork } from '../store/unit-of-work.js';
import { type ActionContext, type ActionResult } from './action-context.js';
import { createdResult, nestedOptions, writeFilter } from './create-action.js';
import { filterKeysLookup } from './filter-keys.js';

/** The first row (in key order) matching `where`, with what `shape` needs selected. */
export async function firstMatch(unit: UnitOfWork, collection: Collection, shape: ReadShape, where: FilterNode): Promise<Row | undefined> {
  const select = [...new Set([...selectedFields(shape), collection.key])];
  const [row] = await readRows(unit, { collection, where, select, order: [{ field: collection.key, desc: false }], limit: 1 });
  return row;
}

/**
 * Runs `work` (which creates when nothing matches); when a concurrent request created the
 * same record first and a unique constraint refused ours, answers the winner's row instead.
 */
export async function orExisting<T>(ctx: ActionContext, collection: Collection, shape: ReadShape, where: FilterNode, work: () => Promise<T>, existing: (row: Row) => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'UNIQUE_VIOLATION') throw error;
    const row = await firstMatch(ctx.store.read(ctx), collection, shape, where);
    if (row === undefined) throw error;
    return existing(row);
  }
}

/**
 * firstOrCreate: the first record whose `filterKeys` fields equal the body's values (200), or
 * a new record made from the body (201 + Location), in one transaction.
 */
export async function firstOrCreateAction(ctx: ActionContext, collection: Collection): Promise<ActionResult> {
  const { params, body } = ctx.request;
  const where = filterKeysLookup(collection, params, body);
  const now = new Date();
  const shape = bindReadShape(collection, undefined, undefined, params.appends);
  const bound = await bindWriteValues(collection, body, 'create', now, writeFilter(params));
  const options = nestedOptions(params, now);
  const found = async (row: Row): Promise<ActionResult> => {
    const [item] = await toItems(ctx.store.read(ctx), collection, shape, [row]);
    return { kind: 'item', item: item! };
  };
  const outcome = await orExisting(
    ctx,
    collection,
    shape,
    where,
    () =>
      ctx.store.write(ctx, collection, async (unit) => {
        const row = await firstMatch(unit, collection, shape, where);
        return row === undefined ? { created: true, row: await writeNew(unit, collection, bound, options) } : { created: false, row };
      }),
    async (row) => ({ created: false, row }),
  );
  return outcome.created ? createdResult(ctx, collection, shape, [outcome.row], false) : found(outcome.row);
}
