import type { Field } from '../schema/collection.js';
import { unstorableText } from '../schema/field-types/text-like.js';
import { isRecord } from '../is-record.js';
import { and, FALSE_NODE, type ArrayElement, type FilterNode } from './filter-node.js';
import { flag, listOf, negative, not, notNullNode, operatorType } from './filter-operands.js';

export type ArrayOperator = '$anyOf' | '$noneOf' | '$match' | '$notMatch' | '$arrayEmpty' | '$arrayNotEmpty';

/** Array operands: strings and finite numbers, distinct, in a canonical order. */
function arrayValues(field: Field, value: unknown, operator: string): ArrayElement[] {
  const list = Array.isArray(value) || isRecord(value) ? listOf(field, value, operator) : [value];
  const seen = new Map<string, ArrayElement>();
  for (const item of list) {
    if (typeof item === 'string') {
      const problem = unstorableText(item);
      if (problem !== undefined) throw operatorType(field, operator, `value ${problem}`);
    } else if (typeof item !== 'number' || !Number.isFinite(item)) {
      throw operatorType(field, operator, 'takes strings and numbers');
    }
    seen.set(JSON.stringify(item), item);
  }
  return [...seen.keys()].sort().map((key) => seen.get(key)!);
}

export const arrayEmpty = (field: Field): FilterNode => ({ kind: 'array', field, op: 'empty', values: [] });

/** The operators of `array` fields. */
export function arrayCondition(field: Field, operator: ArrayOperator, value: unknown): FilterNode {
  switch (operator) {
    case '$arrayEmpty':
      return flag(field, operator, value) ? arrayEmpty(field) : and([notNullNode(field), not(arrayEmpty(field))]);
    case '$arrayNotEmpty':
      return flag(field, operator, value) ? and([notNullNode(field), not(arrayEmpty(field))]) : arrayEmpty(field);
    default: {
      const values = arrayValues(field, value, operator);
      const anyOf = operator === '$anyOf' || operator === '$noneOf';
      const positive: FilterNode = anyOf
        ? values.length === 0 ? FALSE_NODE : { kind: 'array', field, op: 'anyOf', values }
        : values.length === 0 ? arrayEmpty(field) : { kind: 'array', field, op: 'match', values };
      return operator === '$noneOf' || operator === '$notMatch' ? negative(field, positive) : positive;
    }
  }
}
