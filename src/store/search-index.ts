import { selection, type Collection } from '../schema/collection.js';
import { deleteTokens, insertTokens, keyColumn, REINDEX_BATCH } from '../schema/search-table.js';
import type { UnitOfWork } from './unit-of-work.js';

/** Whether a collection's writes maintain `$search` tokens. */
export function isSearchable(collection: Collection): boolean {
  return collection.fieldList.some((field) => field.def.searchable === true);
}

/** The collections a write on `root` can reach (nested writes, junctions), by name. */
function reachable(root: Collection): Map<string, Collection> {
  const found = new Map<string, Collection>([[root.name, root]]);
  const queue = [root];
  for (let current = queue.pop(); current !== undefined; current = queue.pop()) {
    for (const relation of current.relations.values()) {
      for (const next of relation.type === 'belongsToMany' ? [relation.target, relation.through] : [relation.target]) {
        if (!found.has(next.name)) {
          found.set(next.name, next);
          queue.push(next);
        }
      }
    }
  }
  return found;
}

/**
 * Brings the `$search` tokens of every row the unit changed up to date, inside its
 * transaction: the changed rows' tokens are dropped, and the created and updated rows are
 * read back (whatever the caller's scope: the index covers every row) and tokenised again.
 */
export async function indexChanges(unit: UnitOfWork, root: Collection): Promise<void> {
  if (unit.changes.empty) return;
  const collections = reachable(root);
  for (const [name, changes] of unit.changes.collections()) {
    const collection = collections.get(name);
    if (collection === undefined || !isSearchable(collection)) continue;
    const { key } = collection;
    const column = keyColumn(key.type.name);
    const toDb = (value: unknown) => key.type.toDb(value, unit.dialect);
    const changed = [...changes.created, ...changes.updated, ...changes.deleted].map((change) => toDb(change.key));
    const live = [...changes.created, ...changes.updated].map((change) => toDb(change.key));
    const fields = collection.fieldList.filter((field) => field.def.searchable === true).map((field) => field.name);
    for (let start = 0; start < changed.length; start += REINDEX_BATCH) await deleteTokens(unit.db, name, column, changed.slice(start, start + REINDEX_BATCH));
    for (let start = 0; start < live.length; start += REINDEX_BATCH) {
      const rows = (await unit.db
        .selectFrom(collection.table)
        .select([selection(key), ...fields.map((field) => selection(collection.fields.get(field)!))])
        .where(key.column, 'in', live.slice(start, start + REINDEX_BATCH))
        .execute()) as Record<string, unknown>[];
      await insertTokens(unit.db, name, column, rows.map((row) => [row[key.name], fields.map((field) => row[field])]));
    }
  }
}
