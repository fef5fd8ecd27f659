import { ApiError } from '../errors/api-error.js';
import type { FieldUi, JsonValue } from './types.js';

const invalid = (message: string, field: string): ApiError => new ApiError('SCHEMA_INVALID', message, { field });

/**
 * Options NocoBase's admin UI keeps on a field to draw it (`interface`: which widget,
 * `uiSchema`: its form schema and label…). Stored and returned as sent, on every field type,
 * relations included; they never change a column, a value or a validation.
 */
export const FIELD_UI_OPTIONS = ['interface', 'uiSchema', 'translation', 'isForeignKey', 'deletable'] as const satisfies readonly (keyof FieldUi)[];

/**
 * Keys a NocoBase client sends along with a field that name it rather than define it: the
 * collection (checked by the action against the path), NocoBase's record key, the list
 * position (`sort`) and `builtIn` (protected.ts) of a row read back. Dropped.
 */
export const FIELD_ADDRESS_OPTIONS = ['collectionName', 'key', 'sort', 'builtIn'] as const;

/** A field option that only names or draws the field: a change to it needs no DDL. */
export function isUiOrAddress(key: string): boolean {
  return (FIELD_UI_OPTIONS as readonly string[]).includes(key) || (FIELD_ADDRESS_OPTIONS as readonly string[]).includes(key);
}

/** Copies the UI options of `input` onto `def` (null or absent: left out). */
export function copyFieldUi(input: Record<string, unknown>, def: FieldUi, where: string): void {
  for (const key of FIELD_UI_OPTIONS) {
    const value = input[key];
    if (value === undefined || value === null) continue;
    if (key === 'interface' && typeof value !== 'string') throw invalid(`${where}: interface must be a string`, where);
    (def as Record<string, JsonValue>)[key] = value as JsonValue;
  }
}

/**
 * Collection options NocoBase uses only to steer its UI and its other plugins (audit logs,
 * categories, templates, backups): accepted, stored, returned, and otherwise ignored.
 * Of them, `key`, `unavailableActions` and `sort` (a list position read back) are dropped.
 */
export const COLLECTION_UI_OPTIONS = [
  'logging', 'template', 'hidden', 'origin', 'category', 'shared', 'titleField', 'key', 'inherit', 'presetFieldsDisabled',
  'isThrough', 'color', 'icon', 'simplePaginate', 'dumpRules', 'migrationRules', 'underscored', 'schema', 'uiSchema', 'unavailableActions', 'sort',
] as const;
export const DROPPED_COLLECTION_OPTIONS: readonly string[] = ['key', 'unavailableActions', 'sort'];

/**
 * The type NocoBase's UI gives a field of each interface when the client sends no `type`
 * (an explicit type wins). Interfaces of the other helpers' automatic fields are not here.
 */
const INTERFACE_TYPES: Readonly<Record<string, string>> = {
  input: 'string', email: 'string', phone: 'string', url: 'string', color: 'string', icon: 'string', select: 'string', radioGroup: 'string',
  textarea: 'text', markdown: 'text', richText: 'text', vditor: 'text', password: 'password', integer: 'bigInt', number: 'double',
  percent: 'float', checkbox: 'boolean', multipleSelect: 'array', checkboxGroup: 'array', json: 'json', datetime: 'date',
  datetimeNoTz: 'date', date: 'dateOnly', time: 'time', uuid: 'uuid', nanoid: 'nanoid', sort: 'sort',
  m2o: 'belongsTo', obo: 'belongsTo', o2m: 'hasMany', oho: 'hasOne', m2m: 'belongsToMany',
};

/** A field input with the type its interface implies, when it has an interface and no type. */
export function withInterfaceType(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const record = input as Record<string, unknown>;
  if (record.type !== undefined || typeof record.interface !== 'string' || !Object.hasOwn(INTERFACE_TYPES, record.interface)) return input;
  return { ...record, type: INTERFACE_TYPES[record.interface] };
}

/**
 * NocoBase options with a meaning Corral does not implement: refused by name rather than
 * accepted and silently ignored. A value that asks for nothing (false, the collection's own
 * name, an empty list) is accepted.
 */
export const UNSUPPORTED_COLLECTION_OPTIONS: Readonly<Record<string, string>> = {
  inherits: 'collection inheritance (inherits) is not supported: define the fields on the collection itself',
  view: 'a view is served read-only over an existing one: register it with managed: false and view: true (docs/existing-databases.md); Corral does not create views',
  viewName: 'view collections (viewName) are not supported',
  writableView: 'view collections (writableView) are not supported',
  sql: 'SQL collections (sql) are not supported',
  tree: 'tree collections (tree) are not supported: add a belongsTo parent and a hasMany children relation',
  paranoid: 'soft deletion (paranoid) is not supported',
  tableName: 'tableName is not supported: the table is named after the collection',
  model: 'custom models (model) are not supported',
  repository: 'custom repositories (repository) are not supported',
  system: 'system is read only: the system collections are Corral\'s own (users, roles, apiKeys, rolesResourcesScopes, webhooks, attachments)',
};

/** Does an unsupported option's value ask for nothing? */
export function asksForNothing(key: string, value: unknown, name: unknown): boolean {
  if (value === undefined || value === null || value === false) return true;
  if (key === 'tableName') return value === name;
  return Array.isArray(value) && value.length === 0;
}

/**
 * `sortable` of a collection as NocoBase reads it: true → a `sort` field named `sort`; a
 * string → that name; `{name, scopeKey}` → that name (the scope is stored, not used: numbers
 * run across the whole table, which keeps the order inside any scope). Undefined: no field.
 */
export function sortFieldName(sortable: unknown): string | undefined {
  if (sortable === undefined || sortable === null || sortable === false) return undefined;
  if (sortable === true) return 'sort';
  if (typeof sortable === 'string' && sortable !== '') return sortable;
  if (typeof sortable === 'object' && !Array.isArray(sortable)) {
    const name = (sortable as Record<string, unknown>).name;
    if (name === undefined) return 'sort';
    if (typeof name === 'string' && name !== '') return name;
  }
  throw invalid('sortable must be true, false, a field name or {"name": …, "scopeKey": …}', 'sortable');
}
