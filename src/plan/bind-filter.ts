import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import type { Collection, Field, Relation } from '../schema/collection.js';
import { and, FALSE_NODE, or, TRUE_NODE, type CompareOp, type FilterNode } from './filter-node.js';

export const MAX_FILTER_DEPTH = 8;
export const MAX_FILTER_CONDITIONS = 200;
export const MAX_IN_VALUES = 1000;

const COMPARE: Record<string, CompareOp> = { $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte' };

/** Operators on one field; a new operator fails to compile until it is handled below. */
type FieldOperator = '$eq' | '$ne' | '$gt' | '$gte' | '$lt' | '$lte' | '$in' | '$notIn';
const FIELD_OPERATORS: Record<FieldOperator, true> = { $eq: true, $ne: true, $gt: true, $gte: true, $lt: true, $lte: true, $in: true, $notIn: true };

interface Budget {
  conditions: number;
}


function tooComplex(message: string): ApiError {
  return new ApiError('FILTER_TOO_COMPLEX', message);
}

function count(budget: Budget): void {
  budget.conditions++;
  if (budget.conditions > MAX_FILTER_CONDITIONS) throw tooComplex(`a filter holds at most ${MAX_FILTER_CONDITIONS} conditions`);
}

function parseValue(field: Field, value: unknown, operator: string): unknown {
  const parsed = field.type.parse(value, field.def);
  if (!parsed.ok) {
    throw new ApiError('FILTER_OPERATOR_TYPE', `${field.name} ${operator}: value ${parsed.message}`, { field: field.name });
  }
  return parsed.value;
}

function listValues(field: Field, value: unknown, operator: string): { values: unknown[]; hasNull: boolean } {
  // qs turns `a[$in][0]=1` into an array, but large indexes into an object.
  const list = Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : typeof value === 'string' ? value.split(',') : undefined;
  if (list === undefined) throw new ApiError('FILTER_OPERATOR_TYPE', `${field.name} ${operator} takes an array`, { field: field.name });
  if (list.length > MAX_IN_VALUES) throw tooComplex(`${operator} takes at most ${MAX_IN_VALUES} values`);
  const values = list.filter((item) => item !== null).map((item) => parseValue(field, item, operator));
  return { values, hasNull: values.length !== list.length };
}

function membership(field: Field, value: unknown, operator: string, negate: boolean): FilterNode {
  const { values, hasNull } = listValues(field, value, operator);
  const inList: FilterNode = values.length === 0 ? FALSE_NODE : { kind: 'in', field, values, negate: false };
  const isNull: FilterNode = { kind: 'isNull', field, negate: false };
  if (!negate) return hasNull ? or([inList, isNull]) : inList;
  // NOT IN also matches NULL, unless null is one of the excluded values.
  const notIn: FilterNode = values.length === 0 ? TRUE_NODE : { kind: 'in', field, values, negate: true };
  return hasNull ? and([notIn, { kind: 'isNull', field, negate: true }]) : or([notIn, isNull]);
}

function fieldCondition(field: Field, operator: string, value: unknown, budget: Budget): FilterNode {
  if (!(operator in FIELD_OPERATORS)) {
    throw new ApiError('FILTER_UNKNOWN_OPERATOR', `unknown operator ${operator}`, { field: field.name });
  }
  if (field.type.capability === 'none') {
    throw new ApiError('FILTER_OPERATOR_TYPE', `${field.name} (${field.def.type}) cannot be filtered`, { field: field.name });
  }
  count(budget);
  const op = operator as FieldOperator;
  switch (op) {
    case '$eq':
      if (value === null) return { kind: 'isNull', field, negate: false };
      if (Array.isArray(value)) return membership(field, value, op, false);
      return { kind: 'compare', field, op: 'eq', value: parseValue(field, value, op) };
    case '$ne':
      if (value === null) return { kind: 'isNull', field, negate: true };
      if (Array.isArray(value)) return membership(field, value, op, true);
      // A missing value is not equal to anything.
      return or([{ kind: 'compare', field, op: 'ne', value: parseValue(field, value, op) }, { kind: 'isNull', field, negate: false }]);
    case '$in':
      return membership(field, value, op, false);
    case '$notIn':
      return membership(field, value, op, true);
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      if (field.type.capability !== 'ordered') {
        throw new ApiError('FILTER_OPERATOR_TYPE', `${op} does not apply to ${field.name} (${field.def.type})`, { field: field.name });
      }
      if (value === null || typeof value === 'object') {
        throw new ApiError('FILTER_OPERATOR_TYPE', `${field.name} ${op} takes a single value`, { field: field.name });
      }
      return { kind: 'compare', field, op: COMPARE[op]!, value: parseValue(field, value, op) };
  }
}

function bindField(field: Field, value: unknown, budget: Budget): FilterNode {
  if (!isRecord(value)) return fieldCondition(field, '$eq', value, budget);
  const entries = Object.entries(value);
  if (entries.length === 0) return TRUE_NODE;
  return and(
    entries.map(([operator, operand]) => {
      if (!operator.startsWith('$')) {
        throw new ApiError('FILTER_UNKNOWN_FIELD', `${field.name}.${operator} is not a field`, { field: `${field.name}.${operator}` });
      }
      return fieldCondition(field, operator, operand, budget);
    }),
  );
}

function bindList(value: unknown, operator: string, collection: Collection, depth: number, budget: Budget): FilterNode[] {
  const items = Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : undefined;
  if (items === undefined) throw new ApiError('FILTER_INVALID', `${operator} takes an array of conditions`);
  return items.map((item) => bindObject(item, collection, depth + 1, budget));
}

function bindObject(filter: unknown, collection: Collection, depth: number, budget: Budget): FilterNode {
  if (depth > MAX_FILTER_DEPTH) throw tooComplex(`a filter nests at most ${MAX_FILTER_DEPTH} levels`);
  if (!isRecord(filter)) throw new ApiError('FILTER_INVALID', 'each condition must be an object');
  const parts: FilterNode[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and') {
      // An empty group is no condition (the NocoBase UI sends `{"$and":[]}` for "no filter").
      parts.push(and(bindList(value, key, collection, depth, budget)));
    } else if (key === '$or') {
      const items = bindList(value, key, collection, depth, budget);
      parts.push(items.length === 0 ? TRUE_NODE : or(items));
    } else if (key === '$not') {
      parts.push({ kind: 'not', item: bindObject(value, collection, depth + 1, budget) });
    } else if (key.startsWith('$')) {
      throw new ApiError('FILTER_UNKNOWN_OPERATOR', `unknown operator ${key} at the top of a condition`);
    } else {
      const field = collection.fields.get(key);
      if (field !== undefined && !field.hidden) {
        parts.push(bindField(field, value, budget));
        continue;
      }
      // `author.name` ≡ `{author: {name: …}}`: a condition on the related rows.
      const dot = key.indexOf('.');
      const relation = collection.relations.get(dot === -1 ? key : key.slice(0, dot));
      if (relation === undefined) {
        throw new ApiError('FILTER_UNKNOWN_FIELD', `${collection.name} has no field ${key}`, { field: key });
      }
      parts.push(bindRelated(relation, dot === -1 ? value : { [key.slice(dot + 1)]: value }, depth, budget));
    }
  }
  return and(parts);
}

/**
 * A condition on an association: some related row matches (for to-many paths a parent
 * matches once, however many children do). `$exists` / `$notExists` test for any related row.
 */
function bindRelated(relation: Relation, value: unknown, depth: number, budget: Budget): FilterNode {
  if (isRecord(value) && ('$exists' in value || '$notExists' in value)) {
    const { $exists, $notExists, ...rest } = value;
    count(budget);
    const parts: FilterNode[] = [];
    if ($exists !== undefined) parts.push(existence(relation, $exists, '$exists'));
    if ($notExists !== undefined) parts.push(existence(relation, $notExists, '$notExists', true));
    if (Object.keys(rest).length > 0) parts.push(bindRelated(relation, rest, depth, budget));
    return and(parts);
  }
  return { kind: 'exists', relation, where: bindObject(value, relation.target, depth + 1, budget) };
}

function existence(relation: Relation, operand: unknown, operator: string, negate = false): FilterNode {
  // `{"$exists": true}` and the bare `{"$exists": …}` NocoBase sends both mean "present".
  const wanted = operand === false || operand === 'false' ? negate : !negate;
  const node: FilterNode = { kind: 'exists', relation, where: TRUE_NODE };
  if (operand !== true && operand !== false && operand !== 'true' && operand !== 'false' && operand !== null && operand !== '') {
    throw new ApiError('FILTER_OPERATOR_TYPE', `${relation.name} ${operator} takes true or false`, { field: relation.name });
  }
  return wanted ? node : { kind: 'not', item: node };
}

/** Binds a raw filter (already JSON-decoded) to a collection; throws FILTER_* errors. */
export function bindFilter(filter: unknown, collection: Collection): FilterNode {
  return bindObject(filter, collection, 1, { conditions: 0 });
}
