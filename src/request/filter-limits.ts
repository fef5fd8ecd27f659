import { MAX_SEARCH_WORDS } from '../text/search-tokens.js';
export { MAX_SEARCH_WORDS };
import { ApiError } from '../errors/api-error.js';

/** Bytes of a filter's JSON text (UTF-8): the `filter` parameter, or a body filter serialised. */
export const MAX_FILTER_TEXT = 16 * 1024;
/** Levels of nested condition objects (`$and`/`$or` items, `$not`, association paths). */
export const MAX_FILTER_DEPTH = 8;
/** Conditions in one filter: each operator on a field, each `$search`, each `$exists` on an association. */
export const MAX_FILTER_CONDITIONS = 200;
/** Values in one list operand (`$in`, `$anyOf`, `$includes` terms, …). */
export const MAX_IN_VALUES = 1000;

/** The filter limits by the name `details.limit` carries. */
export const FILTER_LIMITS = {
  text: MAX_FILTER_TEXT,
  depth: MAX_FILTER_DEPTH,
  conditions: MAX_FILTER_CONDITIONS,
  values: MAX_IN_VALUES,
  searchWords: MAX_SEARCH_WORDS,
} as const;

export type FilterLimit = keyof typeof FILTER_LIMITS;

const MESSAGES: Record<FilterLimit, (max: number, actual: number, subject: string) => string> = {
  text: (max, actual) => `filter text is ${actual} bytes, longer than ${max}`,
  depth: (max, actual) => `a filter nests at most ${max} levels, this one ${actual}`,
  conditions: (max, actual) => `a filter holds at most ${max} conditions, this one ${actual}`,
  values: (max, actual, subject) => `${subject} takes at most ${max} values, got ${actual}`,
  searchWords: (max, actual) => `$search takes at most ${max} words, got ${actual}`,
};

/**
 * 400 FILTER_TOO_COMPLEX for one named limit: one catalogue code (API.md lists one), each
 * limit with its own message and `details: {limit, max, actual}`.
 */
export function filterLimitError(limit: FilterLimit, actual: number, subject = ''): ApiError {
  const max = FILTER_LIMITS[limit];
  return new ApiError('FILTER_TOO_COMPLEX', MESSAGES[limit](max, actual, subject), { details: { limit, max, actual } });
}

/** Checks the size of a filter's JSON text (bytes of UTF-8). */
export function checkFilterText(text: string): void {
  // Characters first: a string that long cannot be shorter in bytes, and counting bytes costs a pass.
  if (text.length <= MAX_FILTER_TEXT / 4) return;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_FILTER_TEXT) throw filterLimitError('text', bytes);
}

/**
 * Checks the size of a filter that arrived as a value (a JSON body, or qs's nested form) as
 * if it had been sent as text, so the same 16 KiB bound every path.
 */
export function checkFilterValue(value: unknown): void {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    // Only a nesting deep enough to exhaust the stack gets here: far past the depth limit.
    if (error instanceof RangeError) throw filterLimitError('depth', nestingDepth(value));
    throw error;
  }
  if (text !== undefined) checkFilterText(text);
}

/** Levels of nested objects and arrays, counted without recursion (for values too deep to serialise). */
function nestingDepth(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [item, depth] = top;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}
