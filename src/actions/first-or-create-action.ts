import { ApiError } from '../errors/api-error.js';
import { bindReadShape, type ReadShape } from '../plan/bind-read-shape.js';
import { bindWriteValues, type WriteValues } from '../plan/bind-write-values.js';
import type { FilterNode } from '../plan/filter-node.js';
import type { Collection, Row } from '../schema/collection.js';
import { writeNew, type NestedOptions } from '../store/nested-writes.js';
import { readRows, selectedFields, toItems } from '../store/read-rows.js';
import type { UnitOfWork } from '../store/unit-of-work.js';
import { checkWrite } from '../store/write-grants.js';
import { type ActionContext, type ActionResult } from './action-context.js';
import { bodyOrEmpty, createdResult, nestedOptions, writeFilter } from './create-action.js';
import { filterKeysLookup } from './filter-keys.js';

/** The first row (in key order) matching `where`, with what `shape` needs selected. */
export async function firstMatch(unit: UnitOfWork, collection: Collection, shape: ReadShape, where: FilterNode): Promise<Row | undefined> {
  const select = [...new Set([...selectedFields(shape), collection.key])];
  const [row] = await readRows(unit, { collection, where, select, order: [{ field: collection.key, desc: false }], limit: 1 });
  return row;
}

/**
 * The shared flow of firstOrCreate and updateOrCreate, in one transaction: the first row
 * matching `where` goes through `onExisting` (nothing for firstOrCreate, an update for
 * updateOrCreate) and answers 200; when none matches, `create` is written and answers 201.
 * When a concurrent request created the same record first and a unique constraint refused
 * ours, the winner's row goes through `onExisting` instead.
 */
export async function findOrCreate(
  ctx: ActionContext,
  collection: Collection,
  shape: ReadShape,
  where: FilterNode,
  create: WriteValues,
  options: NestedOptions,
  onExisting?: { update: WriteValues; run: (unit: UnitOfWork, row: Row) => Promise<Row> },
): Promise<ActionResult> {
  const existing = async (unit: UnitOfWork, row: Row): Promise<Row> => (onExisting === undefined ? row : onExisting.run(unit, row));
  let outcome: { created: boolean; row: Row };
  try {
    outcome = await ctx.store.write(ctx, collection, async (unit) => {
      // updateOrCreate may do either: the body must lie within both grants, whichever happens.
      if (onExisting !== undefined) await checkWrite(unit, collection, 'update', onExisting.update);
      const row = await firstMatch(unit, collection, shape, where);
      return row === undefined ? { created: true, row: await writeNew(unit, collection, create, options) } : { created: false, row: await existing(unit, row) };
    });
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'UNIQUE_VIOLATION') throw error;
    const row = await firstMatch(ctx.store.read(ctx), collection, shape, where);
    if (row === undefined) throw error;
    outcome = { created: false, row: onExisting === undefined ? row : await ctx.store.write(ctx, collection, (unit) => onExisting.run(unit, row)) };
  }
  if (outcome.created) return createdResult(ctx, collection, shape, [outcome.row], false);
  const [item] = await toItems(ctx.store.read(ctx), collection, shape, [outcome.row], true);
  return { kind: 'item', item: item! };
}

/**
 * firstOrCreate: the first record whose `filterKeys` fields equal the body's values (200), or
 * a new record made from the body (201 + Location), in one transaction.
 */
export async function firstOrCreateAction(ctx: ActionContext, collection: Collection): Promise<ActionResult> {
  const { params } = ctx.request;
  const body = bodyOrEmpty(ctx.request.body);
  const where = filterKeysLookup(collection, params, body);
  const now = new Date();
  const shape = bindReadShape(collection, undefined, undefined, params.appends);
  const bound = await bindWriteValues(collection, body, 'create', now, writeFilter(params));
  return findOrCreate(ctx, collection, shape, where, bound, nestedOptions(params, now));
}
