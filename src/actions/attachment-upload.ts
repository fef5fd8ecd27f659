import type { Readable } from 'node:stream';
import { ApiError } from '../errors/api-error.js';
import { attachmentUrl } from '../files/attachment-definition.js';
import type { AttachmentFiles } from '../files/attachment-files.js';
import { contentKey } from '../files/file-storage.js';
import { extnameOf, safeFilename } from '../files/safe-filename.js';
import { sniffType } from '../files/sniff-type.js';
import { stageUpload, UploadTooLargeError, type StagedUpload } from '../files/stage-upload.js';
import { unlinkQuietly } from '../files/temp-files.js';
import { bindReadShape } from '../plan/bind-read-shape.js';
import { bindWriteValues } from '../plan/bind-write-values.js';
import { acceptsType, isAttachmentRelation } from '../schema/attachment-field.js';
import type { BelongsToMany, Collection, Row } from '../schema/collection.js';
import { deleteWhere } from '../store/write-rows.js';
import { completeCreated, insertItems } from '../store/insert-items.js';
import { createLinked } from '../store/nested-writes.js';
import { eq } from '../store/links.js';
import { serverValues } from '../store/server-values.js';
import type { ActionContext, ActionResult } from './action-context.js';
import { loadScope } from './association-scope.js';
import { createdResult, nestedOptions } from './create-action.js';

/** The multipart part that carries the file (NocoBase's name). */
export const FILE_PART = 'file';

export function filesOf(ctx: ActionContext): AttachmentFiles {
  if (ctx.files === undefined) throw new ApiError('ACTION_NOT_FOUND', 'file uploads are not configured on this server');
  return ctx.files;
}

/**
 * `?attachmentField=posts.files` (NocoBase's parameter) on attachments:create: the upload is
 * checked against that field's `accept` list, as an upload through the association would be.
 */
function namedField(ctx: ActionContext): BelongsToMany | undefined {
  const raw = ctx.request.params.attachmentField;
  if (raw === undefined) return undefined;
  const [collection, field] = raw.split('.');
  const relation = field === undefined ? undefined : ctx.snapshot.get(collection!)?.relations.get(field);
  if (relation === undefined || relation.type !== 'belongsToMany' || !isAttachmentRelation(relation.def)) {
    throw new ApiError('PARAM_INVALID', `attachmentField must name an attachment field as <collection>.<field>`, { field: 'attachmentField' });
  }
  return relation;
}

/**
 * Reads the file part of a multipart body into a staged temp file (counted, hashed, never
 * buffered whole), sniffs its type and checks it against `accept`. 415 for a body that is not
 * multipart, 413 FILE_TOO_LARGE past CORRAL_UPLOAD_MAX_BYTES, 415 FILE_TYPE_NOT_ALLOWED.
 */
async function stageFile(ctx: ActionContext, files: AttachmentFiles, accept: readonly string[] | undefined): Promise<{ staged: StagedUpload; filename: string }> {
  const upload = ctx.request.upload;
  if (upload === undefined) throw new ApiError('UNSUPPORTED_MEDIA_TYPE', `an upload is a multipart/form-data body with the file in a part named ${FILE_PART}`);
  const part = await upload();
  if (part === undefined) throw new ApiError('BODY_INVALID', `the multipart body has no file part (send the file in a part named ${FILE_PART})`);
  if (part.field !== FILE_PART) {
    part.stream.resume();
    throw new ApiError('BODY_INVALID', `the file must be in a part named ${FILE_PART} (got ${part.field.slice(0, 60)})`, { field: FILE_PART });
  }
  let staged: StagedUpload;
  try {
    staged = await stageUpload(files.storage, part.stream as Readable, { maxBytes: files.maxBytes, ...(part.mimetype === undefined ? {} : { mimetype: part.mimetype }) });
  } catch (error) {
    if (error instanceof UploadTooLargeError) throw new ApiError('FILE_TOO_LARGE', `the file is larger than ${files.maxBytes} bytes (CORRAL_UPLOAD_MAX_BYTES)`, { details: { limit: files.maxBytes } });
    // A failure of the disk (an errno with a syscall) is the server's; anything else came from the body.
    if (error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string') throw error;
    throw new ApiError('BODY_INVALID', 'the multipart body ended before the file was complete', { cause: error });
  }
  const mimetype = sniffType(staged.head, part.mimetype);
  staged.file.mimetype = mimetype;
  if (!acceptsType(accept, mimetype)) {
    await unlinkQuietly(staged.file.tempPath);
    throw new ApiError('FILE_TYPE_NOT_ALLOWED', `this field takes ${accept!.join(', ')}; the file's content is ${mimetype}`, { details: { accept: [...accept!], detected: mimetype } });
  }
  return { staged, filename: safeFilename(part.filename) };
}


/**
 * attachments:create, and create on an attachment field's association (`POST
 * /api/posts/1/files:create`): the bytes go to the storage first (under the key's lock), then
 * the row (and its link) in one transaction; a failed transaction releases the bytes again.
 */
export async function uploadAction(ctx: ActionContext, attachments: Collection, relation?: BelongsToMany): Promise<ActionResult> {
  const files = filesOf(ctx);
  const field = relation ?? namedField(ctx);
  // Refused by the store before the body is read: a caller who may not create attachments uploads nothing.
  ctx.store.read(ctx).require(attachments, 'create');
  // A source the caller cannot update (or that does not exist) is 404 before any byte is read.
  if (relation !== undefined) await loadScope(ctx, relation, ctx.store.read(ctx), 'update');
  const { staged, filename } = await stageFile(ctx, files, field?.def.attachment?.accept);
  const now = new Date();
  const { file } = staged;
  const key = contentKey(file.sha256);
  const extname = extnameOf(filename);
  const values = { filename, ...(extname === undefined ? {} : { extname }), mimetype: file.mimetype, size: file.size, sha256: file.sha256, storage: files.storage.name, path: key };
  let bound;
  try {
    bound = await bindWriteValues(attachments, serverValues(values), 'create', now);
  } catch (error) {
    await unlinkQuietly(file.tempPath);
    throw error;
  }
  const options = nestedOptions(ctx.request.params, now);
  const rows = await files.locks.run(key, async () => {
    await files.storage.put(file);
    try {
      return await ctx.store.write(ctx, attachments, async (unit) => {
        let created: Row[];
        if (relation === undefined) created = await insertItems(unit, attachments, [bound]);
        else {
          const source = await loadScope(ctx, relation, unit, 'update');
          // One file only: the new one replaces the link to the one before (its row stays).
          if (relation.def.attachment?.multiple === false) await deleteWhere(unit, relation.through, eq(relation.foreignKey, source.anchor), 'through');
          created = await createLinked(unit, source, [bound], options);
        }
        const row = created[0]!;
        const url = attachmentUrl(files.prefix, row[attachments.key.name]);
        await completeCreated(unit, attachments, row[attachments.key.name], { url });
        row.url = url;
        return created;
      });
    } catch (error) {
      await files.releaseLocked(key).catch((releaseError: unknown) => ctx.log.error({ err: releaseError }, 'releasing the bytes of a failed upload failed (the orphan sweep removes them)'));
      throw error;
    }
  });
  const shape = bindReadShape(attachments, undefined, undefined, ctx.request.params.appends);
  return createdResult(ctx, attachments, shape, rows, false);
}
