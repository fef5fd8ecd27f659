import { randomBytes } from 'node:crypto';
import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/** Temp files end in this, so a sweep never touches anything else that lands in the directory. */
const TEMP_SUFFIX = '.part';

/** A fresh, unguessable temp file path in `dir` (opened with `wx`, so a clash fails rather than shares). */
export function tempPath(dir: string): string {
  return join(dir, `${Date.now().toString(36)}-${randomBytes(12).toString('hex')}${TEMP_SUFFIX}`);
}

/** Removes a file, ignoring one that is already gone. */
export async function unlinkQuietly(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

/** Removes the temp files in `dir` last modified before `olderThan`; resolves to how many went. */
export async function sweepTempDir(dir: string, olderThan: Date): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (isNotFound(error)) return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    if (!name.endsWith(TEMP_SUFFIX)) continue;
    const path = join(dir, name);
    try {
      const info = await stat(path);
      if (!info.isFile() || info.mtimeMs >= olderThan.getTime()) continue;
      await unlink(path);
      removed += 1;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return removed;
}

/** An `ENOENT` from node:fs. */
export function isNotFound(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === 'ENOENT';
}
