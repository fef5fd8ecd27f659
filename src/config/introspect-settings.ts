import type { IntrospectConfig } from './config.js';
import { ConfigError } from './config-error.js';
import { quote, type RawSetting as Raw } from './raw-setting.js';
import type { Setting } from './settings.js';

type Lookup = (setting: Setting) => Raw | undefined;

/** A comma list of table patterns (`*`, `?`); empty entries are refused. */
function patterns(raw: Raw | undefined): string[] {
  if (raw === undefined) return [];
  const list = raw.value.split(',').map((entry) => entry.trim());
  if (list.some((entry) => entry === '')) throw new ConfigError(`${raw.name} must be a comma list of table name patterns such as Invoice*,Customer (got ${quote(raw.value)})`);
  return list;
}

/** CORRAL_INTROSPECT=on|off and the settings that only mean something with it on. */
export function introspection(lookup: Lookup): IntrospectConfig | undefined {
  const mode = lookup('CORRAL_INTROSPECT');
  if (mode !== undefined && mode.value !== 'on' && mode.value !== 'off') throw new ConfigError(`${mode.name} must be on or off (got ${quote(mode.value)})`);
  const include = lookup('CORRAL_INTROSPECT_INCLUDE');
  const exclude = lookup('CORRAL_INTROSPECT_EXCLUDE');
  const schema = lookup('CORRAL_INTROSPECT_SCHEMA');
  if (mode?.value !== 'on') {
    const stray = include ?? exclude ?? schema;
    if (stray !== undefined) throw new ConfigError(`${stray.name} applies to introspection only: add --introspect (CORRAL_INTROSPECT=on)`);
    return undefined;
  }
  return { include: patterns(include), exclude: patterns(exclude), ...(schema === undefined ? {} : { schema: schema.value }) };
}
