import { isRecord } from '../is-record.js';
import { isRelationInput } from './resolve-relation.js';
import { invalid, normalizeField } from './normalize-field.js';
import { checkCollectionName, collectionUiOptions, findField, MAX_FIELDS_PER_COLLECTION } from './normalize-collection.js';
import { markStamps, readStampOptions, stampRelationInputs, STAMP_OPTION_NAMES } from './stamp-options.js';
import { ID_TYPES, type CollectionDef, type FieldDef, type IdType, type JsonValue } from './types.js';
import { COLLECTION_UI_OPTIONS, withInterfaceType } from './ui-options.js';

/** Options of a collection over a table Corral did not create (issue 30, docs/existing-databases.md). */
const UNMANAGED_OPTIONS = new Set<string>([
  'name', 'title', 'description', 'fields', 'timestamps', 'autoGenId', 'idType', 'filterTargetKey', 'sortable', 'indexes',
  'managed', 'tableName', 'schema', 'view', ...COLLECTION_UI_OPTIONS, ...STAMP_OPTION_NAMES,
]);

/** The longest identifier the three databases all take (PostgreSQL: 63 bytes; MySQL: 64 characters). */
export const MAX_IDENTIFIER_LENGTH = 64;

/**
 * A real table, schema or column name: any spelling the database allows except a `.` and the
 * word ` as ` (Kysely reads both in a name given as text), and no leading or trailing space.
 */
export function checkIdentifier(value: unknown, what: string, where: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_IDENTIFIER_LENGTH || value.trim() !== value || value.includes('.') || /\sas\s/i.test(value) || value.includes('\u0000')) {
    throw invalid(`${where}: ${what} must be a name of 1 to ${MAX_IDENTIFIER_LENGTH} characters without '.', ' as ' or surrounding spaces`, where);
  }
  return value;
}

/**
 * Reads a `collections:create` body with `managed: false`: a definition over an existing table
 * (or view), registered without DDL. Nothing is automatic: every column served is listed in
 * `fields` (`columnName` when the column is named otherwise), the key is the field marked
 * `primaryKey` (or `filterTargetKey`; none: a keyless collection, `filterTargetKey: ''`),
 * `timestamps`/`createdBy`/`updatedBy` stamp fields the body defines itself. `$search` needs
 * Corral's token index, kept only for Corral's own tables: `searchable` is refused.
 */
export function normalizeUnmanaged(input: Record<string, unknown>, system = false): { def: CollectionDef; relationInputs: Record<string, unknown>[]; indexes: unknown } {
  for (const key of Object.keys(input)) if (!UNMANAGED_OPTIONS.has(key)) throw invalid(`unknown collection option ${key}`, key);
  const name = checkCollectionName(input.name, system);
  if (input.autoGenId === true) throw invalid('a table Corral did not create has no automatic id: mark its key field primaryKey', 'autoGenId');
  const view = input.view ?? false;
  if (typeof view !== 'boolean') throw invalid('view must be true or false', 'view');
  const timestamps = input.timestamps ?? false;
  if (typeof timestamps !== 'boolean') throw invalid('timestamps must be true or false', 'timestamps');
  const stamps = readStampOptions(input, timestamps);
  if (input.fields !== undefined && !Array.isArray(input.fields)) throw invalid('fields must be an array', 'fields');
  const fieldInputs = ((input.fields as unknown[] | undefined) ?? []).map(withInterfaceType);
  const given = fieldInputs.filter(isRelationInput);
  const relationInputs = [...given, ...stampRelationInputs(stamps, given)];
  const fields: FieldDef[] = [];
  const columns = new Set<string>();
  for (const fieldInput of fieldInputs.filter((field) => !isRelationInput(field))) {
    const field = normalizeField(fieldInput, true);
    if (findField(fields, field.name) !== undefined) throw invalid(`field ${field.name} is defined twice`, field.name);
    if (field.searchable === true) throw invalid(`${field.name}: searchable needs Corral's search index, kept for its own tables only`, field.name);
    const column = (field.columnName ?? field.name).toLowerCase();
    if (columns.has(column)) throw invalid(`${field.name}: column ${field.columnName ?? field.name} is served by two fields`, field.name);
    columns.add(column);
    if (field.system !== undefined) delete field.system;
    fields.push(field);
  }
  if (fields.length === 0) throw invalid('list the columns to serve in fields', 'fields');
  if (fields.length > MAX_FIELDS_PER_COLLECTION) throw invalid(`a collection has at most ${MAX_FIELDS_PER_COLLECTION} fields`, 'fields');
  for (const stamp of ['createdAt', 'updatedAt'] as const) {
    if (!stamps[stamp]) continue;
    const field = fields.find((f) => f.name === stamp);
    if (field === undefined || field.type !== 'date') throw invalid(`${stamp}: stamping needs a date field named ${stamp} (columnName maps it to the real column)`, stamp);
    field.system = stamp;
  }
  const keys = fields.filter((field) => field.primaryKey === true);
  // Several primaryKey fields: a composite key, filterByTk then an object of every one (bind-keys.ts).
  let filterTargetKey: unknown = input.filterTargetKey ?? (keys.length === 1 ? keys[0]!.name : keys.length > 1 ? keys.map((key) => key.name) : '');
  if (filterTargetKey === null) filterTargetKey = '';
  if (Array.isArray(filterTargetKey)) {
    const names = filterTargetKey as unknown[];
    if (names.length === 1 && typeof names[0] === 'string') filterTargetKey = names[0];
    else if (names.length < 2 || !names.every((name): name is string => typeof name === 'string') || new Set(names).size !== names.length) {
      throw invalid('filterTargetKey must be a field name or a list of two or more distinct field names (a composite key)', 'filterTargetKey');
    }
  } else if (typeof filterTargetKey !== 'string') throw invalid('filterTargetKey must be a field name', 'filterTargetKey');
  for (const keyName of Array.isArray(filterTargetKey) ? filterTargetKey : filterTargetKey === '' ? [] : [filterTargetKey]) {
    if (fields.find((field) => field.name === keyName) === undefined) throw invalid(`filterTargetKey ${keyName} is not a field`, 'filterTargetKey');
  }
  const keyType = keys[0]?.type;
  const idType: IdType = keys.length === 1 && keyType !== undefined && (ID_TYPES as readonly string[]).includes(keyType) ? (keyType as IdType) : 'integer';
  const def: CollectionDef = { name, managed: false, timestamps: stamps.createdAt || stamps.updatedAt, autoGenId: false, idType, filterTargetKey: filterTargetKey as string | string[], fields, relations: [] };
  if (input.tableName !== undefined && input.tableName !== null && input.tableName !== name) def.tableName = checkIdentifier(input.tableName, 'tableName', 'tableName');
  if (input.schema !== undefined && input.schema !== null) def.schema = checkIdentifier(input.schema, 'schema', 'schema');
  if (view) def.view = true;
  markStamps(def, stamps);
  for (const key of ['title', 'description'] as const) {
    const value = input[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw invalid(`${key} must be a string`, key);
    def[key] = value;
  }
  if (input.sortable !== undefined && input.sortable !== null) def.sortable = input.sortable as JsonValue;
  const { schema: _schema, ...rest } = input;
  const options = collectionUiOptions(rest);
  if (options !== undefined) def.options = options;
  return { def, relationInputs, indexes: input.indexes };
}

/** A body asks for an unmanaged collection (`managed: false`). */
export function asksUnmanaged(input: unknown): boolean {
  return isRecord(input) && input.managed === false;
}
