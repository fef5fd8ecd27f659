import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { StagedFile } from './file-storage.js';
import { tempPath, unlinkQuietly } from './temp-files.js';

/** How many leading bytes `stageUpload` keeps for sniffing the type (file-type reads up to 4100). */
export const HEAD_BYTES = 4100;

/** An upload passed its byte limit; its temp file is already removed. */
export class UploadTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`upload is larger than ${limit} bytes`);
    this.name = 'UploadTooLargeError';
  }
}

export interface StageOptions {
  /** Most bytes accepted; one more rejects with `UploadTooLargeError`. */
  maxBytes: number;
  /** The staged file's type, as far as it is known yet (the client's header; sniffing may replace it). */
  mimetype?: string;
}

export interface StagedUpload {
  file: StagedFile;
  /** The first up to 4100 bytes, for checking the content's magic bytes against the claimed type. */
  head: Buffer;
}

/**
 * Streams `source` into a new temp file in `storage.tempDir()`, counting and hashing as it goes,
 * and resolves once the file is complete on disk. Past `maxBytes`, or when the source fails, it
 * stops reading (the source is destroyed), removes the temp file and rejects; memory stays flat.
 */
export async function stageUpload(
  storage: { tempDir(): string },
  source: Readable,
  options: StageOptions,
): Promise<StagedUpload> {
  // An error the source emits while the temp file is still opening is kept (reading then reports it), not thrown.
  let sourceError: unknown;
  const keep = (error: unknown): void => {
    sourceError ??= error;
  };
  source.on('error', keep);
  const path = tempPath(storage.tempDir());
  let handle: FileHandle;
  try {
    handle = await open(path, 'wx', 0o600);
  } catch (error) {
    source.off('error', keep);
    source.destroy();
    throw error;
  }
  const hash = createHash('sha256');
  const head: Buffer[] = [];
  let headLength = 0;
  let size = 0;
  try {
    for await (const chunk of source) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += bytes.length;
      if (size > options.maxBytes) throw new UploadTooLargeError(options.maxBytes);
      if (headLength < HEAD_BYTES) {
        const part = bytes.subarray(0, HEAD_BYTES - headLength);
        head.push(Buffer.from(part));
        headLength += part.length;
      }
      hash.update(bytes);
      await writeAll(handle, bytes);
    }
    if (sourceError !== undefined) throw sourceError;
    await handle.close();
  } catch (error) {
    source.destroy();
    await handle.close().catch(() => undefined);
    await unlinkQuietly(path);
    throw error;
  } finally {
    source.off('error', keep);
  }
  return {
    file: { tempPath: path, size, sha256: hash.digest('hex'), mimetype: options.mimetype ?? 'application/octet-stream' },
    head: Buffer.concat(head, headLength),
  };
}

async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}
