import type { FileStorage } from './file-storage.js';

export interface OrphanOptions {
  /**
   * Objects modified less than this long ago are kept, referenced or not: an upload stores its
   * bytes before the transaction that adds its row commits, and a `put` of bytes already stored
   * refreshes their modified time. Keep it well above the longest upload request.
   */
  minAgeMs: number;
  /** The clock, in epoch milliseconds (tests inject one). */
  now?: () => number;
}

export interface OrphanSweep {
  /** How many stored objects were looked at. */
  examined: number;
  /** The keys removed: at least the minimum age old and referenced by no row. */
  removed: string[];
}

/**
 * Removes stored objects no attachment row references (what a crash between storing the bytes
 * and committing the row leaves, or a removal after commit that never ran), once they are older
 * than `minAgeMs` (or exactly that old). `isReferenced` asks the database; it runs for old objects only. Objects that
 * vanish meanwhile are fine (`remove` of a missing key is no error).
 *
 * One window stays open, as in any sweep without a lock: the same bytes put again and committed
 * between `isReferenced` answering false and the removal. `put` refreshing the modified time
 * makes that need an upload of identical bytes finishing in those few milliseconds.
 */
export async function collectOrphans(
  storage: FileStorage,
  isReferenced: (key: string) => Promise<boolean>,
  options: OrphanOptions,
): Promise<OrphanSweep> {
  const cutOff = (options.now ?? Date.now)() - options.minAgeMs;
  const removed: string[] = [];
  let examined = 0;
  for await (const { key, modified } of storage.list()) {
    examined += 1;
    if (modified.getTime() > cutOff) continue;
    if (await isReferenced(key)) continue;
    await storage.remove(key);
    removed.push(key);
  }
  return { examined, removed };
}
