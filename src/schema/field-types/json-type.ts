import { fail, ok, type FieldType } from '../field-type.js';
import { VALUE_ENCODINGS } from '../../db/dialects/adapters.js';
import type { Dialect, JsonValue, ScalarType } from '../types.js';
import { jsonDepthOver } from '../../json-depth.js';
import { unstorableText } from './text-like.js';

/** Deepest value a json or array field stores (a scalar is 0, `[]` is 1). */
export const MAX_JSON_DEPTH = 32;

/** pg parses jsonb itself; SQLite and MySQL (longtext) hand back the JSON text. */
const fromDb = (raw: unknown, dialect: Dialect): JsonValue => VALUE_ENCODINGS[dialect].json(raw);

/** Walks a JSON value (without recursion, so depth cannot overflow the stack) for text jsonb cannot hold. */
function unstorableJson(value: unknown): string | undefined {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      const problem = unstorableText(next);
      if (problem !== undefined) return `text ${problem}`;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (typeof next === 'object' && next !== null) {
      for (const [key, item] of Object.entries(next)) pending.push(key, item);
    }
  }
  return undefined;
}

function jsonLike(name: ScalarType, check: (value: unknown) => string | undefined): FieldType {
  return {
    name,
    column: () => ({ kind: 'json' }),
    parse: (value) => {
      const problem = check(value) ?? (jsonDepthOver(value, MAX_JSON_DEPTH) ? `must nest at most ${MAX_JSON_DEPTH} levels deep` : unstorableJson(value));
      return problem === undefined ? ok(value) : fail(problem);
    },
    toDb: (value) => JSON.stringify(value),
    fromDb,
    capability: 'none',
    options: [],
    indexable: false,
  };
}

export const jsonType = jsonLike('json', () => undefined);
export const arrayType = jsonLike('array', (value) => (Array.isArray(value) ? undefined : 'must be an array'));
