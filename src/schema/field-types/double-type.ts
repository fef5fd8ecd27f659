import { fail, ok, type FieldType, type Parsed } from '../field-type.js';
import type { ScalarType } from '../types.js';

function parseFinite(value: unknown): Parsed {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) return fail('must be a finite number');
  return ok(n);
}

/** `float` and `double` are both stored as 8-byte floats so values read back identically everywhere. */
function floating(name: ScalarType): FieldType {
  return {
    name,
    column: () => ({ kind: 'double' }),
    parse: parseFinite,
    toDb: (value) => value,
    fromDb: (raw) => Number(raw),
    capability: 'ordered',
    options: ['min', 'max'],
    indexable: true,
  };
}

export const doubleType = floating('double');
export const floatType = floating('float');
