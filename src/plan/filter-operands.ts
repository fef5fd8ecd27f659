import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import type { Field } from '../schema/collection.js';
import { filterLimitError, MAX_IN_VALUES } from '../request/filter-limits.js';
import { FALSE_NODE, or, TRUE_NODE, type FilterNode } from './filter-node.js';

/** Field types whose values are text the substring and pattern operators can read. */
export const TEXT_TYPES: ReadonlySet<string> = new Set(['string', 'text', 'nanoid']);

export const operatorType = (field: Field, operator: string, message: string): ApiError =>
  new ApiError('FILTER_OPERATOR_TYPE', `${field.name} ${operator} ${message}`, { field: field.name });

/**
 * An operand as the field's canonical value. A finite number against a text field is read as
 * its decimal text, as NocoBase's SQL comparison does (`{"name": {"$eq": 123}}` finds "123").
 */
export function parseValue(field: Field, value: unknown, operator: string): unknown {
  const parsed = field.type.parse(value, field.def);
  if (parsed.ok) return parsed.value;
  // Only on the failure path: the common case pays nothing for the coercion.
  if (typeof value === 'number' && Number.isFinite(value) && TEXT_TYPES.has(field.def.type)) return parseValue(field, String(value), operator);
  throw operatorType(field, operator, `value ${parsed.message}`);
}

/**
 * A list operand: an array, qs's indexed object, or comma-separated text; a single number or
 * boolean is a list of one and null an empty list (NocoBase casts both the same way).
 */
export function listOf(field: Field, value: unknown, operator: string, splitText = true): unknown[] {
  // qs turns `a[$in][0]=1` into an array, but large indexes into an object.
  const list = Array.isArray(value)
    ? value
    : isRecord(value)
      ? Object.values(value)
      : typeof value === 'string' && splitText
        ? value.split(',')
        : typeof value === 'number' || typeof value === 'boolean'
          ? [value]
          : value === null
            ? []
            : undefined;
  if (list === undefined) throw operatorType(field, operator, 'takes an array');
  if (list.length > MAX_IN_VALUES) throw filterLimitError('values', list.length, operator);
  return list;
}

/** `{"$empty": true}` and NocoBase's bare `{"$empty": …}` mean yes; false means the opposite. */
export function flag(field: Field, operator: string, operand: unknown): boolean {
  if (operand === false || operand === 'false' || operand === 0 || operand === '0') return false;
  if (operand === true || operand === 'true' || operand === 1 || operand === '1' || operand === null || operand === '' || (isRecord(operand) && Object.keys(operand).length === 0)) return true;
  throw operatorType(field, operator, 'takes true or false');
}

export const isNullNode = (field: Field): FilterNode => ({ kind: 'isNull', field, negate: false });
export const notNullNode = (field: Field): FilterNode => ({ kind: 'isNull', field, negate: true });

export function not(node: FilterNode): FilterNode {
  if (node.kind === 'const') return node.value ? FALSE_NODE : TRUE_NODE;
  return { kind: 'not', item: node };
}

/** A negative operator: the positive one negated, and NULL (a missing value has no "a" in it). */
export const negative = (field: Field, positive: FilterNode): FilterNode => or([not(positive), isNullNode(field)]);
