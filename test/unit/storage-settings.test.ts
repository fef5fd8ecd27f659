import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/load-config.js';

type Env = Record<string, string | undefined>;

const storageOf = (env: Env) => loadConfig(['start'], env).config.storage;

function errorOf(env: Env): string {
  try {
    loadConfig(['start'], env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('storage settings (CORRAL_STORAGE, CORRAL_STORAGE_DIR, CORRAL_S3_…)', () => {
  it('leaves the storage unset (local, ./storage/uploads) when nothing is set, and empty values count as unset', () => {
    expect(storageOf({})).toBeUndefined();
    expect(storageOf({ CORRAL_STORAGE: '', CORRAL_S3_BUCKET: '' })).toBeUndefined();
  });

  it('reads a local directory', () => {
    expect(storageOf({ CORRAL_STORAGE_DIR: '/var/lib/corral/files' })).toEqual({ kind: 'local', dir: '/var/lib/corral/files' });
    expect(storageOf({ CORRAL_STORAGE: 'local' })).toEqual({ kind: 'local', dir: './storage/uploads' });
  });

  it('reads every s3 setting', () => {
    expect(
      storageOf({
        CORRAL_STORAGE: 's3',
        CORRAL_S3_BUCKET: 'corral-files',
        CORRAL_S3_REGION: 'eu-west-1',
        CORRAL_S3_ENDPOINT: 'http://127.0.0.1:9000',
        CORRAL_S3_FORCE_PATH_STYLE: 'true',
        CORRAL_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
        CORRAL_S3_SECRET_ACCESS_KEY: 'secret',
        CORRAL_S3_PREFIX: 'corral/uploads/',
      }),
    ).toEqual({
      kind: 's3',
      dir: './storage/uploads',
      bucket: 'corral-files',
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret' },
      prefix: 'corral/uploads',
    });
  });

  it('leaves region, endpoint and credentials to the AWS SDK when unset', () => {
    expect(storageOf({ CORRAL_STORAGE: 's3', CORRAL_S3_BUCKET: 'corral-files' })).toEqual({
      kind: 's3',
      dir: './storage/uploads',
      bucket: 'corral-files',
      forcePathStyle: false,
      prefix: '',
    });
  });

  it.each([
    [{ CORRAL_STORAGE: 'gcs' }, 'CORRAL_STORAGE must be local or s3 (got "gcs")'],
    [{ CORRAL_STORAGE: 's3' }, 'CORRAL_STORAGE=s3 needs CORRAL_S3_BUCKET, the bucket attachments are stored in'],
    [{ CORRAL_S3_BUCKET: 'corral-files' }, 'CORRAL_S3_BUCKET is set, but CORRAL_STORAGE is not s3 (set CORRAL_STORAGE=s3 to store attachments in a bucket)'],
    [{ CORRAL_STORAGE: 'local', CORRAL_S3_PREFIX: 'x' }, 'CORRAL_S3_PREFIX is set, but CORRAL_STORAGE is not s3 (set CORRAL_STORAGE=s3 to store attachments in a bucket)'],
    [{ CORRAL_STORAGE: 's3', CORRAL_S3_BUCKET: 'ab' }, 'CORRAL_S3_BUCKET must be a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens (got "ab")'],
    [{ CORRAL_STORAGE: 's3', CORRAL_S3_BUCKET: 'Corral_Files' }, 'CORRAL_S3_BUCKET must be a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens (got "Corral_Files")'],
    [{ CORRAL_STORAGE: 's3', CORRAL_S3_BUCKET: 'b'.repeat(64) }, `CORRAL_S3_BUCKET must be a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens (got "${'b'.repeat(64)}")`],
    [{ CORRAL_STORAGE: 's3', CORRAL_S3_BUCKET: 'corral', CORRAL_S3_REGION: 'EU West' }, 'CORRAL_S3_REGION must be a region name such as eu-west-1 (got "EU West")'],
    [{ CORRAL_STORAGE: 's3', CORRAL_S3_BUCKET: 'corral', CORRAL_S3_ENDPOINT: 'minio:9000' }, 'CORRAL_S3_ENDPOINT must be an http:// or https:// URL such as http://127.0.0.1:9000 (got "minio:9000")'],
    [{ CORRAL_STORAGE: 's3', CORRAL_S3_BUCKET: 'corral', CORRAL_S3_ENDPOINT: 'https://key:secret@s3.example.com' }, 'CORRAL_S3_ENDPOINT must be an http:// or https:// URL such as http://127.0.0.1:9000 (got "https://key:secret@s3.example.com")'],
    [{ CORRAL_STORAGE: 's3', CORRAL_S3_BUCKET: 'corral', CORRAL_S3_FORCE_PATH_STYLE: 'yes' }, 'CORRAL_S3_FORCE_PATH_STYLE must be true or false (got "yes")'],
    [{ CORRAL_STORAGE: 's3', CORRAL_S3_BUCKET: 'corral', CORRAL_S3_ACCESS_KEY_ID: 'AKIA' }, "CORRAL_S3_ACCESS_KEY_ID needs CORRAL_S3_SECRET_ACCESS_KEY too (or set neither, for the AWS SDK's default credentials)"],
    [{ CORRAL_STORAGE: 's3', CORRAL_S3_BUCKET: 'corral', CORRAL_S3_SECRET_ACCESS_KEY: 's' }, "CORRAL_S3_SECRET_ACCESS_KEY needs CORRAL_S3_ACCESS_KEY_ID too (or set neither, for the AWS SDK's default credentials)"],
    [{ CORRAL_STORAGE: 's3', CORRAL_S3_BUCKET: 'corral', CORRAL_S3_PREFIX: '/abs' }, 'CORRAL_S3_PREFIX must be path segments of letters, digits and . _ - separated by /, such as corral/uploads (got "/abs")'],
    [{ CORRAL_STORAGE: 's3', CORRAL_S3_BUCKET: 'corral', CORRAL_S3_PREFIX: 'a/../b' }, 'CORRAL_S3_PREFIX must be path segments of letters, digits and . _ - separated by /, such as corral/uploads (got "a/../b")'],
  ])('refuses %j with one line naming the setting', (env, message) => {
    expect(errorOf(env)).toBe(message);
  });

  it('reads nothing for help and version, even with a bad value', () => {
    expect(loadConfig(['help'], { CORRAL_STORAGE: 'gcs' }).command).toBe('help');
  });
});
