import { VALUE_ENCODINGS } from '../../db/dialects/adapters.js';
import { fail, ok, type FieldType } from '../field-type.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Canonical value: a JS bigint. On the wire: a number when safe, else a decimal string. */
export const bigIntType: FieldType = {
  name: 'bigInt',
  column: () => ({ kind: 'bigInt' }),
  parse: (value) => {
    let n: bigint;
    if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value);
    else if (typeof value === 'string' && /^-?\d{1,19}$/.test(value)) n = BigInt(value);
    else return fail('must be an integer (a string for values beyond 2^53)');
    if (n < INT64_MIN || n > INT64_MAX) return fail('must fit in 64 bits');
    return ok(n);
  },
  toDb: (value, dialect) => VALUE_ENCODINGS[dialect].bigInt(value as bigint),
  fromDb: (raw) => {
    const n = typeof raw === 'bigint' ? raw : BigInt(raw as string | number);
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
  },
  capability: 'ordered',
  options: ['min', 'max'],
  indexable: true,
};
