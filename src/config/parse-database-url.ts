import type { DatabaseConfig } from './config.js';
import { ConfigError } from './config-error.js';
import { quote, type RawSetting } from './raw-setting.js';

type SchemeReader = (raw: RawSetting, rest: string, poolSize: number) => DatabaseConfig;

/** The one query a SQLite URL takes: the file opened read-only. */
const SQLITE_READ_ONLY = '?mode=ro';

function sqliteFile(raw: RawSetting, rest: string): DatabaseConfig {
  const readOnly = rest.endsWith(SQLITE_READ_ONLY);
  const path = readOnly ? rest.slice(0, -SQLITE_READ_ONLY.length) : rest;
  const file = path.startsWith('//') ? path.slice(2) : path;
  if (file === '') throw new ConfigError(`${raw.name} needs a file path after "sqlite:" (or use sqlite::memory:)`);
  if (readOnly && file === ':memory:') throw new ConfigError(`${raw.name}: an in-memory SQLite database cannot be read-only`);
  return readOnly ? { dialect: 'sqlite', file, readOnly } : { dialect: 'sqlite', file };
}

// mysql2 takes mysql:// only: a mariadb URL is rewritten.
const mysqlUrl: SchemeReader = (raw, rest, poolSize) => ({ dialect: 'mysql', url: networkUrl(raw, `mysql:${rest}`, rest), poolSize });

const postgresUrl: SchemeReader = (raw, rest, poolSize) => ({ dialect: 'postgres', url: networkUrl(raw, raw.value, rest), poolSize });

/** Each URL scheme Corral accepts, and how the rest of the URL is read. */
const SCHEMES: Readonly<Record<string, SchemeReader>> = {
  sqlite: sqliteFile,
  postgres: postgresUrl,
  postgresql: postgresUrl,
  mysql: mysqlUrl,
  mariadb: mysqlUrl,
};

/**
 * Accepted: `sqlite:<path>`, `sqlite://<path>` (so `sqlite:///abs/file.db` is absolute),
 * `sqlite::memory:`, `postgres://…`, `postgresql://…`, `mysql://…`, `mariadb://…` (scheme
 * case-insensitive). A SQLite path is taken literally (no percent-decoding). A mariadb URL is
 * rewritten to `mysql://…` so mysql2 accepts it. Error messages never show a password.
 */
export function parseDatabaseUrl(raw: RawSetting, poolSize: number): DatabaseConfig {
  const { value, name } = raw;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(value)?.[1]?.toLowerCase();
  const rest = scheme === undefined ? value : value.slice(scheme.length + 1);
  const read = scheme !== undefined && Object.hasOwn(SCHEMES, scheme) ? SCHEMES[scheme] : undefined;
  if (read === undefined) {
    throw new ConfigError(
      `${name} must start with sqlite:, postgres://, postgresql://, mysql:// or mariadb:// (got ${quote(redact(value))})`,
    );
  }
  return read(raw, rest, poolSize);
}

function networkUrl(raw: RawSetting, url: string, rest: string): string {
  if (!rest.startsWith('//')) {
    throw new ConfigError(`${raw.name} must be a URL like scheme://user:password@host:port/database (got ${quote(redact(raw.value))})`);
  }
  try {
    new URL(url);
  } catch {
    throw new ConfigError(`${raw.name} is not a valid URL (got ${quote(redact(raw.value))})`);
  }
  return url;
}

/** Hides the password of a connection URL, even one that does not parse. */
function redact(value: string): string {
  // Greedy up to the last '@': a password may itself contain '@' or '/'.
  return value.replace(/^([^:/]*:\/\/[^:/@]*):.*@/, '$1:***@');
}
