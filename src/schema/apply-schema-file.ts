import { isRecord } from '../is-record.js';
import { normalizeCollection } from './normalize-collection.js';
import { invalid } from './normalize-field.js';
import type { SchemaManager } from './schema-manager.js';

/**
 * Applies a schema file: creates missing collections and fields, updates changed options.
 * Never drops anything the file does not mention; an entry's `indexes`, when given, replace
 * the collection's (changing nothing when they are the same).
 */
export async function applySchemaFile(schema: SchemaManager, input: unknown): Promise<void> {
  const list = Array.isArray(input) ? input : isRecord(input) && Array.isArray(input.collections) ? input.collections : undefined;
  if (list === undefined) throw invalid('a schema file holds an array of collections, or {"collections": [...]}');
  for (const entry of list as unknown[]) {
    const { def: wanted, relationInputs, indexes } = normalizeCollection(entry);
    const existing = schema.snapshot.get(wanted.name);
    if (existing === undefined) {
      await schema.createCollection(entry);
      continue;
    }
    const labels = (def: typeof wanted) => ({ title: def.title ?? null, description: def.description ?? null, sortable: def.sortable ?? null, ...def.options });
    if (JSON.stringify(labels(wanted)) !== JSON.stringify(labels(existing.def))) await schema.updateCollection(wanted.name, labels(wanted));
    for (const field of wanted.fields) {
      if (field.system !== undefined) continue;
      const have = existing.def.fields.find((f) => f.name === field.name);
      if (have === undefined) await schema.createField(wanted.name, field);
      else if (JSON.stringify(have) !== JSON.stringify(field)) await schema.updateField(wanted.name, field.name, field);
    }
    for (const relation of relationInputs) {
      if (!(existing.def.relations ?? []).some((r) => r.name === relation.name)) await schema.createField(wanted.name, relation);
    }
    // An entry with `indexes` sets exactly those (one without leaves them as they are).
    if (indexes !== undefined && indexes !== null && JSON.stringify(indexes) !== JSON.stringify(existing.def.indexes ?? [])) await schema.setIndexes(wanted.name, indexes);
  }
}
