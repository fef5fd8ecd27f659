import { fail, ok, type Parsed } from '../field-type.js';
import type { FieldDef } from '../types.js';

/** Length in code points, the unit varchar(n) counts on PostgreSQL and MySQL. */
export function codePointLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** A NUL or a lone UTF-16 surrogate. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a string cannot be stored alike on every dialect, or undefined: PostgreSQL refuses NUL
 * in text and jsonb, and a lone surrogate has no UTF-8 form (drivers would store U+FFFD).
 */
export function unstorableText(value: string): string | undefined {
  const match = UNSTORABLE.exec(value);
  if (match === null) return undefined;
  return match[0] === '\u0000' ? 'must not contain the NUL character' : 'must be valid Unicode (a lone surrogate has no UTF-8 form)';
}

export function parseString(value: unknown, def: FieldDef, maxColumnLength?: number): Parsed {
  if (typeof value !== 'string') return fail('must be a string');
  const problem = unstorableText(value);
  if (problem !== undefined) return fail(problem);
  const length = codePointLength(value);
  if (maxColumnLength !== undefined && length > maxColumnLength) {
    return fail(`must be at most ${maxColumnLength} characters`);
  }
  return ok(value);
}
