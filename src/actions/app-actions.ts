import { readFileSync } from 'node:fs';
import { json, type ActionContext, type ActionResult } from './action-context.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export const CORRAL_VERSION = packageJson.version;

export const appActions = {
  getInfo: async (ctx: ActionContext) =>
    json({ data: { name: 'corral', version: CORRAL_VERSION, dialect: ctx.database.dialect, schemaVersion: ctx.snapshot.version } }),
} satisfies Record<string, (ctx: ActionContext) => Promise<ActionResult>>;
