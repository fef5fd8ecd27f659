import { ApiError } from '../errors/api-error.js';
import { FileMissingError } from '../files/file-storage.js';
import { lastModifiedOf, rangeApplies } from '../files/if-range.js';
import { contentDisposition } from '../files/safe-filename.js';
import { isInlineType } from '../files/sniff-type.js';
import { parseKeys } from '../plan/bind-keys.js';
import { noneMatch, parseTagCondition } from '../request/entity-tag.js';
import { parseRange } from '../request/byte-range.js';
import type { Collection, Row } from '../schema/collection.js';
import { eq } from '../store/links.js';
import { selectWhere } from '../store/write-rows.js';
import type { ActionContext, ActionResult } from './action-context.js';
import { filesOf } from './attachment-upload.js';

/**
 * The attachment row named in the path, read as the caller: the store's `view` scope of
 * attachments is "a visible owning row whose attachment field the caller may read, or its own
 * unlinked upload" (store/owned-rows.ts). A row out of that scope is 404, exactly as a missing one.
 */
export async function readableAttachment(ctx: ActionContext, attachments: Collection): Promise<Row> {
  const [id] = parseKeys(attachments, ctx.request.path.sourceKey!);
  const [row] = await selectWhere(ctx.store.read(ctx), attachments, attachments.fieldList, eq(attachments.key, id));
  if (row === undefined) throw new ApiError('RECORD_NOT_FOUND', `no ${attachments.name} record matches`);
  return row;
}

/**
 * `GET /api/attachments/<id>/content`: the bytes with their type, a disposition that never lets
 * a browser run them (inline only for raster images, PDF and plain text), `nosniff`, a strong
 * ETag of the sha256 (304 on If-None-Match), one byte range (206, or 416 past the end) unless
 * If-Range names another representation (src/files/if-range.ts), HEAD.
 */
export async function contentAction(ctx: ActionContext, attachments: Collection): Promise<ActionResult> {
  const files = filesOf(ctx);
  const row = await readableAttachment(ctx, attachments);
  const size = Number(row.size);
  const mimetype = String(row.mimetype);
  const tag = `"${String(row.sha256)}"`;
  const headers: Record<string, string> = {
    etag: tag,
    'accept-ranges': 'bytes',
    'cache-control': 'private, no-cache',
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
    'content-disposition': contentDisposition(isInlineType(mimetype) ? 'inline' : 'attachment', String(row.filename)),
    vary: 'Authorization, X-Role',
  };
  const lastModified = lastModifiedOf(row.createdAt);
  if (lastModified !== undefined) headers['last-modified'] = lastModified;
  const download = ctx.request.download ?? {};
  const condition = parseTagCondition('If-None-Match', download.ifNoneMatch);
  if (condition !== undefined && !noneMatch(condition, tag)) return { kind: 'content', status: 304, headers };
  const wanted = rangeApplies(download.ifRange, tag, lastModified) ? parseRange(download.range, size) : { kind: 'whole' as const };
  if (wanted.kind === 'unsatisfiable') {
    throw new ApiError('RANGE_NOT_SATISFIABLE', `the range lies past the end of the file (${size} bytes)`, { headers: { 'content-range': `bytes */${size}`, etag: tag }, details: { size } });
  }
  const range = wanted.kind === 'range' ? wanted.range : undefined;
  const length = range === undefined ? size : range.end - range.start + 1;
  const typed: Record<string, string> = { ...headers, 'content-type': mimetype === 'text/plain' ? 'text/plain; charset=utf-8' : mimetype, 'content-length': String(length) };
  if (range !== undefined) typed['content-range'] = `bytes ${range.start}-${range.end}/${size}`;
  const status = range === undefined ? 200 : 206;
  if (ctx.request.method === 'HEAD' || length === 0) return { kind: 'content', status, headers: typed };
  try {
    return { kind: 'content', status, headers: typed, stream: await files.storage.read(String(row.path), range) };
  } catch (error) {
    if (error instanceof FileMissingError) {
      ctx.log.error({ err: error, attachment: row.id }, 'an attachment row names bytes the storage does not hold');
      throw new ApiError('FILE_MISSING', 'the bytes of this file are missing from the storage', { cause: error });
    }
    throw error;
  }
}
