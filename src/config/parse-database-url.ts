import type { DatabaseConfig } from './config.js';
import { ConfigError } from './config-error.js';
import { quote, type RawSetting } from './raw-setting.js';

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
  switch (scheme) {
    case 'sqlite': {
      const file = rest.startsWith('//') ? rest.slice(2) : rest;
      if (file === '') {
        throw new ConfigError(`${name} needs a file path after "sqlite:" (or use sqlite::memory:)`);
      }
      return { dialect: 'sqlite', file };
    }
    case 'postgres':
    case 'postgresql':
      return { dialect: 'postgres', url: networkUrl(raw, value, rest), poolSize };
    case 'mysql':
    case 'mariadb':
      return { dialect: 'mysql', url: networkUrl(raw, `mysql:${rest}`, rest), poolSize };
    default:
      throw new ConfigError(
        `${name} must start with sqlite:, postgres://, postgresql://, mysql:// or mariadb:// (got ${quote(redact(value))})`,
      );
  }
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
