/** Readers of the comma-separated address settings: CORS origins, allowed hosts, trusted proxies. */
import { isIP } from 'node:net';
import { ConfigError } from './config-error.js';
import { quote, type RawSetting } from './raw-setting.js';

/** Comma-separated entries, spaces around them ignored, empty entries refused. */
function list(raw: RawSetting, what: string, valid: (entry: string) => boolean): string[] {
  const entries = raw.value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    if (!valid(entry)) throw new ConfigError(`${raw.name} must be a comma-separated list of ${what} (got ${quote(entry)})`);
  }
  return entries;
}

/** Exact origins (`scheme://host[:port]`, as browsers send them), or `*` for any origin. */
export function parseCorsOrigins(raw: RawSetting | undefined): string[] {
  if (raw === undefined) return [];
  return list(raw, 'origins like https://app.example.com, or *', (entry) => {
    if (entry === '*') return true;
    try {
      return new URL(entry).origin === entry;
    } catch {
      return false;
    }
  });
}

/** Host names or addresses without a port (`corral.internal`, `10.0.0.5`, `[fd00::1]`), compared without case. */
export function parseAllowedHosts(raw: RawSetting | undefined): string[] {
  if (raw === undefined) return [];
  return list(raw, 'host names without a port', (entry) => /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])$/.test(entry)).map((entry) => entry.toLowerCase());
}

/** IP addresses or CIDR ranges (`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`): the proxies whose X-Forwarded-For is believed. */
export function parseTrustedProxies(raw: RawSetting | undefined): string[] {
  if (raw === undefined) return [];
  return list(raw, 'IP addresses or CIDR ranges like 10.0.0.0/8', (entry) => {
    const [address = '', bits, extra] = entry.split('/');
    const version = isIP(address);
    if (version === 0 || extra !== undefined) return false;
    return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
  });
}
