import { ATTACHMENTS } from './attachment-definition.js';
import { collectOrphans } from './collect-orphans.js';
import type { FileStorage } from './file-storage.js';
import { KeyLocks } from './key-locks.js';
import type { StagingStorage } from './staging-storage.js';

/** The default CORRAL_UPLOAD_MAX_BYTES: 100 MiB. */
export const DEFAULT_UPLOAD_MAX_BYTES = 100 * 1024 * 1024;
/** How old an unreferenced object or temp file must be before the orphan sweep removes it (an upload in flight is younger). */
export const DEFAULT_ORPHAN_AGE_MS = 60 * 60 * 1000;

/** Whether any attachments row names a storage key (asked of the database, outside any caller's grants). */
export type KeyReferenced = (key: string) => Promise<boolean>;

/**
 * What uploads and downloads use: the storage, the size limit, the API prefix (for `url`) and
 * the per-key locks that keep a release from removing bytes an upload is committing.
 */
export class AttachmentFiles {
  readonly locks = new KeyLocks();

  constructor(
    readonly storage: StagingStorage,
    readonly maxBytes: number,
    readonly prefix: string,
    private readonly referenced: KeyReferenced,
  ) {}

  /** Removes the object under `key` when no attachments row names it any more (after the last one's destroy committed). */
  release(key: string): Promise<boolean> {
    return this.locks.run(key, () => this.releaseLocked(key));
  }

  /** `release` for a caller already holding the key's lock. */
  async releaseLocked(key: string): Promise<boolean> {
    if (await this.referenced(key)) return false;
    await this.storage.remove(key);
    return true;
  }

  /**
   * Removes what crashes left behind (docs/files.md#orphans): temp files and stored objects that
   * no row names, both last written before `olderThan` (an upload in flight writes its temp file
   * as bytes arrive and its object is touched when stored, so it is always younger).
   */
  async sweepOrphans(olderThan: Date): Promise<{ temp: number; objects: number }> {
    const temp = await this.storage.sweepTemp(olderThan);
    const { storage } = this;
    // Each removal checks again under the key's lock, so an upload of the same bytes in this process never loses them.
    const guarded: FileStorage = {
      name: storage.name,
      put: (file) => storage.put(file),
      read: (key, range) => storage.read(key, range),
      list: () => storage.list(),
      remove: async (key) => {
        await this.release(key);
      },
    };
    const swept = await collectOrphans(guarded, this.referenced, { minAgeMs: Math.max(0, Date.now() - olderThan.getTime()) });
    return { temp, objects: swept.removed.length };
  }
}

export { ATTACHMENTS };
