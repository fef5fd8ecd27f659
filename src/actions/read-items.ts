import { linkColumns, type ReadShape } from '../plan/bind-read-shape.js';
import type { ReadPlan } from '../plan/read-plan.js';
import type { Collection, Item, Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { loadAppends } from '../sql/load-appends.js';
import type { Executor } from '../sql/select-rows.js';

/** Decodes rows to items and embeds their appends. */
export async function toItems(db: Executor, dialect: Dialect, collection: Collection, shape: ReadShape, rows: Row[]): Promise<Item[]> {
  const items = rows.map((row) => collection.decode(row, shape.output));
  if (shape.appends.length > 0) await loadAppends(db, dialect, rows, items, shape.appends);
  return items;
}

/** The columns a read selects: the output plus the keys its appends link by. */
export function selectedFields(shape: ReadShape): ReadPlan['select'] {
  return [...new Set([...shape.output, ...linkColumns(shape)])];
}

