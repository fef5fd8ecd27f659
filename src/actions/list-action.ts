import { Readable } from 'node:stream';
import { bindAppends } from '../plan/bind-appends.js';
import { bindSelection } from '../plan/bind-selection.js';
import { bindSort } from '../plan/bind-sort.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { ReadPlan } from '../plan/read-plan.js';
import type { Collection } from '../schema/collection.js';
import { countRows, selectQuery, selectRows } from '../sql/select-rows.js';
import { json, type ActionContext, type ActionResult } from './action-context.js';
import { bindTarget } from './target-filter.js';

/** Rows fetched per round trip when streaming `paginate=false`. */
export const STREAM_CHUNK_ROWS = 500;

export async function listAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE): Promise<ActionResult> {
  const { params } = ctx.request;
  const { db, dialect } = ctx.database;
  const { where } = bindTarget(ctx.request, collection, scope);
  const select = bindSelection(collection, params.fields, params.except);
  const order = bindSort(collection, params.sort);
  bindAppends(collection, params.appends);

  if (!params.paginate) {
    const plan: ReadPlan = { collection, where, select, order };
    return { kind: 'stream', status: 200, stream: streamItems(ctx, plan) };
  }

  const { page, pageSize } = params;
  const offset = (page - 1) * pageSize;
  if (params.simplePaginate) {
    const rows = await selectRows(db, dialect, { collection, where, select, order, limit: pageSize + 1, offset });
    const hasNext = rows.length > pageSize;
    const data = rows.slice(0, pageSize).map((row) => collection.decode(row, select));
    return json({ data, meta: { page, pageSize, hasNext } });
  }

  const rows = await selectRows(db, dialect, { collection, where, select, order, limit: pageSize, offset });
  // A page that is neither full nor empty already tells the total: no second query.
  const count = rows.length > 0 && rows.length < pageSize ? offset + rows.length : await countRows(db, dialect, collection, where);
  const data = rows.map((row) => collection.decode(row, select));
  return json({ data, meta: { count, page, pageSize, totalPage: Math.ceil(count / pageSize) } });
}

/** `{"data":[…]}` written row by row from a database cursor: memory stays flat whatever the size. */
function streamItems(ctx: ActionContext, plan: ReadPlan): Readable {
  const { db, dialect } = ctx.database;
  async function* chunks(): AsyncGenerator<string> {
    yield '{"data":[';
    let first = true;
    for await (const row of selectQuery(db, dialect, plan).stream(STREAM_CHUNK_ROWS)) {
      const text = JSON.stringify(plan.collection.decode(row as Record<string, unknown>, plan.select));
      yield first ? text : `,${text}`;
      first = false;
    }
    yield ']}';
  }
  return Readable.from(chunks(), { objectMode: false });
}
