import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import { applyRelationSort } from './relation-sort.js';
import type { SchemaSnapshot } from './schema-snapshot.js';
import type { SchemaWork } from './schema-work.js';
import type { FieldDef, RelationDef } from './types.js';
import { copyFieldUi, FIELD_UI_OPTIONS, isUiOrAddress } from './ui-options.js';

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
/** Relation options changed through this path; the others are chosen at definition. */
const RELATION_EDITABLE = new Set(['title', 'description', 'sortable', 'sortBy']);

/**
 * Is this `fields:update` one that changes no column: a relation (its UI options, title,
 * `sortable`/`sortBy`), or any field whose patch changes UI options only (so the id,
 * timestamps and key columns can be relabelled in NocoBase's UI)? Else the column path runs.
 */
export function changesOptionsOnly(snapshot: SchemaSnapshot, collection: string, field: string, patch: unknown): boolean {
  const def = snapshot.get(collection)?.def;
  if (def === undefined || !isRecord(patch)) return false;
  if ((def.relations ?? []).some((relation) => relation.name === field)) return true;
  const current = def.fields.find((f) => f.name === field) as Record<string, unknown> | undefined;
  return current !== undefined && Object.entries(patch).every(([key, value]) => isUiOrAddress(key) || sameJson(value, current[key]));
}

/** Applies such a patch on the working copy and returns the field as it now stands. */
export function updateFieldOptions(work: SchemaWork, collection: string, name: string, patch: Record<string, unknown>): FieldDef | RelationDef {
  const def = work.get(collection);
  const relation = (def.relations ?? []).find((r) => r.name === name);
  const field: FieldDef | RelationDef | undefined = relation ?? def.fields.find((f) => f.name === name);
  if (field === undefined) throw new ApiError('FIELD_NOT_FOUND', `field ${name} does not exist in ${collection}`);
  if (relation !== undefined) {
    for (const [key, value] of Object.entries(patch)) {
      if (isUiOrAddress(key) || RELATION_EDITABLE.has(key) || sameJson(value, (relation as unknown as Record<string, unknown>)[key])) continue;
      throw new ApiError('SCHEMA_CHANGE_UNSAFE', `${name}: ${key} of a relation cannot be changed in place; drop it and define it again`, { field: name });
    }
    for (const key of ['title', 'description'] as const) {
      if (patch[key] === null) delete relation[key];
      else if (typeof patch[key] === 'string') relation[key] = patch[key];
      else if (patch[key] !== undefined) throw new ApiError('SCHEMA_INVALID', `${name}: ${key} must be a string`, { field: name });
    }
    const sortField = applyRelationSort(relation, patch, work.get(relation.target));
    if (sortField !== undefined) work.addField(relation.target, sortField);
  }
  for (const key of FIELD_UI_OPTIONS) if (patch[key] === null) delete field[key];
  copyFieldUi(patch, field, name);
  work.touch(collection);
  return field;
}
