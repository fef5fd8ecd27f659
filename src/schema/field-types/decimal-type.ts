import { VALUE_ENCODINGS } from '../../db/dialects/adapters.js';
import { fail, ok, type FieldType } from '../field-type.js';

export const DEFAULT_PRECISION = 10;
export const DEFAULT_SCALE = 2;

/** Canonical value and wire value: a decimal string with exactly `scale` digits after the point. */
export const decimalType: FieldType = {
  name: 'decimal',
  column: (def) => ({ kind: 'decimal', precision: def.precision ?? DEFAULT_PRECISION, scale: def.scale ?? DEFAULT_SCALE }),
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
  fromDb: (raw, dialect, def) => VALUE_ENCODINGS[dialect].decimal(raw, def.scale ?? DEFAULT_SCALE),
  capability: 'ordered',
  options: ['precision', 'scale', 'min', 'max'],
  indexable: true,
};

