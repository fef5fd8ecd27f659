import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import { generatedFieldName } from '../schema/reverse-field.js';
import { exportSchema } from '../schema/schema-export.js';
import type { ActionContext, ActionResult, Data } from './action-context.js';
import { COLLECTION_ROWS, findCollection, keysOf, page, publicCollection, singleKey, withPositions } from './schema-rows.js';

export { fieldsActions, allFieldsActions } from './field-actions.js';

const item = (data: Data): ActionResult => ({ kind: 'item', item: data });

export const collectionsActions = {
  list: async (ctx: ActionContext) => {
    const keys = keysOf(ctx);
    return page(ctx, COLLECTION_ROWS, withPositions(ctx.schema.snapshot.defs.map(publicCollection)).filter((c) => keys === undefined || keys.has(c.name as string)));
  },
  /** NocoBase's client loads every collection with its fields at once: the list, never paged. */
  listMeta: async (ctx: ActionContext): Promise<ActionResult> => ({ kind: 'items', items: withPositions(ctx.schema.snapshot.defs.map(publicCollection)) }),
  get: async (ctx: ActionContext) => item(publicCollection(findCollection(ctx, singleKey(ctx, 'collection')))),
  create: async (ctx: ActionContext) => {
    // NocoBase names a collection created without a name `t_` and 11 random characters.
    const body = isRecord(ctx.request.body) && ctx.request.body.name === undefined ? { ...ctx.request.body, name: `t${generatedFieldName().slice(1)}` } : ctx.request.body;
    const def = await ctx.schema.createCollection(body);
    return { kind: 'created', item: publicCollection(def), location: ['collections', def.name] };
  },
  update: async (ctx: ActionContext) => item(publicCollection(await ctx.schema.updateCollection(singleKey(ctx, 'collection'), ctx.request.body ?? {}))),
  /**
   * Replaces the collection's `indexes` (`POST collections:setIndexes/<name>`, body
   * `{indexes: [{fields, unique?, name?}]}` or the bare array): changed ones are rebuilt.
   */
  setIndexes: async (ctx: ActionContext) => {
    const body = ctx.request.body;
    const indexes = isRecord(body) ? body.indexes : body;
    if (indexes === undefined) throw new ApiError('BODY_INVALID', 'send {"indexes": [{"fields": [...], "unique"?: true, "name"?: "..."}]} ([] removes them all)');
    return item(publicCollection(await ctx.schema.setIndexes(singleKey(ctx, 'collection'), indexes)));
  },
  /** The schema file (not an envelope: it is what CORRAL_SCHEMA applies, ready to save). */
  export: async (ctx: ActionContext): Promise<ActionResult> => ({ kind: 'document', body: exportSchema(ctx.snapshot.defs) }),
  /**
   * Re-reads the database's catalogue (`POST collections:sync`, root only): tables added,
   * changed and removed since are served at once, on every worker and node (docs/existing-databases.md#sync).
   */
  sync: async (ctx: ActionContext) => {
    // A grant of the root role alone (store/root-only.ts), evaluated by the store.
    ctx.store.read(ctx).requireRootOnly('collections:sync');
    return item(await ctx.schema.syncIntrospected());
  },
  destroy: async (ctx: ActionContext) => {
    await ctx.schema.dropCollection(singleKey(ctx, 'collection'), ctx.request.params.cascade);
    return { kind: 'count', n: 1 };
  },
} satisfies Record<string, (ctx: ActionContext) => Promise<ActionResult>>;
