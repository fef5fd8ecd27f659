import { ApiError } from '../errors/api-error.js';
import { describeRows, listInMemory } from '../plan/in-memory-list.js';
import type { Item } from '../schema/collection.js';
import { exportSchema } from '../schema/schema-export.js';
import type { CollectionDef, FieldDef, RelationDef } from '../schema/types.js';
import type { ActionContext, ActionResult, Data } from './action-context.js';

const item = (data: Data): ActionResult => ({ kind: 'item', item: data });

/**
 * The schema's own rows, described as collections so that `filter`, `sort`, `fields`,
 * `except` and paging work on collections:list and fields:list as on any list.
 */
const COLLECTION_ROWS = describeRows('collections', 'name', {
  name: 'string', title: 'string', description: 'text', timestamps: 'boolean', autoGenId: 'boolean', idType: 'string', filterTargetKey: 'string', fields: 'json',
});
const FIELD_ROWS = describeRows('fields', 'name', {
  name: 'string', type: 'string', title: 'string', description: 'text', allowNull: 'boolean', unique: 'boolean', index: 'boolean', defaultValue: 'json',
  min: 'double', max: 'double', minLength: 'integer', maxLength: 'integer', pattern: 'string', enum: 'json', length: 'integer', precision: 'integer',
  scale: 'integer', primaryKey: 'boolean', autoIncrement: 'boolean', system: 'string', references: 'json', target: 'string', foreignKey: 'string',
  sourceKey: 'string', targetKey: 'string', through: 'string', otherKey: 'string', onDelete: 'string',
});

/** Schema lists are small (the definitions are in memory); they filter, sort and page like any list. */
function page(ctx: ActionContext, rows: typeof COLLECTION_ROWS, items: object[]): ActionResult {
  const { items: data, paging } = listInMemory(rows, items as Item[], ctx.request.params);
  return paging === undefined ? { kind: 'items', items: data } : { kind: 'page', items: data, paging };
}

function singleKey(ctx: ActionContext, what: string): string {
  const keys = ctx.request.keys;
  if (keys === undefined) throw new ApiError('KEY_REQUIRED', `name the ${what} (path or filterByTk)`);
  if (Array.isArray(keys)) {
    if (keys.length !== 1) throw new ApiError('KEY_INVALID', `name exactly one ${what}`);
    return String(keys[0]);
  }
  return String(keys);
}

function keysOf(ctx: ActionContext): Set<string> | undefined {
  const keys = ctx.request.keys;
  if (keys === undefined) return undefined;
  return new Set((Array.isArray(keys) ? keys : [keys]).map(String));
}

function findCollection(ctx: ActionContext, name: string): CollectionDef {
  const collection = ctx.schema.snapshot.get(name);
  if (collection === undefined) throw new ApiError('COLLECTION_NOT_FOUND', `collection ${name} does not exist`);
  return collection.def;
}

/** Fields as clients see them: scalar fields, then relation fields, each with resolved options. */
function fieldsOf(def: CollectionDef): (FieldDef | RelationDef)[] {
  return [...def.fields, ...(def.relations ?? [])];
}

/** The public shape of a collection: relations are listed among its fields. */
export function publicCollection(def: CollectionDef): Record<string, unknown> {
  const { relations: _relations, uniques: _uniques, ...rest } = def;
  return { ...rest, fields: fieldsOf(def) };
}

export const collectionsActions = {
  list: async (ctx: ActionContext) => {
    const keys = keysOf(ctx);
    const defs = ctx.schema.snapshot.defs.filter((def) => keys === undefined || keys.has(def.name));
    return page(ctx, COLLECTION_ROWS, defs.map(publicCollection));
  },
  get: async (ctx: ActionContext) => item(publicCollection(findCollection(ctx, singleKey(ctx, 'collection')))),
  create: async (ctx: ActionContext) => {
    const def = await ctx.schema.createCollection(ctx.request.body);
    return { kind: 'created', item: publicCollection(def), location: ['collections', def.name] };
  },
  update: async (ctx: ActionContext) => item(publicCollection(await ctx.schema.updateCollection(singleKey(ctx, 'collection'), ctx.request.body ?? {}))),
  /** The schema file (not an envelope: it is what CORRAL_SCHEMA applies, ready to save). */
  export: async (ctx: ActionContext): Promise<ActionResult> => ({ kind: 'document', body: exportSchema(ctx.snapshot.defs) }),
  destroy: async (ctx: ActionContext) => {
    await ctx.schema.dropCollection(singleKey(ctx, 'collection'), ctx.request.params.cascade);
    return { kind: 'count', n: 1 };
  },
} satisfies Record<string, (ctx: ActionContext) => Promise<ActionResult>>;

function sourceName(ctx: ActionContext): string {
  return ctx.request.path.sourceKey!;
}

function findField(ctx: ActionContext): FieldDef | RelationDef {
  const name = singleKey(ctx, 'field');
  const field = fieldsOf(findCollection(ctx, sourceName(ctx))).find((candidate) => candidate.name === name);
  if (field === undefined) throw new ApiError('FIELD_NOT_FOUND', `field ${name} does not exist in ${sourceName(ctx)}`);
  return field;
}

export const fieldsActions = {
  list: async (ctx: ActionContext) => {
    const keys = keysOf(ctx);
    return page(ctx, FIELD_ROWS, fieldsOf(findCollection(ctx, sourceName(ctx))).filter((field) => keys === undefined || keys.has(field.name)));
  },
  get: async (ctx: ActionContext) => item(findField(ctx)),
  create: async (ctx: ActionContext) => {
    const field = await ctx.schema.createField(sourceName(ctx), ctx.request.body);
    return { kind: 'created', item: field, location: ['collections', sourceName(ctx), 'fields', field.name] };
  },
  update: async (ctx: ActionContext) => {
    findField(ctx);
    return item(await ctx.schema.updateField(sourceName(ctx), singleKey(ctx, 'field'), ctx.request.body ?? {}));
  },
  destroy: async (ctx: ActionContext) => {
    findField(ctx);
    await ctx.schema.dropField(sourceName(ctx), singleKey(ctx, 'field'));
    return { kind: 'count', n: 1 };
  },
} satisfies Record<string, (ctx: ActionContext) => Promise<ActionResult>>;
