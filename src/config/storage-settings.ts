import type { StorageConfig } from './config.js';
import { DEFAULT_CONFIG } from './config.js';
import { ConfigError } from './config-error.js';
import { quote, type RawSetting as Raw } from './raw-setting.js';
import type { Setting } from './settings.js';

/** CORRAL_S3_TIMEOUT_MS: its default and bounds (one call to the bucket without progress). */
export const S3_TIMEOUT_MS_DEFAULT = 30_000;
export const S3_TIMEOUT_MS_MIN = 100;
export const S3_TIMEOUT_MS_MAX = 600_000;

/** The settings only the `s3` storage reads: set with `local`, they are a mistake, not a no-op. */
const S3_SETTINGS = [
  'CORRAL_S3_BUCKET',
  'CORRAL_S3_REGION',
  'CORRAL_S3_ENDPOINT',
  'CORRAL_S3_FORCE_PATH_STYLE',
  'CORRAL_S3_ACCESS_KEY_ID',
  'CORRAL_S3_SECRET_ACCESS_KEY',
  'CORRAL_S3_PREFIX',
  'CORRAL_S3_TIMEOUT_MS',
] as const satisfies readonly Setting[];

/**
 * CORRAL_STORAGE=local|s3 and the settings of each (docs/files.md). Returns undefined when none
 * is set (the default local directory). Refuses `s3` without a bucket, half a key pair, and
 * CORRAL_S3_… settings while the storage is `local` (they would be silently ignored).
 */
export function storageConfig(lookup: (setting: Setting) => Raw | undefined): StorageConfig | undefined {
  const kind = lookup('CORRAL_STORAGE');
  if (kind !== undefined && kind.value !== 'local' && kind.value !== 's3') {
    throw new ConfigError(`${kind.name} must be local or s3 (got ${quote(kind.value)})`);
  }
  const dirRaw = lookup('CORRAL_STORAGE_DIR');
  const dir = dirRaw?.value ?? DEFAULT_CONFIG.storageDir;
  if (kind?.value !== 's3') {
    const stray = S3_SETTINGS.map(lookup).find((raw) => raw !== undefined);
    if (stray !== undefined) throw new ConfigError(`${stray.name} is set, but CORRAL_STORAGE is not s3 (set CORRAL_STORAGE=s3 to store attachments in a bucket)`);
    return kind === undefined && dirRaw === undefined ? undefined : { kind: 'local', dir };
  }
  const bucket = lookup('CORRAL_S3_BUCKET');
  if (bucket === undefined) throw new ConfigError(`${kind.name}=s3 needs CORRAL_S3_BUCKET, the bucket attachments are stored in`);
  // S3's bucket naming rules (3–63 of a-z 0-9 . -, a letter or digit at each end); a wrong name fails every request later.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket.value)) {
    throw new ConfigError(`${bucket.name} must be a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens (got ${quote(bucket.value)})`);
  }
  const config: { -readonly [K in keyof Extract<StorageConfig, { kind: 's3' }>]: Extract<StorageConfig, { kind: 's3' }>[K] } = {
    kind: 's3',
    dir,
    bucket: bucket.value,
    forcePathStyle: flag(lookup('CORRAL_S3_FORCE_PATH_STYLE')),
    prefix: prefix(lookup('CORRAL_S3_PREFIX')),
  };
  const timeout = lookup('CORRAL_S3_TIMEOUT_MS');
  if (timeout !== undefined) {
    const ms = /^\d+$/.test(timeout.value) ? Number(timeout.value) : Number.NaN;
    if (!(ms >= S3_TIMEOUT_MS_MIN && ms <= S3_TIMEOUT_MS_MAX)) throw new ConfigError(`${timeout.name} must be an integer from ${S3_TIMEOUT_MS_MIN} to ${S3_TIMEOUT_MS_MAX} (got ${quote(timeout.value)})`);
    config.timeoutMs = ms;
  }
  const region = lookup('CORRAL_S3_REGION');
  if (region !== undefined) {
    if (!/^[a-z0-9-]{1,64}$/.test(region.value)) throw new ConfigError(`${region.name} must be a region name such as eu-west-1 (got ${quote(region.value)})`);
    config.region = region.value;
  }
  const endpoint = lookup('CORRAL_S3_ENDPOINT');
  if (endpoint !== undefined) config.endpoint = endpointUrl(endpoint);
  const keyId = lookup('CORRAL_S3_ACCESS_KEY_ID');
  const secret = lookup('CORRAL_S3_SECRET_ACCESS_KEY');
  if ((keyId === undefined) !== (secret === undefined)) {
    const [given, missing] = keyId === undefined ? [secret!.name, 'CORRAL_S3_ACCESS_KEY_ID'] : [keyId.name, 'CORRAL_S3_SECRET_ACCESS_KEY'];
    throw new ConfigError(`${given} needs ${missing} too (or set neither, for the AWS SDK's default credentials)`);
  }
  if (keyId !== undefined && secret !== undefined) config.credentials = { accessKeyId: keyId.value, secretAccessKey: secret.value };
  return config;
}

function flag(raw: Raw | undefined): boolean {
  if (raw === undefined) return false;
  if (raw.value !== 'true' && raw.value !== 'false') throw new ConfigError(`${raw.name} must be true or false (got ${quote(raw.value)})`);
  return raw.value === 'true';
}

/** `http(s)://host[:port][/path]`, no credentials, query or fragment. */
function endpointUrl(raw: Raw): string {
  let url: URL | undefined;
  try {
    url = new URL(raw.value);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new ConfigError(`${raw.name} must be an http:// or https:// URL such as http://127.0.0.1:9000 (got ${quote(raw.value)})`);
  }
  return raw.value;
}

/** Segments of key-safe characters separated by `/`, no leading slash; a trailing slash is dropped. */
function prefix(raw: Raw | undefined): string {
  if (raw === undefined) return '';
  const value = raw.value.endsWith('/') ? raw.value.slice(0, -1) : raw.value;
  const ok = value.split('/').every((segment) => /^[A-Za-z0-9._-]+$/.test(segment) && !/^\.+$/.test(segment));
  if (!ok) throw new ConfigError(`${raw.name} must be path segments of letters, digits and . _ - separated by /, such as corral/uploads (got ${quote(raw.value)})`);
  return value;
}
