import { selection, type Collection, type Field, type Row } from '../schema/collection.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import { canonical } from './canonical.js';
import type { UnitOfWork } from './unit-of-work.js';

/** A foreign key column of `child` pointing at `column` of a parent collection. */
export interface Reference {
  readonly child: Collection;
  readonly field: Field;
  /** The parent column it copies. */
  readonly column: string;
  readonly onDelete: 'CASCADE' | 'SET NULL' | 'RESTRICT';
}

/** The references into a collection (by the schema). Given, the store reports rows the database cascades to. */
export type ReferenceSource = (parent: Collection) => readonly Reference[];

/** References of every collection of a snapshot, computed once per snapshot. */
export function referencesOf(snapshotOf: () => SchemaSnapshot): ReferenceSource {
  let cached: { snapshot: SchemaSnapshot; byParent: Map<string, Reference[]> } | undefined;
  return (parent) => {
    const snapshot = snapshotOf();
    if (cached?.snapshot !== snapshot) {
      const byParent = new Map<string, Reference[]>();
      for (const child of snapshot.collections.values()) {
        for (const field of child.fieldList) {
          const references = field.def.references;
          if (references === undefined) continue;
          const list = byParent.get(references.collection) ?? [];
          list.push({ child, field, column: references.key, onDelete: references.onDelete });
          byParent.set(references.collection, list);
        }
      }
      cached = { snapshot, byParent };
    }
    return cached.byParent.get(parent.name) ?? [];
  };
}

/** Keys per IN list when following references. */
const CASCADE_CHUNK = 500;

/**
 * Before `rows` of `parent` are deleted: records the rows the database will delete
 * (ON DELETE CASCADE, with their rows as they are, and their own cascades) or update
 * (SET NULL) with them. The database does the change; the unit only reports it.
 * Cascades ignore the caller's scope, as the database does.
 */
export async function recordCascades(unit: UnitOfWork, references: ReferenceSource, parent: Collection, rows: readonly Row[], seen = new Set<string>()): Promise<void> {
  for (const reference of references(parent)) {
    const values = [...new Set(rows.map((row) => row[reference.column]).filter((value) => value !== null && value !== undefined))];
    if (values.length === 0 || reference.onDelete === 'RESTRICT') continue;
    const { child, field } = reference;
    const key = child.key;
    for (let start = 0; start < values.length; start += CASCADE_CHUNK) {
      const chunk = values.slice(start, start + CASCADE_CHUNK);
      const select = reference.onDelete === 'CASCADE' ? child.visible : [key];
      const children = (await unit.db.selectFrom(child.table).select([...new Set(select)].map((f) => selection(f))).where(field.column, 'in', chunk).execute()) as Row[];
      const fresh = children.filter((row) => {
        const text = `${child.name}\u0000${String(canonical(key, row[key.name], unit.dialect))}\u0000${reference.onDelete}`;
        if (seen.has(text)) return false;
        seen.add(text);
        return true;
      });
      if (fresh.length === 0) continue;
      if (reference.onDelete === 'SET NULL') {
        for (const row of fresh) unit.changes.record(child.name, 'updated', canonical(key, row[key.name], unit.dialect));
        continue;
      }
      await recordCascades(unit, references, child, fresh, seen);
      for (const row of fresh) unit.record(child, 'deleted', row);
    }
  }
}
