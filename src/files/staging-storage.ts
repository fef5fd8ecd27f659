import type { FileStorage } from './file-storage.js';

/**
 * A storage together with the local directory uploads are staged in before `put`: for `local`
 * `<dir>/.tmp` (same filesystem, so `put` is a rename), for `s3` the same directory on this node.
 */
export interface StagingStorage extends FileStorage {
  /** The directory `stageUpload` writes temp files to (created when the storage opens). */
  tempDir(): string;
  /**
   * Removes temp files last written before `olderThan` (uploads cut off by a crash or kill -9);
   * resolves to how many were removed. A staging upload writes its file as bytes arrive, so a
   * cut-off that is longer than a request may take never touches a live upload.
   */
  sweepTemp(olderThan: Date): Promise<number>;
  /** Lets go of what the storage holds open (the s3 client's connections); call at shutdown. */
  close(): void;
}
