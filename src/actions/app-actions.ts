import { CORRAL_VERSION } from '../version.js';
import { json, type ActionContext, type ActionResult } from './action-context.js';

export const appActions = {
  getInfo: async (ctx: ActionContext) =>
    json({ data: { name: 'corral', version: CORRAL_VERSION, dialect: ctx.store.database.dialect, schemaVersion: ctx.snapshot.version } }),
} satisfies Record<string, (ctx: ActionContext) => Promise<ActionResult>>;
