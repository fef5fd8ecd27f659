import { CORRAL_VERSION } from '../version.js';
import { type ActionContext, type ActionResult } from './action-context.js';

export const appActions = {
  getInfo: async (ctx: ActionContext) =>
    ({ kind: 'item', item: { name: 'corral', version: CORRAL_VERSION, dialect: ctx.store.dialect, schemaVersion: ctx.snapshot.version } }),
} satisfies Record<string, (ctx: ActionContext) => Promise<ActionResult>>;
