import type { MetricsConfig } from './config.js';
import { ConfigError } from './config-error.js';
import { quote, type RawSetting as Raw } from './raw-setting.js';

/** A shorter metrics token is easy to guess. */
export const METRICS_TOKEN_MIN_LENGTH = 16;

/** CORRAL_METRICS=off|on|host:port; `on` needs CORRAL_METRICS_TOKEN (the metrics tell a lot about the service). */
export function metrics(raw: Raw | undefined, token: Raw | undefined): MetricsConfig | undefined {
  if (raw === undefined || raw.value === 'off') return undefined;
  if (raw.value === 'on') {
    if (token === undefined) throw new ConfigError(`${raw.name}=on serves /metrics on the main port, so it needs CORRAL_METRICS_TOKEN (16+ characters), or give ${raw.name} a separate address such as 127.0.0.1:9464`);
    if (token.value.length < METRICS_TOKEN_MIN_LENGTH) throw new ConfigError(`${token.name} must be at least ${METRICS_TOKEN_MIN_LENGTH} characters`);
    return { mode: 'token', token: token.value };
  }
  // host:port, the host possibly a bracketed IPv6 address.
  const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(raw.value);
  const port = match === null ? Number.NaN : Number(match[2]);
  if (match === null || !(port >= 1 && port <= 65_535)) {
    throw new ConfigError(`${raw.name} must be off, on, or a listen address host:port such as 127.0.0.1:9464 (got ${quote(raw.value)})`);
  }
  const host = match[1]!;
  return { mode: 'address', host: host.startsWith('[') ? host.slice(1, -1) : host, port };
}
