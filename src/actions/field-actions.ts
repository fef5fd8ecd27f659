import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import { generatedFieldName } from '../schema/reverse-field.js';
import { withInterfaceType } from '../schema/ui-options.js';
import { listInMemory } from '../plan/in-memory-list.js';
import type { Item } from '../schema/collection.js';
import type { ActionContext, ActionResult, Data } from './action-context.js';
import { ALL_FIELD_ROWS, fieldsOf, findCollection, FIELD_ROWS, keysOf, page, publicField, singleKey, splitFieldKey, withPositions } from './schema-rows.js';

type Address = { collection: string; field: string };

const item = (data: Data): ActionResult => ({ kind: 'item', item: data });

function sourceName(ctx: ActionContext): string {
  return ctx.request.path.sourceKey!;
}

/** The field definitions of a collection, as clients see them. */
function publicFields(ctx: ActionContext, collection: string): Record<string, unknown>[] {
  return fieldsOf(findCollection(ctx, collection));
}

function requireField(ctx: ActionContext, { collection, field }: Address): Record<string, unknown> {
  const found = publicFields(ctx, collection).find((candidate) => candidate.name === field);
  if (found === undefined) throw new ApiError('FIELD_NOT_FOUND', `field ${field} does not exist in ${collection}`);
  return found;
}

/** Under `collections/<name>/fields` a field is named by its name or by its key (`<collection>.<field>`). */
function inCollection(ctx: ActionContext, key: string): Address {
  const split = splitFieldKey(key);
  if (split !== undefined && split.collection !== sourceName(ctx)) throw new ApiError('FIELD_NOT_FOUND', `field ${key} does not belong to ${sourceName(ctx)}`);
  return { collection: sourceName(ctx), field: split?.field ?? key };
}

/**
 * The body of a field create: `collectionName`, when sent, must be the collection created
 * in; a missing name is generated as NocoBase does (`f_` and 11 random characters), and a
 * missing type is the one its `interface` implies.
 */
function createBody(given: unknown, collection: string): unknown {
  const body = withInterfaceType(given);
  if (!isRecord(body)) return body;
  if (body.collectionName !== undefined && body.collectionName !== collection) {
    throw new ApiError('SCHEMA_INVALID', `collectionName ${String(body.collectionName)} is not ${collection}`, { field: 'collectionName' });
  }
  return body.name === undefined ? { ...body, name: generatedFieldName() } : body;
}

async function create(ctx: ActionContext, collection: string): Promise<ActionResult> {
  const field = await ctx.schema.createField(collection, createBody(ctx.request.body, collection));
  return { kind: 'created', item: publicField(collection, field), location: ['collections', collection, 'fields', field.name] };
}

async function update(ctx: ActionContext, address: Address): Promise<ActionResult> {
  requireField(ctx, address);
  const body = ctx.request.body ?? {};
  if (isRecord(body) && body.collectionName !== undefined && body.collectionName !== address.collection) {
    throw new ApiError('SCHEMA_INVALID', 'a field cannot move to another collection', { field: 'collectionName' });
  }
  return item(publicField(address.collection, await ctx.schema.updateField(address.collection, address.field, body)));
}

async function destroy(ctx: ActionContext, address: Address): Promise<ActionResult> {
  requireField(ctx, address);
  await ctx.schema.dropField(address.collection, address.field);
  return { kind: 'count', n: 1 };
}

/** `collections/<name>/fields` (key: the field name). */
export const fieldsActions = {
  list: async (ctx: ActionContext) => {
    const keys = keysOf(ctx);
    const names = keys === undefined ? undefined : new Set([...keys].map((key) => inCollection(ctx, key).field));
    return page(ctx, FIELD_ROWS, withPositions(publicFields(ctx, sourceName(ctx))).filter((field) => names === undefined || names.has(field.name as string)));
  },
  get: async (ctx: ActionContext) => item(requireField(ctx, inCollection(ctx, singleKey(ctx, 'field')))),
  create: async (ctx: ActionContext) => create(ctx, sourceName(ctx)),
  update: async (ctx: ActionContext) => update(ctx, inCollection(ctx, singleKey(ctx, 'field'))),
  destroy: async (ctx: ActionContext) => destroy(ctx, inCollection(ctx, singleKey(ctx, 'field'))),
} satisfies Record<string, (ctx: ActionContext) => Promise<ActionResult>>;

function allFields(ctx: ActionContext): Record<string, unknown>[] {
  return ctx.schema.snapshot.defs.flatMap((def) => withPositions(fieldsOf(def)));
}

/**
 * The one field a `fields:get|update|destroy` names: `filterByTk=<collection>.<field>`, or a
 * filter matching exactly one field (`filter[collectionName]=posts&filter[name]=title`).
 */
function addressed(ctx: ActionContext): Address {
  if (ctx.request.keys !== undefined) {
    const key = singleKey(ctx, 'field');
    const split = splitFieldKey(key);
    if (split === undefined) throw new ApiError('KEY_INVALID', `a field key is <collection>.<field>, not ${key}`);
    return { collection: split.collection, field: split.field };
  }
  if (ctx.request.params.filter === undefined) throw new ApiError('KEY_REQUIRED', 'name the field (filterByTk=<collection>.<field>, or a filter)');
  const { items } = listInMemory(ALL_FIELD_ROWS, allFields(ctx) as Item[], { ...ctx.request.params, paginate: false, fields: undefined, except: undefined });
  if (items.length === 0) throw new ApiError('FIELD_NOT_FOUND', 'no field matches the filter');
  if (items.length > 1) throw new ApiError('KEY_INVALID', `the filter matches ${items.length} fields; name exactly one`);
  return { collection: String(items[0]!.collectionName), field: String(items[0]!.name) };
}

/** NocoBase's `fields` resource: every collection's fields, keyed by `<collection>.<field>`. */
export const allFieldsActions = {
  list: async (ctx: ActionContext) => {
    const keys = keysOf(ctx);
    return page(ctx, ALL_FIELD_ROWS, allFields(ctx).filter((field) => keys === undefined || keys.has(field.key as string)));
  },
  get: async (ctx: ActionContext) => item(requireField(ctx, addressed(ctx))),
  create: async (ctx: ActionContext) => {
    const body = ctx.request.body;
    const collection = isRecord(body) ? body.collectionName : undefined;
    if (typeof collection !== 'string') throw new ApiError('SCHEMA_INVALID', 'fields:create needs collectionName', { field: 'collectionName' });
    findCollection(ctx, collection);
    return create(ctx, collection);
  },
  update: async (ctx: ActionContext) => update(ctx, addressed(ctx)),
  destroy: async (ctx: ActionContext) => destroy(ctx, addressed(ctx)),
} satisfies Record<string, (ctx: ActionContext) => Promise<ActionResult>>;
