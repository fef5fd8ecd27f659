import { copyFile, mkdir, open, readdir, rename, stat, utimes } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { DEFAULT_CONFIG } from '../config/config.js';
import { contentKey, FileMissingError, type ByteRange, type StagedFile } from './file-storage.js';
import type { StagingStorage } from './staging-storage.js';
import { isNotFound, sweepTempDir, tempPath, unlinkQuietly } from './temp-files.js';

/** The default `CORRAL_STORAGE_DIR`, relative to the working directory. */
export const DEFAULT_STORAGE_DIR = DEFAULT_CONFIG.storageDir;

/** The folder under the storage directory that temp files (staged uploads) live in. */
const TEMP_FOLDER = '.tmp';

/** A content key as `contentKey` makes it: nothing else is ever a path under the directory. */
const KEY = /^[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}$/;
const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** Whether `key` is a well-formed content key (so it can never name a path outside the storage). */
export function isContentKey(key: string): boolean {
  return KEY.test(key) && key.slice(6).startsWith(key.slice(0, 2) + key.slice(3, 5));
}

/**
 * The `local` storage: content-addressed files under one directory (`ab/cd/abcd…`). An object
 * appears under its key only by a rename of a complete, fsynced file, so a crash leaves either
 * the whole object or none; temp files live in `<dir>/.tmp` on the same filesystem.
 */
export class LocalStorage implements StagingStorage {
  readonly name = 'local';
  readonly dir: string;

  private constructor(dir: string) {
    this.dir = dir;
  }

  /** Opens (and creates when missing) the storage directory and its temp folder. */
  static async open(dir: string = DEFAULT_STORAGE_DIR): Promise<LocalStorage> {
    const storage = new LocalStorage(resolve(dir));
    await mkdir(storage.tempDir(), { recursive: true });
    return storage;
  }

  tempDir(): string {
    return join(this.dir, TEMP_FOLDER);
  }

  sweepTemp(olderThan: Date): Promise<number> {
    return sweepTempDir(this.tempDir(), olderThan);
  }

  close(): void {
    // Nothing is held open between calls.
  }

  async put(file: StagedFile): Promise<string> {
    if (!HEX_SHA256.test(file.sha256)) throw new TypeError(`not a lower-case hex sha256: ${file.sha256}`);
    const key = contentKey(file.sha256);
    const target = this.pathOf(key);
    if (await touchIfExists(target)) {
      await unlinkQuietly(file.tempPath);
      return key;
    }
    await mkdir(dirname(target), { recursive: true });
    const source = await this.onOurFilesystem(file.tempPath);
    await fsyncPath(source);
    await rename(source, target);
    await fsyncPath(dirname(target));
    return key;
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    if (!isContentKey(key)) throw new FileMissingError(key);
    let handle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if (isNotFound(error)) throw new FileMissingError(key);
      throw error;
    }
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async remove(key: string): Promise<void> {
    if (!isContentKey(key)) return;
    await unlinkQuietly(this.pathOf(key));
  }

  async *list(): AsyncIterable<{ key: string; modified: Date }> {
    for (const first of await listDir(this.dir)) {
      if (!/^[0-9a-f]{2}$/.test(first)) continue;
      for (const second of await listDir(join(this.dir, first))) {
        if (!/^[0-9a-f]{2}$/.test(second)) continue;
        for (const name of await listDir(join(this.dir, first, second))) {
          const key = `${first}/${second}/${name}`;
          if (!isContentKey(key)) continue;
          try {
            const info = await stat(this.pathOf(key));
            if (info.isFile()) yield { key, modified: info.mtime };
          } catch (error) {
            if (!isNotFound(error)) throw error;
          }
        }
      }
    }
  }

  private pathOf(key: string): string {
    return join(this.dir, ...key.split('/'));
  }

  /**
   * A staged file in our temp folder is renamed as it is; one elsewhere (another filesystem) is
   * first copied into the temp folder, so the rename into place stays atomic.
   */
  private async onOurFilesystem(path: string): Promise<string> {
    if (dirname(resolve(path)) === this.tempDir()) return path;
    try {
      const moved = tempPath(this.tempDir());
      await rename(path, moved);
      return moved;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    }
    const copy = tempPath(this.tempDir());
    await copyFile(path, copy);
    await unlinkQuietly(path);
    return copy;
  }
}

/**
 * Whether the object exists; if so its modified time is set to now, so an orphan sweep
 * (collect-orphans) never takes bytes a new, not yet committed upload has just put again.
 */
async function touchIfExists(path: string): Promise<boolean> {
  const now = new Date();
  try {
    await utimes(path, now, now);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

/** fsync of a file or directory (a directory's entry survives a power cut only after this). */
async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some filesystems refuse fsync on a directory (EINVAL/EISDIR/EPERM); the rename still holds.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM') throw error;
  } finally {
    await handle.close();
  }
}

async function listDir(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}
