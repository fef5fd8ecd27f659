import { fail, ok, type FieldType } from '../field-type.js';

export const DEFAULT_PRECISION = 10;
export const DEFAULT_SCALE = 2;

/** Canonical value and wire value: a decimal string with exactly `scale` digits after the point. */
export const decimalType: FieldType = {
  name: 'decimal',
  columnType: (def, dialect) =>
    dialect === 'sqlite' ? 'numeric' : `decimal(${def.precision ?? DEFAULT_PRECISION}, ${def.scale ?? DEFAULT_SCALE})`,
  parse: (value, def) => {
    const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
    if (typeof text !== 'string' || !/^-?\d+(\.\d+)?$/.test(text)) return fail('must be a decimal number');
    const precision = def.precision ?? DEFAULT_PRECISION;
    const scale = def.scale ?? DEFAULT_SCALE;
    const [whole = '0', fraction = ''] = text.replace(/^-/, '').split('.');
    if (fraction.length > scale) return fail(`must have at most ${scale} digits after the point`);
    if (whole.replace(/^0+/, '').length > precision - scale) {
      return fail(`must have at most ${precision - scale} digits before the point`);
    }
    return ok(text);
  },
  // SQLite's NUMERIC affinity turns the text into an INTEGER when it is integral (exact to 64
  // bits) and into a REAL otherwise; comparisons apply the same affinity to parameters.
  toDb: (value) => value,
  fromDb: (raw, dialect, def) => (dialect === 'sqlite' ? formatDecimal(raw, def.scale ?? DEFAULT_SCALE) : String(raw)),
  capability: 'ordered',
  options: ['precision', 'scale', 'min', 'max'],
  indexable: true,
};

/**
 * SQLite returns a REAL as a number and an integral value as a bigint (safe integers are on);
 * format both like the servers do, with exactly `scale` digits after the point.
 */
export function formatDecimal(raw: unknown, scale: number): string {
  const zeros = scale > 0 ? `.${'0'.repeat(scale)}` : '';
  if (typeof raw === 'bigint') return `${raw}${zeros}`;
  if (typeof raw === 'number') {
    // toFixed switches to exponent notation from 1e21 on; such a REAL is integral anyway.
    return Math.abs(raw) < 1e21 ? raw.toFixed(scale) : `${BigInt(raw)}${zeros}`;
  }
  return String(raw);
}
