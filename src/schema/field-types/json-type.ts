import { fail, ok, type FieldType } from '../field-type.js';
import type { Dialect, JsonValue, ScalarType } from '../types.js';

const jsonColumn = (dialect: Dialect): string =>
  dialect === 'postgres' ? 'jsonb' : dialect === 'mysql' ? 'longtext' : 'text';

/** pg parses jsonb itself; SQLite and MySQL (longtext) hand back the JSON text. */
const fromDb = (raw: unknown, dialect: Dialect): JsonValue =>
  dialect === 'postgres' ? (raw as JsonValue) : (JSON.parse(String(raw)) as JsonValue);

function jsonLike(name: ScalarType, check: (value: unknown) => string | undefined): FieldType {
  return {
    name,
    columnType: (_def, dialect) => jsonColumn(dialect),
    parse: (value) => {
      const problem = check(value);
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
