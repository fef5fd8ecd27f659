import type { FieldDef, ScalarType } from '../schema/types.js';
import type { JsonSchema } from './json-schema.js';

const BIG_INT_TEXT = '^-?[0-9]+$';
const DECIMAL_TEXT = '^-?[0-9]+(\\.[0-9]+)?$';
/** HH:MM:SS; a column of an existing table may hold a fraction, and MySQL's TIME reaches ±838:59:59. */
const TIME_TEXT = '^-?[0-9]{2,3}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,6})?$';

/**
 * Each scalar type's value as it travels in a response (API.md §3): bigInt is a number while
 * it is a safe integer, else a string; decimal is always a string; dates are ISO strings.
 * Every type has an entry, or this fails to compile.
 */
const WIRE: Record<ScalarType, JsonSchema> = {
  string: { type: 'string' },
  text: { type: 'string' },
  integer: { type: 'integer' },
  bigInt: { anyOf: [{ type: 'integer' }, { type: 'string', pattern: BIG_INT_TEXT }] },
  float: { type: 'number' },
  double: { type: 'number' },
  decimal: { type: 'string', pattern: DECIMAL_TEXT },
  boolean: { type: 'boolean' },
  date: { type: 'string', format: 'date-time' },
  dateOnly: { type: 'string', format: 'date' },
  time: { type: 'string', pattern: TIME_TEXT },
  json: {},
  array: { type: 'array' },
  uuid: { type: 'string', format: 'uuid' },
  nanoid: { type: 'string' },
  password: { type: 'string', writeOnly: true },
  sort: { type: 'integer' },
};

/** What a client may send for each type: the wire form plus the other spellings the parser takes. */
const INPUT: Record<ScalarType, JsonSchema> = {
  ...WIRE,
  bigInt: { anyOf: [{ type: 'integer' }, { type: 'string', pattern: BIG_INT_TEXT }] },
  decimal: { anyOf: [{ type: 'number' }, { type: 'string', pattern: DECIMAL_TEXT }] },
  date: { type: 'string', description: 'ISO 8601 date-time (stored in UTC)' },
  dateOnly: { type: 'string', description: 'YYYY-MM-DD' },
  time: { type: 'string', description: 'HH:MM:SS' },
};

function describe(def: FieldDef, schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (def.title !== undefined) out.title = def.title;
  if (def.description !== undefined) out.description = def.description;
  return out;
}

/** A field's value in a response row. */
export function wireValueSchema(def: FieldDef): JsonSchema {
  const schema = describe(def, WIRE[def.type]);
  if (def.system !== undefined) schema.readOnly = true;
  return schema;
}

/** A field's value in a create or update body, with its validation options. */
export function inputValueSchema(def: FieldDef): JsonSchema {
  const schema = describe(def, INPUT[def.type]);
  if (def.enum !== undefined) schema.enum = def.enum;
  if (def.min !== undefined) schema.minimum = def.min;
  if (def.max !== undefined) schema.maximum = def.max;
  if (def.minLength !== undefined) schema.minLength = def.minLength;
  const maxLength = def.maxLength ?? (def.type === 'string' ? def.length : undefined);
  if (maxLength !== undefined) schema.maxLength = maxLength;
  if (def.pattern !== undefined) schema.pattern = def.pattern;
  if (def.defaultValue !== undefined) schema.default = def.defaultValue;
  return schema;
}
