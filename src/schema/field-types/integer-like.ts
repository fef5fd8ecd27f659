import { fail, ok, type Parsed } from '../field-type.js';

export const INT32_MIN = -2147483648;
export const INT32_MAX = 2147483647;

/** Accepts a JSON integer, or a string of digits (filter values arrive as strings from qs). */
export function parseInt32(value: unknown): Parsed {
  const n = typeof value === 'string' && /^-?\d{1,10}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) return fail('must be an integer');
  if (n < INT32_MIN || n > INT32_MAX) return fail(`must be between ${INT32_MIN} and ${INT32_MAX}`);
  return ok(n);
}

/** Driver integers arrive as number, bigint (SQLite safe integers) or string (pg int8, mysql BIGINT). */
export function intFromDb(raw: unknown): number {
  return typeof raw === 'number' ? raw : Number(raw);
}
