import { compileFieldValidator } from './field-validator.js';
import { invalid, normalizeField } from './normalize-field.js';
import { isRecord } from '../is-record.js';
import { isRelationInput } from './resolve-relation.js';
import { normalizeUnmanaged } from './normalize-unmanaged.js';
import { collectionNameProblem } from './reserved-names.js';
import { markStamps, readStampOptions, stampRelationInputs, STAMP_OPTION_NAMES } from './stamp-options.js';
import { ID_TYPES, NAME_PATTERN, type CollectionDef, type FieldDef, type IdType, type JsonValue } from './types.js';
import { asksForNothing, COLLECTION_UI_OPTIONS, DROPPED_COLLECTION_OPTIONS, copyFieldUi, sortFieldName, UNSUPPORTED_COLLECTION_OPTIONS, withInterfaceType } from './ui-options.js';

export const MAX_FIELDS_PER_COLLECTION = 200;

const COLLECTION_OPTIONS = new Set<string>([
  'name', 'title', 'description', 'fields', 'timestamps', 'autoGenId', 'idType', 'filterTargetKey', 'sortable', 'indexes', ...COLLECTION_UI_OPTIONS, ...STAMP_OPTION_NAMES,
]);

/** Types of an explicit `id` primary key that make it the automatic id (`snowflakeId`: an auto-increment bigInt). */
const EXPLICIT_ID_TYPES: Readonly<Record<string, IdType>> = { integer: 'integer', bigInt: 'bigInt', uuid: 'uuid', nanoid: 'nanoid', snowflakeId: 'bigInt' };

/**
 * NocoBase's admin UI sends the id itself (`{name: 'id', type: 'bigInt', autoIncrement: true,
 * primaryKey: true, interface: 'integer', uiSchema…}`): that is the automatic id of that type,
 * keeping its UI options. Any other primary key field means no automatic id (as NocoBase).
 */
function explicitId(fieldInputs: unknown[], autoGenId: unknown): { id?: Record<string, unknown>; userKey: boolean } {
  const keys = fieldInputs.filter((field): field is Record<string, unknown> => isRecord(field) && field.primaryKey === true);
  const id = keys.find((field) => field.name === 'id' && typeof field.type === 'string' && Object.hasOwn(EXPLICIT_ID_TYPES, field.type));
  if (id !== undefined && keys.length === 1 && autoGenId !== false) return { id, userKey: false };
  return { userKey: keys.length > 0 };
}

/** `system` lets the auth layer create its own reserved collections (users, roles, apiKeys). */
export function checkCollectionName(name: unknown, system = false): string {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
    throw invalid(`collection name must match ${NAME_PATTERN.source}`, 'name');
  }
  if (system) return name;
  const problem = collectionNameProblem(name);
  if (problem !== undefined) throw invalid(`collection name ${name} ${problem}`, 'name');
  return name;
}

/** The automatic fields a collection gets from its options. */
export function systemFields(idType: IdType, autoGenId: boolean, timestamps: boolean | { createdAt: boolean; updatedAt: boolean }): FieldDef[] {
  const stamps = typeof timestamps === 'boolean' ? { createdAt: timestamps, updatedAt: timestamps } : timestamps;
  const fields: FieldDef[] = [];
  if (autoGenId) {
    fields.push({
      name: 'id', type: idType, allowNull: false, unique: false, index: false, primaryKey: true, system: 'id',
      ...(idType === 'integer' || idType === 'bigInt' ? { autoIncrement: true } : {}),
    });
  }
  if (stamps.createdAt) fields.push({ name: 'createdAt', type: 'date', allowNull: false, unique: false, index: false, system: 'createdAt' });
  if (stamps.updatedAt) fields.push({ name: 'updatedAt', type: 'date', allowNull: false, unique: false, index: false, system: 'updatedAt' });
  return fields;
}

/** A defaultValue must itself be a valid value of its field. */
export function checkDefault(def: FieldDef): void {
  if (def.defaultValue === undefined) return;
  const parsed = compileFieldValidator(def)(def.defaultValue);
  if (!parsed.ok) throw invalid(`${def.name}: defaultValue ${parsed.message}`, def.name);
}

/** Field names are unique without regard to case: SQLite and MySQL fold column names. */
export function findField(fields: readonly FieldDef[], name: string): FieldDef | undefined {
  const lower = name.toLowerCase();
  return fields.find((field) => field.name.toLowerCase() === lower);
}

/**
 * Reads a `collections:create` body into a resolved CollectionDef (scalar fields) and the
 * relation field definitions, which need the rest of the schema to resolve, and the `indexes`
 * as sent. Throws SCHEMA_INVALID.
 */
export function normalizeCollection(input: unknown, system = false): { def: CollectionDef; relationInputs: Record<string, unknown>[]; indexes: unknown } {
  if (!isRecord(input)) throw invalid('the body must be a collection definition object');
  if (input.managed === false) return normalizeUnmanaged(input, system);
  for (const key of ['tableName', 'view'] as const) {
    // The system collections' own tables (corral_users…) are named by the auth layer, never by clients.
    if (key === 'tableName' && system) continue;
    // NocoBase's UI sends `view: false` and `tableName` equal to the name: they ask for nothing.
    if (!asksForNothing(key, input[key], input.name)) throw invalid(`${key} applies to a table Corral did not create (managed: false) only`, key);
  }
  if (input.managed !== undefined && input.managed !== true) throw invalid('managed must be true or false', 'managed');
  for (const key of Object.keys(input)) {
    if (key === 'managed' || (key === 'tableName' && system)) continue;
    const unsupported = UNSUPPORTED_COLLECTION_OPTIONS[key];
    if (unsupported !== undefined && !asksForNothing(key, input[key], input.name)) throw invalid(unsupported, key);
    if (unsupported === undefined && !COLLECTION_OPTIONS.has(key)) throw invalid(`unknown collection option ${key}`, key);
  }
  const name = checkCollectionName(input.name, system);
  const bool = (key: string, fallback: boolean): boolean => {
    const value = input[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'boolean') throw invalid(`${key} must be true or false`, key);
    return value;
  };
  if (input.fields !== undefined && !Array.isArray(input.fields)) throw invalid('fields must be an array', 'fields');
  let fieldInputs = ((input.fields as unknown[] | undefined) ?? []).map(withInterfaceType);
  const explicit = explicitId(fieldInputs, input.autoGenId);
  const timestamps = bool('timestamps', true);
  const stamps = readStampOptions(input, timestamps);
  const autoGenId = explicit.userKey ? false : bool('autoGenId', true);
  let idType = input.idType ?? 'integer';
  if (explicit.id !== undefined) {
    const wanted = EXPLICIT_ID_TYPES[explicit.id.type as string]!;
    if (input.idType !== undefined && input.idType !== null && input.idType !== wanted) throw invalid(`idType ${String(input.idType)} contradicts the id field of type ${String(explicit.id.type)}`, 'idType');
    idType = wanted;
    fieldInputs = fieldInputs.filter((field) => field !== explicit.id);
  }
  if (typeof idType !== 'string' || !(ID_TYPES as readonly string[]).includes(idType)) {
    throw invalid(`idType must be one of ${ID_TYPES.join(', ')}`, 'idType');
  }
  for (const key of ['title', 'description'] as const) {
    if (input[key] !== undefined && input[key] !== null && typeof input[key] !== 'string') throw invalid(`${key} must be a string`, key);
  }
  const given = fieldInputs.filter(isRelationInput);
  const relationInputs = [...given, ...stampRelationInputs(stamps, given)];
  const userFields = fieldInputs.filter((field) => !isRelationInput(field)).map((field) => normalizeField(field));
  const fields = systemFields(idType as IdType, autoGenId, stamps);
  if (explicit.id !== undefined) copyFieldUi(explicit.id, fields[0]!, 'id');
  const sortField = sortFieldName(input.sortable);
  if (sortField !== undefined && !userFields.some((field) => field.name === sortField && field.type === 'sort')) {
    userFields.push(normalizeField({ name: sortField, type: 'sort' }));
  }
  for (const field of userFields) {
    if (findField(fields, field.name) !== undefined) throw invalid(`field ${field.name} is defined twice or is automatic`, field.name);
    checkDefault(field);
    fields.push(field);
  }
  if (fields.length > MAX_FIELDS_PER_COLLECTION) throw invalid(`a collection has at most ${MAX_FIELDS_PER_COLLECTION} fields`, 'fields');
  const primaryKeys = fields.filter((field) => field.primaryKey === true);
  if (primaryKeys.length !== 1) {
    throw invalid(autoGenId ? 'only the automatic id may be the primary key' : 'with autoGenId false, exactly one field must set primaryKey: true', 'fields');
  }
  const filterTargetKey = input.filterTargetKey ?? primaryKeys[0]!.name;
  if (typeof filterTargetKey !== 'string') throw invalid('filterTargetKey must be a field name', 'filterTargetKey');
  const keyField = fields.find((field) => field.name === filterTargetKey);
  if (keyField === undefined || (keyField.primaryKey !== true && !(keyField.unique && !keyField.allowNull))) {
    throw invalid('filterTargetKey must name the primary key or a unique field with allowNull false', 'filterTargetKey');
  }
  const def: CollectionDef = { name, timestamps: stamps.createdAt || stamps.updatedAt, autoGenId, idType: idType as IdType, filterTargetKey, fields, relations: [] };
  markStamps(def, stamps);
  if (system && typeof input.tableName === 'string' && input.tableName !== name) def.tableName = input.tableName;
  if (typeof input.title === 'string') def.title = input.title;
  if (typeof input.description === 'string') def.description = input.description;
  if (input.sortable !== undefined && input.sortable !== null) def.sortable = input.sortable as JsonValue;
  const options = collectionUiOptions(input);
  if (options !== undefined) def.options = options;
  // `indexes` may cover relations' key columns: checked once the relations are resolved (SchemaWork.setIndexes).
  return { def, relationInputs, indexes: input.indexes };
}

/** The UI-only options of a collection definition, or undefined when it has none. */
export function collectionUiOptions(input: Record<string, unknown>): Record<string, JsonValue> | undefined {
  const entries = COLLECTION_UI_OPTIONS.filter((key) => input[key] !== undefined && !DROPPED_COLLECTION_OPTIONS.includes(key)).map((key) => [key, input[key] as JsonValue]);
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}
