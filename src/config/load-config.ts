/**
 * Builds the typed `Config` from the command line and the environment (pure: no I/O).
 *
 * CORRAL_WORKERS defaults to the number of cores this process may use (`os.availableParallelism()`).
 *
 * Command line: `corral [start|schema export|help|version] [--port N] [--host H] [--database URL] [--schema FILE]`,
 * each flag as `--flag value` or `--flag=value`; `--help`/`-h` and `--version` are accepted too.
 * Flags beat env, env beats defaults; an empty env value counts as unset. Every bad value throws a
 * `ConfigError` whose one-line message names the setting as the user wrote it (flag or env name).
 */
import { availableParallelism } from 'node:os';
import { SETTINGS, type Setting } from './settings.js';
import { DEFAULT_CONFIG, type Config, type LogLevel } from './config.js';
import { introspection } from './introspect-settings.js';
import { metrics } from './metrics-setting.js';
import { ConfigError } from './config-error.js';
import { parseAllowedHosts, parseCorsOrigins, parseTrustedProxies } from './address-lists.js';
import { parseDatabaseUrl } from './parse-database-url.js';
import { quote, type RawSetting as Raw } from './raw-setting.js';
import { storageConfig } from './storage-settings.js';

export type Command = 'start' | 'schema-export' | 'help' | 'version';

/** Commands that open the database, so they read the settings (help and version do not). */
const USES_SETTINGS: ReadonlySet<Command> = new Set<Command>(['start', 'schema-export']);

export interface LoadedConfig {
  command: Command;
  config: Config;
}

export const PORT_MIN = 0;
export const PORT_MAX = 65_535;
export const BODY_LIMIT_MIN = 1024; // 1 KiB
export const BODY_LIMIT_MAX = 1024 ** 3; // 1 GiB
export const BODY_TIMEOUT_MS_MIN = 100;
export const BODY_TIMEOUT_MS_MAX = 3_600_000; // an hour
export const POOL_SIZE_MIN = 1;
export const POOL_SIZE_MAX = 100;
export const SHUTDOWN_TIMEOUT_MS_MIN = 1;
export const SHUTDOWN_TIMEOUT_MS_MAX = 600_000; // 10 minutes
export const SCHEMA_POLL_MS_MIN = 50;
export const SCHEMA_POLL_MS_MAX = 60_000;
export const DB_CONNECT_TIMEOUT_MS_MIN = 100;
export const DB_CONNECT_TIMEOUT_MS_MAX = 600_000; // 10 minutes
export const DB_STATEMENT_TIMEOUT_MS_MIN = 100;
export const DB_STATEMENT_TIMEOUT_MS_MAX = 86_400_000; // a day
export const SQLITE_READERS_MIN = 0;
export const SQLITE_READERS_MAX = 64;
export const WORKERS_MIN = 1;
export const WORKERS_MAX = 256;
export const TOKEN_TTL_SECONDS_MIN = 60;
export const TOKEN_TTL_SECONDS_MAX = 366 * 24 * 3600;
/** A shorter secret is easy to guess offline from one token. */
export const AUTH_SECRET_MIN_LENGTH = 32;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

const FLAGS: ReadonlyMap<string, Setting> = new Map(SETTINGS.flatMap((setting): [string, Setting][] => ('flag' in setting ? [[setting.flag, setting.env]] : [])));

/** Flags that may stand alone (`--introspect`), meaning `on`; a following on/off is taken as their value. */
const SWITCH_FLAGS: ReadonlySet<string> = new Set(['--introspect']);

const COMMANDS: ReadonlyMap<string, Command> = new Map<string, Command>([
  ['start', 'start'],
  ['help', 'help'],
  ['version', 'version'],
]);

const COMMAND_FLAGS: ReadonlyMap<string, Command> = new Map<string, Command>([
  ['--help', 'help'],
  ['-h', 'help'],
  ['--version', 'version'],
]);

const LOG_LEVELS: Record<LogLevel, true> = {
  fatal: true,
  error: true,
  warn: true,
  info: true,
  debug: true,
  trace: true,
  silent: true,
};

const BODY_LIMIT_UNITS: Record<string, number> = { '': 1, kb: 1024, mb: 1024 * 1024 };

type Lookup = (setting: Setting) => Raw | undefined;

export function loadConfig(argv: string[], env: Record<string, string | undefined>): LoadedConfig {
  const { command, flags } = parseArgv(argv);
  // help and version must work even when the environment holds a bad value.
  if (!USES_SETTINGS.has(command)) return { command, config: buildConfig(() => undefined) };
  return {
    command,
    config: buildConfig((setting) => {
      const flag = flags.get(setting);
      if (flag !== undefined) return flag;
      const value = env[setting];
      return value === undefined || value === '' ? undefined : { value, name: setting };
    }),
  };
}

function parseArgv(argv: string[]): { command: Command; flags: Map<Setting, Raw> } {
  const flags = new Map<Setting, Raw>();
  let positional: Command | undefined;
  let fromFlag: Command | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('-')) {
      // `schema export`: a command of two words.
      if (arg === 'schema') {
        if (argv[i + 1] !== 'export') throw new ConfigError(`unknown command "schema${argv[i + 1] === undefined ? '' : ` ${argv[i + 1]}`}" (expected schema export)`);
        if (positional !== undefined) throw new ConfigError('unexpected argument "schema"');
        positional = 'schema-export';
        i++;
        continue;
      }
      const command = COMMANDS.get(arg);
      if (command === undefined) {
        throw new ConfigError(`unknown command ${quote(arg)} (expected start, schema export, help or version)`);
      }
      if (positional !== undefined) throw new ConfigError(`unexpected argument ${quote(arg)}`);
      positional = command;
      continue;
    }
    const commandFlag = COMMAND_FLAGS.get(arg);
    if (commandFlag !== undefined) {
      // --help wins over --version, and both win over a positional command.
      if (fromFlag !== 'help') fromFlag = commandFlag;
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const setting = FLAGS.get(name);
    if (setting === undefined) {
      throw new ConfigError(`unknown option ${quote(name)} (see "corral help")`);
    }
    let value: string | undefined;
    if (eq !== -1) {
      value = arg.slice(eq + 1);
    } else if (SWITCH_FLAGS.has(name) && argv[i + 1] !== 'on' && argv[i + 1] !== 'off') {
      value = 'on';
    } else {
      value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new ConfigError(`${name} needs a value`);
      i++;
    }
    if (value === '') throw new ConfigError(`${name} must not be empty`);
    // A repeated flag: the last one wins, like most CLIs.
    flags.set(setting, { value, name });
  }
  return { command: fromFlag ?? positional ?? 'start', flags };
}

function buildConfig(lookup: Lookup): Config {
  const poolSize = integer(lookup('CORRAL_DB_POOL_SIZE'), DEFAULT_CONFIG.poolSize, POOL_SIZE_MIN, POOL_SIZE_MAX);
  const parsed = parseDatabaseUrl(lookup('DATABASE_URL') ?? { value: DEFAULT_CONFIG.databaseUrl, name: 'DATABASE_URL' }, poolSize);
  const readers = lookup('CORRAL_SQLITE_READERS');
  // Reader threads are SQLite's alone (a file, not a server): the setting means nothing elsewhere.
  const db = readers === undefined || !('file' in parsed) ? parsed : { ...parsed, readers: integer(readers, DEFAULT_CONFIG.sqliteReaders, SQLITE_READERS_MIN, SQLITE_READERS_MAX) };
  const workers = integer(lookup('CORRAL_WORKERS'), availableParallelism(), WORKERS_MIN, WORKERS_MAX);
  const config: Config = {
    port: integer(lookup('PORT'), DEFAULT_CONFIG.port, PORT_MIN, PORT_MAX),
    host: host(lookup('HOST')),
    database: db,
    logLevel: logLevel(lookup('LOG_LEVEL')),
    bodyLimit: bodyLimit(lookup('CORRAL_BODY_LIMIT')),
    apiPrefix: apiPrefix(lookup('CORRAL_API_PREFIX')),
    shutdownTimeoutMs: integer(
      lookup('CORRAL_SHUTDOWN_TIMEOUT_MS'),
      DEFAULT_CONFIG.shutdownTimeoutMs,
      SHUTDOWN_TIMEOUT_MS_MIN,
      SHUTDOWN_TIMEOUT_MS_MAX,
    ),
    schemaPollMs: integer(
      lookup('CORRAL_SCHEMA_POLL_MS'),
      DEFAULT_CONFIG.schemaPollMs,
      SCHEMA_POLL_MS_MIN,
      SCHEMA_POLL_MS_MAX,
    ),
    dbConnectTimeoutMs: integer(
      lookup('CORRAL_DB_CONNECT_TIMEOUT_MS'),
      DEFAULT_CONFIG.dbConnectTimeoutMs,
      DB_CONNECT_TIMEOUT_MS_MIN,
      DB_CONNECT_TIMEOUT_MS_MAX,
    ),
    dbStatementTimeoutMs: integer(
      lookup('CORRAL_DB_STATEMENT_TIMEOUT_MS'),
      DEFAULT_CONFIG.dbStatementTimeoutMs,
      DB_STATEMENT_TIMEOUT_MS_MIN,
      DB_STATEMENT_TIMEOUT_MS_MAX,
    ),
    corsOrigins: parseCorsOrigins(lookup('CORRAL_CORS_ORIGINS')),
    allowedHosts: parseAllowedHosts(lookup('CORRAL_ALLOWED_HOSTS')),
    trustedProxies: parseTrustedProxies(lookup('CORRAL_TRUSTED_PROXIES')),
    // An in-memory database lives in one process: workers would each see their own, empty one.
    workers: 'file' in db && db.file === ':memory:' ? 1 : workers,
    auth: auth(lookup),
  };
  if (!config.auth.enabled && !LOOPBACK_HOSTS.has(config.host) && !config.host.startsWith('127.')) {
    throw new ConfigError(`CORRAL_AUTH=off opens every route, so it is refused unless HOST is loopback (got ${quote(config.host)})`);
  }
  config.studio = studio(lookup('CORRAL_STUDIO'), config.apiPrefix);
  const bodyTimeout = lookup('CORRAL_BODY_TIMEOUT_MS');
  if (bodyTimeout !== undefined) config.bodyTimeoutMs = integer(bodyTimeout, DEFAULT_CONFIG.bodyTimeoutMs, BODY_TIMEOUT_MS_MIN, BODY_TIMEOUT_MS_MAX);
  const changesPoll = lookup('CORRAL_CHANGES_POLL_MS');
  if (changesPoll !== undefined) config.changesPollMs = integer(changesPoll, 250, CHANGES_POLL_MS_MIN, CHANGES_POLL_MS_MAX);
  const retention = lookup('CORRAL_CHANGES_RETENTION');
  if (retention !== undefined) config.changesRetentionMs = duration(retention);
  const retryBase = lookup('CORRAL_WEBHOOK_RETRY_BASE_MS');
  if (retryBase !== undefined) config.webhookRetryBaseMs = integer(retryBase, 10_000, 1, 3_600_000);
  const allowPrivate = lookup('CORRAL_WEBHOOK_ALLOW_PRIVATE');
  if (allowPrivate !== undefined) {
    if (allowPrivate.value !== 'true' && allowPrivate.value !== 'false') throw new ConfigError(`${allowPrivate.name} must be true or false (got ${quote(allowPrivate.value)})`);
    config.webhookAllowPrivate = allowPrivate.value === 'true';
  }
  const metricsConfig = metrics(lookup('CORRAL_METRICS'), lookup('CORRAL_METRICS_TOKEN'));
  if (metricsConfig !== undefined) config.metrics = metricsConfig;
  const compression = lookup('CORRAL_COMPRESSION');
  if (compression !== undefined) {
    if (compression.value !== 'on' && compression.value !== 'off') throw new ConfigError(`${compression.name} must be on or off (got ${quote(compression.value)})`);
    config.compression = compression.value === 'on';
  }
  const storage = storageConfig(lookup);
  if (storage !== undefined) config.storage = storage;
  const introspect = introspection(lookup);
  if (introspect !== undefined) config.introspect = introspect;
  const schema = lookup('CORRAL_SCHEMA');
  if (schema !== undefined) config.schemaFile = schema.value;
  for (const [env, key, min, max] of [['CORRAL_EXACT_COUNT_LIMIT', 'exactCountLimit', 0, 1e9], ['CORRAL_MAX_OFFSET', 'maxOffset', 0, 1e9], ['CORRAL_UPLOAD_MAX_BYTES', 'uploadMaxBytes', 1, Number.MAX_SAFE_INTEGER], ['CORRAL_UPLOAD_ORPHAN_AGE_MS', 'uploadOrphanAgeMs', 0, 2_592_000_000]] as const) {
    const raw = lookup(env);
    if (raw !== undefined) config[key] = integer(raw, 0, min, max);
  }
  const [importBytes, importRows] = [lookup('CORRAL_IMPORT_MAX_BYTES'), lookup('CORRAL_IMPORT_MAX_ROWS')];
  if (importBytes !== undefined) config.importMaxBytes = byteSize(importBytes, 1024, 4096 * 1024 * 1024);
  const importInflated = lookup('CORRAL_IMPORT_MAX_UNCOMPRESSED_BYTES');
  if (importInflated !== undefined) config.importMaxUncompressedBytes = byteSize(importInflated, 1024, 4096 * 1024 * 1024);
  if (importRows !== undefined) config.importMaxRows = integer(importRows, DEFAULT_CONFIG.importMaxRows, 1, 100_000_000);
  const cursorSecret = lookup('CORRAL_CURSOR_SECRET');
  if (cursorSecret !== undefined && cursorSecret.value !== '') config.cursorSecret = cursorSecret.value;
  return config;
}

function auth(lookup: Lookup): Config['auth'] {
  const mode = lookup('CORRAL_AUTH');
  if (mode !== undefined && mode.value !== 'on' && mode.value !== 'off') {
    throw new ConfigError(`${mode.name} must be on or off (got ${quote(mode.value)})`);
  }
  const result: Config['auth'] = {
    enabled: mode?.value !== 'off',
    rootEmail: lookup('CORRAL_ROOT_EMAIL')?.value ?? DEFAULT_CONFIG.rootEmail,
    tokenTtlSeconds: integer(lookup('CORRAL_TOKEN_TTL_SECONDS'), DEFAULT_CONFIG.tokenTtlSeconds, TOKEN_TTL_SECONDS_MIN, TOKEN_TTL_SECONDS_MAX),
  };
  const password = lookup('CORRAL_ROOT_PASSWORD');
  if (password !== undefined) result.rootPassword = password.value;
  const secret = lookup('CORRAL_AUTH_SECRET');
  if (secret !== undefined) {
    if (secret.value.length < AUTH_SECRET_MIN_LENGTH) throw new ConfigError(`${secret.name} must be at least ${AUTH_SECRET_MIN_LENGTH} characters`);
    result.secret = secret.value;
  }
  return result;
}

const CHANGES_POLL_MS_MIN = 10;
const CHANGES_POLL_MS_MAX = 600_000;
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `7d`, `12h`, `30m`, `45s` or `500ms` (a bare number is milliseconds). */
function duration(raw: Raw): number {
  const match = /^(\d{1,12})(ms|s|m|h|d)?$/.exec(raw.value);
  const ms = match === null ? Number.NaN : Number(match[1]) * DURATION_UNITS[match[2] ?? 'ms']!;
  if (!(ms > 0)) throw new ConfigError(`${raw.name} must be a duration such as 7d, 12h, 30m or 45s (got ${quote(raw.value)})`);
  return ms;
}

function integer(raw: Raw | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  // Decimal digits only: no sign, exponent, hex or surrounding spaces.
  const n = /^\d+$/.test(raw.value) ? Number(raw.value) : Number.NaN;
  if (!(n >= min && n <= max)) {
    throw new ConfigError(`${raw.name} must be an integer from ${min} to ${max} (got ${quote(raw.value)})`);
  }
  return n;
}

function host(raw: Raw | undefined): string {
  if (raw === undefined) return DEFAULT_CONFIG.host;
  if (!/^[^\s/]+$/.test(raw.value)) {
    throw new ConfigError(`${raw.name} must be a host name or IP address (got ${quote(raw.value)})`);
  }
  return raw.value;
}

function logLevel(raw: Raw | undefined): LogLevel {
  if (raw === undefined) return DEFAULT_CONFIG.logLevel;
  const level = raw.value.toLowerCase();
  if (!Object.hasOwn(LOG_LEVELS, level)) {
    throw new ConfigError(`${raw.name} must be one of ${Object.keys(LOG_LEVELS).join(', ')} (got ${quote(raw.value)})`);
  }
  return level as LogLevel;
}

/** Bytes as an integer, or with a `kb`/`mb` unit (binary: 1kb = 1024 bytes), case-insensitive. */
const bodyLimit = (raw: Raw | undefined): number => (raw === undefined ? DEFAULT_CONFIG.bodyLimit : byteSize(raw, BODY_LIMIT_MIN, BODY_LIMIT_MAX));

function byteSize(raw: Raw, min: number, max: number): number {
  const match = /^(\d+)(kb|mb)?$/i.exec(raw.value);
  const bytes = match ? Number(match[1]) * (BODY_LIMIT_UNITS[(match[2] ?? '').toLowerCase()] ?? Number.NaN) : Number.NaN;
  if (!(bytes >= min && bytes <= max)) {
    throw new ConfigError(`${raw.name} must be a size from ${min / 1024}kb to ${max / 1024 / 1024}mb, as bytes or with a kb/mb unit (got ${quote(raw.value)})`);
  }
  return bytes;
}

/** `/seg` or `/seg/seg…`; segments of unreserved URL characters, so the prefix needs no escaping. */
function apiPrefix(raw: Raw | undefined): string {
  if (raw === undefined) return DEFAULT_CONFIG.apiPrefix;
  const segments = raw.value.split('/').slice(1);
  const ok =
    raw.value.startsWith('/') &&
    segments.every((segment) => /^[A-Za-z0-9._~-]+$/.test(segment) && !/^\.+$/.test(segment));
  if (!ok) {
    throw new ConfigError(
      `${raw.name} must start with "/", not end with "/", and use only letters, digits and . _ ~ - in its segments (got ${quote(raw.value)})`,
    );
  }
  return raw.value;
}

/** Whether the API prefix takes the studio's paths (`/studio`, `/studio/…`; `/` cannot be a prefix). */
export function prefixTakesStudio(prefix: string): boolean {
  return prefix === '/studio' || prefix.startsWith('/studio/');
}

/** CORRAL_STUDIO=on|off; on unless the API prefix takes the studio's paths (then `on` is refused). */
function studio(raw: Raw | undefined, prefix: string): boolean {
  if (raw === undefined) return !prefixTakesStudio(prefix);
  if (raw.value !== 'on' && raw.value !== 'off') throw new ConfigError(`${raw.name} must be on or off (got ${quote(raw.value)})`);
  if (raw.value === 'on' && prefixTakesStudio(prefix)) throw new ConfigError(`${raw.name}=on needs /studio for the studio, but CORRAL_API_PREFIX is ${quote(prefix)}`);
  return raw.value === 'on';
}
