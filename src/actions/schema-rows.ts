import { ApiError } from '../errors/api-error.js';
import { describeRows, listInMemory } from '../plan/in-memory-list.js';
import type { Item } from '../schema/collection.js';
import { isBuiltInField, isSystemCollection } from '../schema/protected.js';
import type { CollectionDef, FieldDef, RelationDef } from '../schema/types.js';
import type { ActionContext, ActionResult } from './action-context.js';

/**
 * The schema's own rows, described as collections so that `filter`, `sort`, `fields`,
 * `except` and paging work on collections:list and fields:list as on any list.
 */
export const COLLECTION_ROWS = describeRows('collections', 'name', {
  name: 'string', title: 'string', description: 'text', timestamps: 'boolean', autoGenId: 'boolean', idType: 'string', filterTargetKey: 'string', fields: 'json',
  sortable: 'json', indexes: 'json', logging: 'boolean', hidden: 'boolean', template: 'string', origin: 'string', category: 'json', unavailableActions: 'json', sort: 'integer',
  system: 'boolean',
});
const FIELD_COLUMNS = {
  name: 'string', type: 'string', title: 'string', description: 'text', allowNull: 'boolean', unique: 'boolean', index: 'boolean', defaultValue: 'json',
  min: 'double', max: 'double', minLength: 'integer', maxLength: 'integer', pattern: 'string', enum: 'json', length: 'integer', precision: 'integer',
  scale: 'integer', primaryKey: 'boolean', autoIncrement: 'boolean', system: 'string', references: 'json', target: 'string', foreignKey: 'string',
  sourceKey: 'string', targetKey: 'string', through: 'string', otherKey: 'string', onDelete: 'string', sortable: 'boolean', sortBy: 'json',
  interface: 'string', uiSchema: 'json', collectionName: 'string', key: 'string', sort: 'integer', builtIn: 'boolean',
} as const;
/** A collection's fields, keyed by name (`collections/<name>/fields`). */
export const FIELD_ROWS = describeRows('fields', 'name', FIELD_COLUMNS);
/** Every collection's fields, keyed by `key` (NocoBase's `fields` resource). */
export const ALL_FIELD_ROWS = describeRows('fields', 'key', FIELD_COLUMNS);

/**
 * List rows carry `sort`, their position in definition order (1-based), as NocoBase's rows
 * do: its clients list collections and fields with `sort=sort`.
 */
export function withPositions(items: Record<string, unknown>[]): Record<string, unknown>[] {
  return items.map((item, index) => ({ ...item, sort: index + 1 }));
}

/** Schema lists are small (the definitions are in memory); they filter, sort and page like any list. */
export function page(ctx: ActionContext, rows: typeof COLLECTION_ROWS, items: object[]): ActionResult {
  const { items: data, paging } = listInMemory(rows, items as Item[], ctx.request.params);
  return paging === undefined ? { kind: 'items', items: data } : { kind: 'page', items: data, paging };
}

export function singleKey(ctx: ActionContext, what: string): string {
  const keys = ctx.request.keys;
  if (keys === undefined) throw new ApiError('KEY_REQUIRED', `name the ${what} (path or filterByTk)`);
  if (Array.isArray(keys)) {
    if (keys.length !== 1) throw new ApiError('KEY_INVALID', `name exactly one ${what}`);
    return String(keys[0]);
  }
  return String(keys);
}

export function keysOf(ctx: ActionContext): Set<string> | undefined {
  const keys = ctx.request.keys;
  if (keys === undefined) return undefined;
  return new Set((Array.isArray(keys) ? keys : [keys]).map(String));
}

export function findCollection(ctx: ActionContext, name: string): CollectionDef {
  const collection = ctx.schema.snapshot.get(name);
  if (collection === undefined) throw new ApiError('COLLECTION_NOT_FOUND', `collection ${name} does not exist`);
  return collection.def;
}

/**
 * A field's key in NocoBase's `fields` resource: `<collection>.<field>` (NocoBase uses a
 * random uid; clients only send back what they read). Names hold no dot, so it splits back.
 */
export function fieldKey(collection: string, field: string): string {
  return `${collection}.${field}`;
}

export function splitFieldKey(key: string): { collection: string; field: string } | undefined {
  const dot = key.indexOf('.');
  return dot <= 0 || dot === key.length - 1 ? undefined : { collection: key.slice(0, dot), field: key.slice(dot + 1) };
}

/** A field as clients see it: its definition, with the collection it belongs to, its key, and `builtIn: true` on a system collection's own fields. */
export function publicField(collection: string, field: FieldDef | RelationDef): Record<string, unknown> {
  return { ...field, collectionName: collection, key: fieldKey(collection, field.name), ...(isBuiltInField(collection, field) ? { builtIn: true } : {}) };
}

/** Fields as clients see them: scalar fields, then relation fields, each with resolved options. */
export function fieldsOf(def: CollectionDef): Record<string, unknown>[] {
  return [...def.fields, ...(def.relations ?? [])].map((field) => publicField(def.name, field));
}

/**
 * The public shape of a collection: relations are listed among its fields, UI options at
 * the top level, and `unavailableActions` as NocoBase lists it (none: every collection here
 * is a table that takes every action; only NocoBase's view and SQL collections list some).
 * A system collection says `system: true` (never dropped or renamed through the API).
 */
export function publicCollection(def: CollectionDef): Record<string, unknown> {
  const { relations: _relations, uniques: _uniques, options, indexes, ...rest } = def;
  const system = isSystemCollection(def.name) ? { system: true } : {};
  return { ...options, ...rest, ...system, fields: fieldsOf(def), ...(indexes === undefined ? {} : { indexes }), unavailableActions: [] };
}
