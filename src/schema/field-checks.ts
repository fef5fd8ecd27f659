import { fieldInIndexes } from './collection-indexes.js';
import { notManaged } from './not-managed.js';
import { ApiError } from '../errors/api-error.js';
import { checkDefault, findField, MAX_FIELDS_PER_COLLECTION } from './normalize-collection.js';
import { invalid, normalizeField } from './normalize-field.js';
import { requireField } from './update-field.js';
import type { CollectionDef, FieldDef } from './types.js';

/**
 * Checks of a field added to or dropped from an existing collection.
 *
 * The scalar field `fieldName` of `def` when its column may be dropped; otherwise the reason as
 * a client error: an unmanaged table, a key or automatic field, a relation's key column, a
 * column an index covers, or the key a relation points at.
 */
export function droppableField(defs: readonly CollectionDef[], def: CollectionDef, fieldName: string): FieldDef {
  const field = requireField(def, fieldName);
  if (def.managed === false) throw notManaged(def.name, `dropping the column of ${fieldName}`);
  if (field.system !== undefined || field.primaryKey === true || def.filterTargetKey === field.name) {
    throw invalid(`${fieldName} is a key or automatic field and cannot be removed`, fieldName);
  }
  if (field.references !== undefined) throw invalid(`${fieldName} is the key column of a relation; drop the relation instead`, fieldName);
  const covered = fieldInIndexes(def, fieldName, 'drop the field');
  if (covered !== undefined) throw covered;
  if (defs.some((other) => (other.relations ?? []).some((r) => (r.sourceKey === fieldName && other.name === def.name) || (r.targetKey === fieldName && r.target === def.name)))) {
    throw invalid(`${fieldName} is the key a relation points at`, fieldName);
  }
  return field;
}

/** A scalar field definition that may be added to an existing collection (its rows need a default when it is required). */
export function addableField(collectionName: string, input: unknown): FieldDef {
  const field = normalizeField(input);
  if (field.primaryKey === true) throw invalid(`${collectionName} already has primary key: a primary key can only be set when the collection is created`, field.name);
  checkDefault(field);
  if (!field.allowNull && field.defaultValue === undefined) {
    throw invalid(`${field.name}: allowNull false needs a defaultValue for the rows already stored`, field.name);
  }
  return field;
}

/** Refuses a field whose name the collection already uses, or one past the field limit. */
export function checkRoomFor(def: CollectionDef, field: FieldDef): void {
  if (findField(def.fields, field.name) !== undefined || (def.relations ?? []).some((r) => r.name.toLowerCase() === field.name.toLowerCase())) {
    throw new ApiError('FIELD_EXISTS', `field ${field.name} already exists in ${def.name}`, { field: field.name });
  }
  if (def.fields.length >= MAX_FIELDS_PER_COLLECTION) throw invalid(`a collection has at most ${MAX_FIELDS_PER_COLLECTION} fields`, 'fields');
}
