import ipaddr from 'ipaddr.js';
import { fail, ok, type Capability, type FieldType, type Parsed } from './field-type.js';
import type { Dialect, FieldDef, ScalarType } from './types.js';

/**
 * Columns of existing tables whose type Corral does not model (`inet`, `money`, `xml`, …) are
 * served as read-only text (introspect-types.ts), but a filter value still reaches the database
 * bound to the column's own type, whose input function may refuse it, and some of these types
 * have no equality or ordering at all. This is the one place that knows what such a type takes:
 * its field gets a type that checks a filter or key value the way the database's input function
 * would (400 naming the field, never a database error) and says which operators and sorts apply.
 *
 * A type not listed here keeps the text type's behaviour; a value its input function refuses
 * is still a 400 (`VALIDATION_FAILED`, from the driver's invalid-input error: http/error-body.ts),
 * without the field named.
 */
interface NativeRule {
  /** The Corral type the column is served as, when not read-only text. */
  readonly on?: ScalarType;
  /** Reads a value in place of the Corral type's own reading (a wider range than Corral's). */
  readonly parse?: (value: unknown) => Parsed;
  /** Why the value is not one the type's input function takes, or undefined. */
  readonly check?: (value: string) => string | undefined;
  readonly capability?: Capability | 'none';
}

const PREFIX = /^(.*)\/(\d{1,3})$/;

function address(value: string, cidr: boolean): string | undefined {
  const match = PREFIX.exec(value);
  const host = match === null ? value : match[1]!;
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(host) || (cidr && /^\d{1,3}(\.\d{1,3}){0,2}$/.test(host));
  const v6 = !v4 && ipaddr.IPv6.isValid(host);
  if (!v4 && !v6) return 'must be an IPv4 or IPv6 address';
  if (match !== null && Number(match[2]) > (v4 ? 32 : 128)) return `has a prefix length past ${v4 ? 32 : 128}`;
  return undefined;
}

/** PostgreSQL's accepted separators (`:`, `-`, `.`) around the hex digits of a MAC address. */
const macAddress = (digits: number) => (value: string) =>
  new RegExp(`^[0-9a-f]{${digits}}$`, 'i').test(value.replace(/[:.-]/g, '')) ? undefined : `must be a MAC address of ${digits} hex digits`;

/** An amount: digits with an optional sign, currency sign, grouping commas, decimals or parentheses. */
const MONEY = /^\s*[-+(]?\s*\$?\s*[-+]?(\d[\d,]*(\.\d*)?|\.\d+)\s*\)?\s*$/;

const POSTGRES: Readonly<Record<string, NativeRule>> = {
  inet: { check: (value) => address(value, false) },
  cidr: { check: (value) => address(value, true) },
  macaddr: { check: macAddress(12) },
  macaddr8: { check: (value) => (macAddress(12)(value) === undefined ? undefined : macAddress(16)(value)) },
  money: { check: (value) => (MONEY.test(value) ? undefined : 'must be an amount') },
  // Every interval spelling (`1 day`, `02:00`, `P1D`, `@ 3 hours`) has a digit.
  interval: { check: (value) => (/\d/.test(value) ? undefined : 'must be an interval such as "1 day" or "P1D"') },
  bit: { check: (value) => (/^([01]*|[xX][0-9a-fA-F]*)$/.test(value) ? undefined : 'must be a bit string (0 and 1)') },
  'bit varying': { check: (value) => (/^([01]*|[xX][0-9a-fA-F]*)$/.test(value) ? undefined : 'must be a bit string (0 and 1)') },
  'time with time zone': { check: (value) => (/^\s*(\d|allballs)/i.test(value) ? undefined : 'must be a time of day with an offset') },
  timetz: { check: (value) => (/^\s*(\d|allballs)/i.test(value) ? undefined : 'must be a time of day with an offset') },
  // xml has no equality and no ordering: only the null tests and the text operators (on its text) apply.
  xml: { capability: 'none' },
};

/** MySQL's TIME is a duration as much as a time of day: -838:59:59 to 838:59:59, with a fraction. */
const MYSQL_TIME = /^(-?)(\d{1,3}):([0-5]\d)(?::([0-5]\d)(\.\d{1,6})?)?$/;

function mysqlTime(value: unknown): Parsed {
  const match = typeof value === 'string' ? MYSQL_TIME.exec(value) : null;
  if (match === null || Number(match[2]) > 838) return fail('must be a time [-]HHH:MM[:SS[.ffffff]] between -838:59:59 and 838:59:59');
  const hours = match[2]!.padStart(2, '0');
  return ok(`${match[1]}${hours}:${match[3]}:${match[4] ?? '00'}${match[5] ?? ''}`);
}

const MYSQL: Readonly<Record<string, NativeRule>> = {
  time: { on: 'time', parse: mysqlTime },
};

const RULES: Record<Dialect, Readonly<Record<string, NativeRule>>> = { postgres: POSTGRES, mysql: MYSQL, sqlite: {} };

/** The type's name without arguments or array brackets: `bit varying(8)` → `bit varying`. */
const baseName = (rawType: string): string => rawType.toLowerCase().replace(/\(.*$/, '').replace(/\[\]$/, '').trim();

/**
 * The field type of a column: `base` itself, unless the field is a column of an existing table
 * of a type listed above (read-only text, or the rule's `on` type), whose rule reads its values
 * and may narrow its capability.
 */
export function nativeFieldType(base: FieldType, def: FieldDef, dialect: Dialect): FieldType {
  if (def.rawType === undefined) return base;
  const rule = RULES[dialect][baseName(def.rawType)];
  if (rule === undefined) return base;
  const served = rule.on === undefined ? def.readOnly === true && (def.type === 'string' || def.type === 'text') : def.type === rule.on;
  if (!served) return base;
  const { check, parse } = rule;
  return {
    ...base,
    capability: rule.capability ?? base.capability,
    parse: (value: unknown, field: FieldDef): Parsed => {
      const parsed = parse === undefined ? base.parse(value, field) : parse(value);
      if (!parsed.ok || check === undefined) return parsed;
      const problem = check(String(parsed.value));
      return problem === undefined ? ok(parsed.value) : fail(`${problem} (the column is ${def.rawType})`);
    },
  };
}
