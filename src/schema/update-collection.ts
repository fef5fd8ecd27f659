import { isRecord } from '../is-record.js';
import { invalid, normalizeField } from './normalize-field.js';
import { notManaged } from './not-managed.js';
import { checkCollectionChange, isSystemCollection } from './protected.js';
import type { SchemaWork } from './schema-work.js';
import type { CollectionDef, JsonValue } from './types.js';
import { asksForNothing, COLLECTION_UI_OPTIONS, DROPPED_COLLECTION_OPTIONS, sortFieldName, UNSUPPORTED_COLLECTION_OPTIONS } from './ui-options.js';

/** Options that say where a collection's rows are stored. */
const STORAGE_OPTIONS: readonly string[] = ['managed', 'tableName', 'view', 'schema'];

/** Options a client may send back unchanged (NocoBase's UI sends the whole record) but not change. */
const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * `collections:update` on a working copy: `title`, `description` and the UI-only options
 * change (null removes one); `sortable` adds its `sort` field when missing (turning it off
 * keeps the column); `indexes` replaces the collection's indexes; any other option may be sent
 * with its current value only.
 */
export function updateCollection(work: SchemaWork, name: string, patch: unknown): CollectionDef {
  if (!isRecord(patch)) throw invalid('the body must be an object');
  const def = work.get(name);
  for (const [key, value] of Object.entries(patch)) {
    if (STORAGE_OPTIONS.includes(key) && (def.managed === false || key !== 'schema')) {
      // Where the rows live: fixed when the collection is made (a registered table's, by its catalogue).
      // tableName equal to the table in use (the name, when none is stored) asks for nothing, as on create.
      const current = key === 'tableName' && value !== null ? (def.tableName ?? def.name) : (def as unknown as Record<string, unknown>)[key];
      if (!sameJson(value, current)) {
        checkCollectionChange(def, `changing ${key}`);
        if (def.managed === false) throw notManaged(name, `changing ${key}`);
        throw invalid(`${key} cannot be changed after creation`, key);
      }
      continue;
    }
    if (key === 'name') {
      if (value === undefined || value === name) continue;
      checkCollectionChange(def, 'renaming it');
      throw invalid('a collection cannot be renamed', 'name');
    } else if (key === 'system' && isSystemCollection(name)) {
      // Read back from collections:list (protected.ts): sent unchanged, it asks for nothing.
      if (value !== true && value !== undefined) checkCollectionChange(def, 'changing system');
    } else if (key === 'title' || key === 'description') {
      if (value === null) delete def[key];
      else if (typeof value === 'string') def[key] = value;
      else if (value !== undefined) throw invalid(`${key} must be a string`, key);
    } else if ((COLLECTION_UI_OPTIONS as readonly string[]).includes(key)) {
      if (DROPPED_COLLECTION_OPTIONS.includes(key)) continue;
      const options = { ...def.options };
      if (value === null) delete options[key];
      else if (value !== undefined) options[key] = value as JsonValue;
      if (Object.keys(options).length === 0) delete def.options;
      else def.options = options;
    } else if (key === 'indexes') {
      // Replaces the set, as collections:setIndexes does (null or [] removes them all).
      work.setIndexes(name, value);
    } else if (key === 'sortable') {
      const field = sortFieldName(value);
      if (field !== undefined) {
        const existing = def.fields.find((f) => f.name === field);
        if (existing === undefined) work.addField(name, normalizeField({ name: field, type: 'sort' }));
        else if (existing.type !== 'sort') throw invalid(`sortable: ${name}.${field} exists and is not a sort field`, 'sortable');
      }
      if (value === null || value === undefined) delete def.sortable;
      else def.sortable = value as JsonValue;
    } else if (UNSUPPORTED_COLLECTION_OPTIONS[key] !== undefined) {
      if (!asksForNothing(key, value, name)) throw invalid(UNSUPPORTED_COLLECTION_OPTIONS[key]!, key);
    } else if (!sameJson(value, (def as unknown as Record<string, unknown>)[key])) {
      throw invalid(`${key} cannot be changed after creation`, key);
    }
  }
  work.touch(name);
  return work.get(name);
}
