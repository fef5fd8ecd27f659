import type { Readable } from 'node:stream';

/** What a finished upload is known by before it is stored: counted and hashed while it streamed to a temp file. */
export interface StagedFile {
  /** A file on local disk, complete; `put` takes it over (moves or uploads, then removes it). */
  tempPath: string;
  size: number;
  /** Lower-case hex sha256 of the bytes. */
  sha256: string;
  mimetype: string;
}

/** An inclusive byte range, already checked against the object's size. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where attachment bytes live (docs/files.md). Objects are content-addressed: the key is derived
 * from the sha256, so one stored object may back several attachment rows, and `put` of bytes
 * already stored keeps the one copy. Implementations: `local` (a directory), `s3`.
 */
export interface FileStorage {
  /** `local` or `s3`: stored on each attachment row (`storage`). */
  readonly name: string;
  /** Stores a staged file under its content key and returns the key; never leaves a partial object under that key. */
  put(file: StagedFile): Promise<string>;
  /** The object's bytes, or one range of them; rejects with a `FileMissingError` when the key is not stored. */
  read(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes the object; a key that is not stored is not an error. */
  remove(key: string): Promise<void>;
  /** Every stored key with its last-modified time, for collecting orphans (a crash between storing and committing). */
  list(): AsyncIterable<{ key: string; modified: Date }>;
}

/** `read` of a key that is not stored. */
export class FileMissingError extends Error {
  constructor(readonly key: string) {
    super(`stored file ${key} is missing`);
    this.name = 'FileMissingError';
  }
}

/** The content key of a sha256: two directory levels, as git spreads objects (`ab/cd/abcd…`). */
export function contentKey(sha256: string): string {
  return `${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
}
