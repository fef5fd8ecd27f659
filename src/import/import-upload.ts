import { createWriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../errors/api-error.js';
import { UploadTooLarge, type UploadBody } from '../request/upload-body.js';

/** The limits of an import (CORRAL_IMPORT_MAX_BYTES, CORRAL_IMPORT_MAX_ROWS, CORRAL_IMPORT_MAX_UNCOMPRESSED_BYTES). */
export interface ImportLimits {
  readonly maxBytes: number;
  readonly maxRows: number;
  /** What the parts of an XLSX file may inflate to in all. */
  readonly maxUncompressedBytes: number;
}

/** Text parts an import form may carry besides `file` (mode, filterKeys, mapping, format), and their size. */
const MAX_FORM_FIELDS = 10;
const MAX_FORM_FIELD_BYTES = 64 * 1024;

/** An uploaded import file, spooled to a temporary file, with the form's text parts. */
export interface SpooledUpload {
  readonly path: string;
  readonly filename: string;
  readonly mimetype: string;
  readonly bytes: number;
  /** The file's first bytes (a zip's signature tells XLSX). */
  readonly head: Buffer;
  readonly fields: ReadonlyMap<string, string>;
  /** Removes the temporary file (idempotent). */
  remove(): Promise<void>;
}

export function tooLarge(limit: number, setting: string, what: string): ApiError {
  return new ApiError('IMPORT_TOO_LARGE', `the import file has more ${what} than ${limit} (${setting})`, { details: { limit, setting } });
}

/**
 * Reads the multipart body of an import: the `file` part goes to a temporary file as it
 * arrives (so the database transaction never waits on the client, and memory stays flat),
 * at most `maxBytes` of it (413 IMPORT_TOO_LARGE); text parts are kept.
 */
export async function spoolUpload(body: UploadBody, limits: ImportLimits): Promise<SpooledUpload> {
  const dir = await mkdtemp(join(tmpdir(), 'corral-import-'));
  const path = join(dir, 'upload');
  const remove = () => rm(dir, { recursive: true, force: true });
  const fields = new Map<string, string>();
  let file: { filename: string; mimetype: string; bytes: number } | undefined;
  try {
    for await (const part of body.parts({ fileBytes: limits.maxBytes, files: 1, fields: MAX_FORM_FIELDS, fieldBytes: MAX_FORM_FIELD_BYTES })) {
      if (part.kind === 'field') {
        fields.set(part.name, part.value);
        continue;
      }
      if (part.name !== 'file') {
        part.stream.resume();
        throw new ApiError('IMPORT_FILE_INVALID', `the file must be sent in the form part named "file" (got "${part.name.slice(0, 40)}")`);
      }
      let bytes = 0;
      const count = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          bytes += chunk.length;
          if (bytes > limits.maxBytes) done(new UploadTooLarge(limits.maxBytes));
          else done(null, chunk);
        },
      });
      try {
        await pipeline(part.stream, count, createWriteStream(path));
      } catch (error) {
        // A failure of the disk (an errno with a syscall) is the server's; anything else came
        // from the body (busboy's "Unexpected end of form": a body cut before the file ended).
        if (error instanceof UploadTooLarge || (error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string')) throw error;
        throw new ApiError('BODY_INVALID', 'the multipart body ended before the file was complete', { cause: error });
      }
      // busboy ends a file at the limit without an error when the plugin does not raise one.
      if ((part.stream as { truncated?: boolean }).truncated === true) throw new UploadTooLarge(limits.maxBytes);
      file = { filename: part.filename, mimetype: part.mimetype, bytes };
    }
    if (file === undefined) throw new ApiError('IMPORT_FILE_INVALID', 'the form has no file part named "file"');
    const handle = await open(path, 'r');
    const head = Buffer.alloc(4);
    try {
      await handle.read(head, 0, 4, 0);
    } finally {
      await handle.close();
    }
    return { path, ...file, head: head.subarray(0, Math.min(4, file.bytes)), fields, remove };
  } catch (error) {
    await remove();
    if (error instanceof UploadTooLarge || (error instanceof ApiError && error.code === 'PAYLOAD_TOO_LARGE')) throw tooLarge(limits.maxBytes, 'CORRAL_IMPORT_MAX_BYTES', 'bytes');
    throw error;
  }
}
