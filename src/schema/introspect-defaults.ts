import { FIELD_TYPES } from './field-types/index.js';
import type { FieldDef, JsonValue } from './types.js';

/** `'a''b'::text` → `a'b`, `((-1))` → `-1`: a default spelled as a literal, without casts and parentheses. */
function literalText(sql: string): { kind: 'string' | 'number' | 'boolean'; text: string } | undefined {
  let text = sql.trim();
  while (/^\(.*\)$/s.test(text)) text = text.slice(1, -1).trim();
  text = text.replace(/::[a-z_ ]+(\(\d+(,\s*\d+)?\))?(\[\])?$/i, '').trim();
  while (/^\(.*\)$/s.test(text)) text = text.slice(1, -1).trim();
  const quoted = /^'((?:[^']|'')*)'$/s.exec(text);
  if (quoted !== null) return { kind: 'string', text: quoted[1]!.replace(/''/g, "'") };
  if (/^[+-]?\d+(\.\d+)?$/.test(text)) return { kind: 'number', text };
  if (/^(true|false)$/i.test(text)) return { kind: 'boolean', text: text.toLowerCase() };
  return undefined;
}

/**
 * The `defaultValue` of a column whose default is a literal the field's type accepts, else
 * undefined: an expression (`now()`, `nextval(…)`, `CURRENT_TIMESTAMP`) is the database's to fill.
 */
export function literalDefault(sql: string | undefined, field: FieldDef): JsonValue | undefined {
  if (sql === undefined) return undefined;
  const literal = literalText(sql);
  if (literal === undefined) return undefined;
  let value: JsonValue;
  switch (field.type) {
    case 'integer':
    case 'bigInt':
    case 'float':
    case 'double':
    case 'sort':
      if (literal.kind === 'boolean') return undefined;
      value = Number(literal.text);
      break;
    case 'decimal':
      if (literal.kind === 'boolean') return undefined;
      value = literal.text;
      break;
    case 'boolean':
      value = literal.text === 'true' || literal.text === '1' ? true : literal.text === 'false' || literal.text === '0' ? false : literal.text;
      break;
    case 'json':
    case 'array':
    case 'password':
      return undefined;
    default:
      value = literal.text;
  }
  return FIELD_TYPES[field.type].parse(value, field).ok ? value : undefined;
}
