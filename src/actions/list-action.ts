import { Readable } from 'node:stream';
import { bindReadShape, type ReadShape } from '../plan/bind-read-shape.js';
import { bindSort } from '../plan/bind-sort.js';
import { TRUE_NODE, type FilterNode } from '../plan/filter-node.js';
import type { ReadPlan } from '../plan/read-plan.js';
import type { Collection, Row } from '../schema/collection.js';
import { countRows, selectQuery, selectRows } from '../sql/select-rows.js';
import { json, type ActionContext, type ActionResult } from './action-context.js';
import { selectedFields, toItems } from './read-items.js';
import { bindTarget } from './target-filter.js';

/** Rows fetched per round trip when streaming `paginate=false`; appends load per batch. */
export const STREAM_CHUNK_ROWS = 500;

export async function listAction(ctx: ActionContext, collection: Collection, scope: FilterNode = TRUE_NODE): Promise<ActionResult> {
  const { params } = ctx.request;
  const { db, dialect } = ctx.database;
  const { where } = bindTarget(ctx.request, collection, scope);
  const shape = bindReadShape(collection, params.fields, params.except, params.appends);
  const order = bindSort(collection, params.sort);
  const select = selectedFields(shape);

  if (!params.paginate) {
    return { kind: 'stream', status: 200, stream: streamItems(ctx, { collection, where, select, order }, shape) };
  }

  const { page, pageSize } = params;
  const offset = (page - 1) * pageSize;
  if (params.simplePaginate) {
    const rows = await selectRows(db, dialect, { collection, where, select, order, limit: pageSize + 1, offset });
    const hasNext = rows.length > pageSize;
    const data = await toItems(db, dialect, collection, shape, rows.slice(0, pageSize));
    return json({ data, meta: { page, pageSize, hasNext } });
  }

  const rows = await selectRows(db, dialect, { collection, where, select, order, limit: pageSize, offset });
  // A page that is neither full nor empty already tells the total: no second query.
  const count = rows.length > 0 && rows.length < pageSize ? offset + rows.length : await countRows(db, dialect, collection, where);
  const data = await toItems(db, dialect, collection, shape, rows);
  return json({ data, meta: { count, page, pageSize, totalPage: Math.ceil(count / pageSize) } });
}

/**
 * `{"data":[…]}` written batch by batch: memory stays flat whatever the size. PostgreSQL and
 * MySQL read through a cursor on one pooled connection. SQLite has one connection, which a
 * cursor would hold for the whole response (blocking every other request behind a slow
 * client), and appends need that connection between batches: there, and whenever appends are
 * embedded, the rows are read a page at a time instead.
 */
function streamItems(ctx: ActionContext, plan: ReadPlan, shape: ReadShape): Readable {
  const { db, dialect } = ctx.database;
  async function* batches(): AsyncGenerator<Row[]> {
    if (dialect === 'sqlite' || shape.appends.length > 0) {
      for (let offset = 0; ; offset += STREAM_CHUNK_ROWS) {
        const rows = await selectRows(db, dialect, { ...plan, limit: STREAM_CHUNK_ROWS, offset });
        if (rows.length > 0) yield rows;
        if (rows.length < STREAM_CHUNK_ROWS) return;
      }
    }
    let batch: Row[] = [];
    for await (const row of selectQuery(db, dialect, plan).stream(STREAM_CHUNK_ROWS)) {
      batch.push(row as Row);
      if (batch.length >= STREAM_CHUNK_ROWS) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
  async function* chunks(): AsyncGenerator<string> {
    yield '{"data":[';
    let first = true;
    for await (const rows of batches()) {
      for (const item of await toItems(db, dialect, plan.collection, shape, rows)) {
        const text = JSON.stringify(item);
        yield first ? text : `,${text}`;
        first = false;
      }
    }
    yield ']}';
  }
  return Readable.from(chunks(), { objectMode: false });
}
