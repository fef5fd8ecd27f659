import { Readable } from 'node:stream';
import { linkColumns, type AppendNode, type ReadShape } from '../plan/bind-read-shape.js';
import { sortValueAlias, type ReadPlan } from '../plan/read-plan.js';
import type { SortTerm } from '../plan/bind-sort.js';
import type { JsonValue } from '../schema/types.js';
import type { Collection, Item, Row } from '../schema/collection.js';
import { loadAppends } from '../sql/load-appends.js';
import { DIALECT_TRAITS } from '../db/dialects/dialect-traits.js';
import { countRows as countQuery, selectQuery, selectRows } from '../sql/select-rows.js';
import type { FilterNode } from '../plan/filter-node.js';
import { ApiError } from '../errors/api-error.js';
import { keyFilter } from '../plan/bind-keys.js';
import { TRUE_NODE } from '../plan/filter-node.js';
import { canonical, keyFields, keyText, rowKey } from './canonical.js';
import type { UnitOfWork } from './unit-of-work.js';

/** Rows fetched per round trip when streaming `paginate=false`; appends load per batch. */
export const STREAM_CHUNK_ROWS = 500;

/**
 * The plan with the caller's view scope ANDed into its filter: 403 FORBIDDEN without a view
 * grant. A read with a LIMIT may walk its rows for common `$search` words (store/search-stats.ts).
 */
function scopedPlan(unit: UnitOfWork, plan: ReadPlan): ReadPlan {
  unit.require(plan.collection, 'view');
  return { ...plan, where: unit.where(plan.collection, plan.where, 'view', plan.limit !== undefined) };
}

/** Rows of a read plan, inside the caller's scopes (filter, association paths, sort subqueries). */
export function readRows(unit: UnitOfWork, plan: ReadPlan): Promise<Row[]> {
  return selectRows(unit, scopedPlan(unit, plan), unit.scopeOf);
}

/** How many rows of `collection` match `where` inside the caller's scope. */
export function countRows(unit: UnitOfWork, collection: Collection, where: FilterNode): Promise<number> {
  unit.require(collection, 'view');
  return countQuery(unit, collection, unit.where(collection, where));
}

/**
 * A read shape narrowed to what the caller may read: each level's output to its collection's
 * `view` field grant (the key always stays), appends to granted associations (the permission
 * layer refuses naming an ungranted one with 403 before the read). For a read (`answer`
 * false) a requested field list that keeps nothing is 403 FORBIDDEN naming the fields: it is
 * never read as "all fields". A write's answer just shows what remains (the key at least).
 */
export function grantedShape(unit: UnitOfWork, collection: Collection, shape: ReadShape, answer: boolean): ReadShape {
  if (unit.grants.open) return shape;
  const readable = unit.readable(collection);
  if (readable === undefined) {
    const appends = grantedAppends(unit, shape.appends);
    return appends === shape.appends ? shape : { output: shape.output, appends };
  }
  // Without a view grant a write answers with the row's key alone: no appends either.
  if (unit.scopes.get(collection.name)?.denied) return { output: shape.output.filter((field) => field === collection.key), appends: [] };
  const output = shape.output.filter((field) => readable.has(field.name));
  if (!answer && output.length === 0 && shape.output.length > 0) {
    const names = shape.output.map((field) => field.name);
    throw new ApiError('FORBIDDEN', `your roles do not allow reading ${names.join(', ')} of ${collection.name}`, { field: names[0]!, details: { fields: names } });
  }
  // An association embedded by `fields` (`fields=post,post.title`) is one of the collection's fields: a read naming an ungranted one is refused like one in `appends`.
  const ungranted = shape.appends.find((node) => !readable.has(node.relation.name));
  if (ungranted !== undefined && !answer) {
    throw new ApiError('FORBIDDEN', `your roles do not allow reading ${ungranted.relation.name} of ${collection.name}`, { field: ungranted.relation.name });
  }
  const appends = grantedAppends(unit, ungranted === undefined ? shape.appends : shape.appends.filter((node) => readable.has(node.relation.name)));
  return { output: output.length === shape.output.length ? shape.output : output, appends };
}

function grantedAppends(unit: UnitOfWork, nodes: AppendNode[]): AppendNode[] {
  if (nodes.length === 0 || unit.scopes.size === 0) return nodes;
  return nodes.map((node) => {
    const fields = unit.readable(node.relation.target);
    const children = fields === undefined ? node.children : node.children.filter((child) => fields.has(child.relation.name));
    return {
      relation: node.relation,
      output: fields === undefined ? node.output : node.output.filter((field) => fields.has(field.name)),
      children: grantedAppends(unit, children),
    };
  });
}

/**
 * Decodes rows to items and embeds their appends (each appended collection read inside its
 * scope and field grant), narrowed to the caller's view grant (`grantedShape`; `answer`: the
 * rows a write returns).
 */
export async function toItems(unit: UnitOfWork, collection: Collection, requested: ReadShape, rows: Row[], answer = false): Promise<Item[]> {
  const shape = grantedShape(unit, collection, requested, answer);
  if (!answer) return decodeItems(unit, collection, shape, rows);
  const hidden = await outOfView(unit, collection, rows);
  const shown = hidden === undefined ? rows : rows.filter((row) => !hidden.has(row));
  const items = await decodeItems(unit, collection, shape, shown);
  if (hidden === undefined) return items;
  // A row the caller wrote but may not view (its update scope is wider than its view scope) answers with its key alone.
  const key = collection.key;
  let next = 0;
  return rows.map((row) => (hidden.has(row) ? { [key.name]: key.type.fromDb(row[key.name], unit.dialect, key.def) } : items[next++]!));
}

/** Rows to items with a shape `grantedShape` already narrowed, appends embedded. */
async function decodeItems(unit: UnitOfWork, collection: Collection, shape: ReadShape, rows: Row[]): Promise<Item[]> {
  const items = rows.map((row) => collection.decode(row, shape.output));
  if (shape.appends.length > 0) await loadAppends(unit.db, unit.dialect, rows, items, shape.appends, unit.scopeOf);
  return items;
}

/** The rows a write returned that lie outside the caller's view row filter (undefined: none can). */
async function outOfView(unit: UnitOfWork, collection: Collection, rows: Row[]): Promise<Set<Row> | undefined> {
  const scope = unit.scopes.get(collection.name);
  if (scope === undefined || scope.denied || scope.where === TRUE_NODE || rows.length === 0) return undefined;
  const text = (row: Row) => keyText(rowKey(collection, row, unit.dialect));
  const where = keyFilter(collection, rows.map((row) => rowKey(collection, row, unit.dialect)));
  const visible = new Set((await selectRows(unit, { collection, where: unit.where(collection, where), select: [...keyFields(collection)], order: [] }, unit.scopeOf)).map(text));
  const hidden = new Set(rows.filter((row) => !visible.has(text(row))));
  return hidden.size === 0 ? undefined : hidden;
}

/**
 * The items of rows a write returned, narrowed to the caller's view grant: decoded at once
 * when nothing is appended and nothing restricted (no read unit is made), else as `toItems`
 * with the read unit `read` gives.
 */
export function writtenItems(read: () => UnitOfWork, open: boolean, collection: Collection, shape: ReadShape, rows: Row[]): Item[] | Promise<Item[]> {
  if (open && shape.appends.length === 0) return rows.map((row) => collection.decode(row, shape.output));
  return toItems(read(), collection, shape, rows, true);
}

/** The wire values of a row's sort terms (read with `selectSortValues` and the terms' fields selected), for a cursor. */
export function sortValuesOf(unit: UnitOfWork, order: readonly SortTerm[], row: Row): JsonValue[] {
  return order.map((term, index) => {
    const raw = (term.path?.length ?? 0) > 0 ? row[sortValueAlias(index)] : row[term.field.name];
    return raw === null || raw === undefined ? null : term.field.type.fromDb(raw, unit.dialect, term.field.def);
  });
}

/** The columns a read selects: the output plus the keys its appends link by. */
export function selectedFields(shape: ReadShape): ReadPlan['select'] {
  if (shape.appends.length === 0) return shape.output;
  return [...new Set([...shape.output, ...linkColumns(shape)])];
}

/** A read unit over one snapshot of data and schema, and its release (Store.readSnapshot). */
export type OpenSnapshot = () => Promise<{ unit: UnitOfWork; release: () => Promise<void> }>;

/**
 * `{"data":[…]}` written batch by batch: memory stays flat whatever the size. Every batch is
 * read in one snapshot of data and schema (`open`, held until the last row or the client
 * leaves), so the answer finishes from the schema it started with while another node renames
 * or drops a field. The snapshot is opened and the first batch read before the answer starts:
 * a failure there (the schema moved since the plan, the database is down) is still an error
 * answer, retried like any read. PostgreSQL and MySQL read through a cursor. SQLite's snapshot
 * is a connection of its own, and appends load between batches: there, and whenever appends
 * are embedded, the rows are read a page at a time instead. A failure after the first byte
 * cannot become an error answer: the response is then cut before `]}` and before the chunked
 * body's end, which HTTP clients report as an incomplete answer (docs/api.md).
 */
export async function streamItems(base: UnitOfWork, open: OpenSnapshot, readPlan: ReadPlan, requested: ReadShape): Promise<Readable> {
  const { batches, finish } = await openItemBatches(base, open, readPlan, requested);
  async function* chunks(): AsyncGenerator<string> {
    try {
      yield '{"data":[';
      let first = true;
      for await (const items of batches) {
        for (const item of items) {
          const text = JSON.stringify(item);
          yield first ? text : `,${text}`;
          first = false;
        }
      }
      yield ']}';
    } finally {
      await finish();
    }
  }
  const stream = Readable.from(chunks(), { objectMode: false });
  // A stream destroyed before it was read never runs the generator's finally.
  stream.once('close', () => void finish());
  return stream;
}

/** Batches of decoded items, read as `streamItems` reads them; the first batch is read before this returns. */
export interface ItemBatches {
  /** The shape the caller is granted (what each item holds). */
  readonly shape: ReadShape;
  readonly batches: AsyncIterable<Item[]>;
  /** Releases the snapshot (once; safe to call again). */
  finish(): Promise<void>;
}

/**
 * The reading half of `streamItems`, for answers other than JSON (an export): the snapshot is
 * opened and the first batch read and decoded before this returns, so a failure is still an
 * error answer. The caller must call `finish` when done or when the client leaves.
 */
export async function openItemBatches(base: UnitOfWork, open: OpenSnapshot, readPlan: ReadPlan, requested: ReadShape): Promise<ItemBatches> {
  const plan = scopedPlan(base, readPlan);
  // Refused (403) before the answer starts; each batch is then decoded with the granted shape.
  const shape = grantedShape(base, readPlan.collection, requested, false);
  const { dialect } = base;
  async function* batches(unit: UnitOfWork): AsyncGenerator<Row[]> {
    if (!DIALECT_TRAITS[dialect].cursorStreams || shape.appends.length > 0) {
      for (let offset = 0; ; offset += STREAM_CHUNK_ROWS) {
        const rows = await selectRows(unit, { ...plan, limit: STREAM_CHUNK_ROWS, offset }, unit.scopeOf);
        if (rows.length > 0) yield rows;
        if (rows.length < STREAM_CHUNK_ROWS) return;
      }
    }
    let batch: Row[] = [];
    for await (const row of selectQuery(unit.db, dialect, plan, unit.scopeOf).stream(STREAM_CHUNK_ROWS)) {
      batch.push(row as Row);
      if (batch.length >= STREAM_CHUNK_ROWS) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
  const { unit, release } = await open();
  const rows = batches(unit);
  let released: Promise<void> | undefined;
  const finish = (): Promise<void> => (released ??= rows.return(undefined).then(release, release) as Promise<void>);
  let head: IteratorResult<Row[]>;
  let items: Item[];
  try {
    head = await rows.next();
    items = head.done === true ? [] : await decodeItems(unit, plan.collection, shape, head.value);
  } catch (error) {
    await finish();
    throw error;
  }
  async function* decoded(): AsyncGenerator<Item[]> {
    if (head.done === true) return;
    yield items;
    for (let next = await rows.next(); next.done !== true; next = await rows.next()) yield await decodeItems(unit, plan.collection, shape, next.value);
  }
  return { shape, batches: decoded(), finish };
}
