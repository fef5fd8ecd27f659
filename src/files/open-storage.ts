import type { Config } from '../config/config.js';
import { LocalStorage } from './local-storage.js';
import type { S3StorageOptions } from './s3-storage.js';
import type { StagingStorage } from './staging-storage.js';

/**
 * The storage the configuration names (CORRAL_STORAGE): `local` unless `s3` is asked for. The
 * AWS SDK is imported only then, so a local set-up never loads it. An `s3` storage checks its
 * bucket answers (HeadBucket) and fails start with one clear line when it does not.
 */
export async function openStorage(config: Pick<Config, 'storage'>, options: S3StorageOptions = {}): Promise<StagingStorage> {
  const storage = config.storage;
  if (storage?.kind === 's3') {
    const { S3Storage } = await import('./s3-storage.js');
    return S3Storage.open(storage, options);
  }
  return LocalStorage.open(storage?.dir);
}
