import { ApiError } from '../errors/api-error.js';
import { safeFilename } from '../files/safe-filename.js';
import { isRecord } from '../is-record.js';
import type { Collection } from '../schema/collection.js';
import type { ActionContext, ActionResult } from './action-context.js';
import { contentAction } from './attachment-content.js';
import { uploadAction } from './attachment-upload.js';
import { updateAction } from './update-action.js';

type Run = (ctx: ActionContext) => Promise<ActionResult>;

/** What a client may change of an attachment: its name. The rest describes the stored bytes. */
const WRITABLE = new Set(['filename']);

/** attachments:update: the filename only (sanitised as on upload); any other field is 400. */
async function renameAction(ctx: ActionContext, attachments: Collection): Promise<ActionResult> {
  const body = ctx.request.body;
  if (!isRecord(body)) throw new ApiError('BODY_INVALID', 'update takes an object');
  for (const name of Object.keys(body)) {
    if (name === attachments.key.name) continue;
    if (!WRITABLE.has(name)) throw new ApiError('VALUE_UNKNOWN_FIELD', `an attachment's ${name} describes its stored bytes; only filename may change`, { field: name });
  }
  const filename = body.filename;
  if (filename !== undefined && typeof filename !== 'string') throw new ApiError('VALIDATION_FAILED', 'filename must be a string', { field: 'filename' });
  const renamed = filename === undefined ? {} : { filename: safeFilename(filename) };
  return updateAction({ ...ctx, request: { ...ctx.request, body: renamed } }, attachments);
}

/**
 * The attachments collection's own actions: create is an upload (multipart), update renames,
 * `<id>/content` downloads; list, get, count and destroy are the usual ones.
 */
export function attachmentActions(attachments: Collection, association: string | undefined): { toOne: boolean; actions: Partial<Record<string, Run>> } | undefined {
  if (association === undefined) {
    return { toOne: false, actions: { create: (ctx) => uploadAction(ctx, attachments), update: (ctx) => renameAction(ctx, attachments) } };
  }
  if (association === 'content') return { toOne: true, actions: { get: (ctx) => contentAction(ctx, attachments) } };
  return undefined;
}
