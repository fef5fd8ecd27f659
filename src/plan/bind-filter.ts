import { MAX_SEARCH_WORDS, tokenize } from './search-tokens.js';
import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import type { Collection, Field, Relation } from '../schema/collection.js';
import { unstorableText } from '../schema/field-types/text-like.js';
import { END_INSTANT, MIN_INSTANT, parsePeriod, periodDays } from './date-period.js';
import { and, FALSE_NODE, or, TRUE_NODE, type ArrayElement, type CompareOp, type FilterNode, type LikeOp, type TextOp } from './filter-node.js';
import { UTC, type TimeZone } from './time-zone.js';

export const MAX_FILTER_DEPTH = 8;
export const MAX_FILTER_CONDITIONS = 200;
export const MAX_IN_VALUES = 1000;

const COMPARE: Record<string, CompareOp> = { $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte' };

/** Operators on one field; a new operator fails to compile until it is handled below. */
type FieldOperator =
  | '$eq' | '$ne' | '$gt' | '$gte' | '$lt' | '$lte' | '$in' | '$notIn' | '$between' | '$notBetween'
  | '$includes' | '$notIncludes' | '$startsWith' | '$notStartsWith' | '$endsWith' | '$notEndsWith' | '$endWith' | '$notEndWith'
  | '$like' | '$notLike' | '$iLike' | '$notILike'
  | '$empty' | '$notEmpty' | '$exists' | '$notExists' | '$isTruly' | '$isFalsy'
  | '$dateOn' | '$dateNotOn' | '$dateBefore' | '$dateNotBefore' | '$dateAfter' | '$dateNotAfter' | '$dateBetween'
  | '$anyOf' | '$noneOf' | '$match' | '$notMatch' | '$arrayEmpty' | '$arrayNotEmpty';

/** Which fields an operator applies to. */
type OperandClass = 'any' | 'equality' | 'ordered' | 'text' | 'boolean' | 'date' | 'array';

const FIELD_OPERATORS: Record<FieldOperator, OperandClass> = {
  $eq: 'equality', $ne: 'equality', $in: 'equality', $notIn: 'equality',
  $gt: 'ordered', $gte: 'ordered', $lt: 'ordered', $lte: 'ordered', $between: 'ordered', $notBetween: 'ordered',
  $includes: 'text', $notIncludes: 'text', $startsWith: 'text', $notStartsWith: 'text',
  $endsWith: 'text', $notEndsWith: 'text', $endWith: 'text', $notEndWith: 'text',
  $like: 'text', $notLike: 'text', $iLike: 'text', $notILike: 'text',
  $empty: 'any', $notEmpty: 'any', $exists: 'any', $notExists: 'any',
  $isTruly: 'boolean', $isFalsy: 'boolean',
  $dateOn: 'date', $dateNotOn: 'date', $dateBefore: 'date', $dateNotBefore: 'date',
  $dateAfter: 'date', $dateNotAfter: 'date', $dateBetween: 'date',
  $anyOf: 'array', $noneOf: 'array', $match: 'array', $notMatch: 'array', $arrayEmpty: 'array', $arrayNotEmpty: 'array',
};

/** Field types whose values are text the substring and pattern operators can read. */
const TEXT_TYPES: ReadonlySet<string> = new Set(['string', 'text', 'nanoid']);
const DATE_TYPES: ReadonlySet<string> = new Set(['date', 'dateOnly']);

interface Budget {
  conditions: number;
  /** The zone date periods are read in (the request's X-Timezone, else UTC). */
  zone: TimeZone;
}

function tooComplex(message: string, limit: string, max: number): ApiError {
  return new ApiError('FILTER_TOO_COMPLEX', message, { details: { limit, max } });
}

function count(budget: Budget): void {
  budget.conditions++;
  if (budget.conditions > MAX_FILTER_CONDITIONS) throw tooComplex(`a filter holds at most ${MAX_FILTER_CONDITIONS} conditions`, 'conditions', MAX_FILTER_CONDITIONS);
}

const operatorType = (field: Field, operator: string, message: string): ApiError =>
  new ApiError('FILTER_OPERATOR_TYPE', `${field.name} ${operator} ${message}`, { field: field.name });

function parseValue(field: Field, value: unknown, operator: string): unknown {
  const parsed = field.type.parse(value, field.def);
  if (!parsed.ok) throw operatorType(field, operator, `value ${parsed.message}`);
  return parsed.value;
}

/** A list operand: an array, qs's indexed object, or comma-separated text. */
function listOf(field: Field, value: unknown, operator: string, splitText = true): unknown[] {
  // qs turns `a[$in][0]=1` into an array, but large indexes into an object.
  const list = Array.isArray(value) ? value : isRecord(value) ? Object.values(value) : typeof value === 'string' && splitText ? value.split(',') : undefined;
  if (list === undefined) throw operatorType(field, operator, 'takes an array');
  if (list.length > MAX_IN_VALUES) throw tooComplex(`${operator} takes at most ${MAX_IN_VALUES} values`, 'values', MAX_IN_VALUES);
  return list;
}

function listValues(field: Field, value: unknown, operator: string): { values: unknown[]; hasNull: boolean } {
  const list = listOf(field, value, operator);
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

const isNullNode = (field: Field): FilterNode => ({ kind: 'isNull', field, negate: false });
const notNullNode = (field: Field): FilterNode => ({ kind: 'isNull', field, negate: true });

/** A negative operator: the positive one negated, and NULL (a missing value has no "a" in it). */
const negative = (field: Field, positive: FilterNode): FilterNode => or([not(positive), isNullNode(field)]);

function not(node: FilterNode): FilterNode {
  if (node.kind === 'const') return node.value ? FALSE_NODE : TRUE_NODE;
  return { kind: 'not', item: node };
}

/** `{"$empty": true}` and NocoBase's bare `{"$empty": …}` mean yes; false means the opposite. */
function flag(field: Field, operator: string, operand: unknown): boolean {
  if (operand === false || operand === 'false' || operand === 0 || operand === '0') return false;
  if (operand === true || operand === 'true' || operand === 1 || operand === '1' || operand === null || operand === '' || (isRecord(operand) && Object.keys(operand).length === 0)) return true;
  throw operatorType(field, operator, 'takes true or false');
}

function betweenValues(field: Field, value: unknown, operator: string): [unknown, unknown] {
  const list = listOf(field, value, operator);
  if (list.length !== 2 || list.some((item) => item === null)) throw operatorType(field, operator, 'takes [from, to]');
  return [parseValue(field, list[0], operator), parseValue(field, list[1], operator)];
}

/** Substring terms: one string or a list of them (a term's commas are its own). */
function textTerms(field: Field, value: unknown, operator: string): string[] {
  const list = Array.isArray(value) || isRecord(value) ? listOf(field, value, operator) : [value];
  return list.map((item) => {
    const term = typeof item === 'number' && Number.isFinite(item) ? String(item) : item;
    if (typeof term !== 'string') throw operatorType(field, operator, 'takes text or a list of texts');
    const problem = unstorableText(term);
    if (problem !== undefined) throw operatorType(field, operator, `value ${problem}`);
    return term;
  });
}

function textCondition(field: Field, op: TextOp, value: unknown, operator: string, negate: boolean): FilterNode {
  const values = [...new Set(textTerms(field, value, operator))];
  const positive: FilterNode = values.length === 0 ? FALSE_NODE : { kind: 'text', field, op, values };
  return negate ? negative(field, positive) : positive;
}

function likeCondition(field: Field, op: LikeOp, value: unknown, operator: string, negate: boolean): FilterNode {
  if (typeof value !== 'string') throw operatorType(field, operator, 'takes a pattern text');
  const problem = unstorableText(value);
  if (problem !== undefined) throw operatorType(field, operator, `value ${problem}`);
  const positive: FilterNode = { kind: 'like', field, op, pattern: value };
  return negate ? negative(field, positive) : positive;
}

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

const arrayEmpty = (field: Field): FilterNode => ({ kind: 'array', field, op: 'empty', values: [] });

function arrayCondition(field: Field, operator: FieldOperator, value: unknown): FilterNode {
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

/**
 * The bounds of a period on a date or dateOnly field: [start, end) as field values, a bound
 * beyond the years such a field holds being undefined (no bound), so no out-of-range value
 * ever reaches the database.
 */
function periodBounds(field: Field, operator: string, value: unknown, zone: TimeZone): { start: unknown; end: unknown } {
  // qs turns `[$dateBetween][0]=…&[$dateBetween][1]=…` into an array, or an indexed object.
  const period = parsePeriod(isRecord(value) ? Object.values(value) : value, zone);
  if (period === undefined) throw operatorType(field, operator, 'takes a period: 2026, 2026Q1, 2026W05, 2026-01, 2026-01-15, 2026-01-15T10:30, an ISO instant, or [from, to]');
  if (field.def.type === 'dateOnly') return periodDays(period, zone);
  return {
    start: period.start < MIN_INSTANT ? undefined : new Date(period.start),
    end: period.end >= END_INSTANT ? undefined : new Date(period.end),
  };
}

function dateCondition(field: Field, operator: FieldOperator, value: unknown, zone: TimeZone): FilterNode {
  const { start, end } = periodBounds(field, operator, value, zone);
  const compare = (op: CompareOp, bound: unknown): FilterNode => ({ kind: 'compare', field, op, value: bound });
  // Before the start / at or after the end: nothing when the period is open on that side.
  const before = start === undefined ? FALSE_NODE : compare('lt', start);
  const after = end === undefined ? FALSE_NODE : compare('gte', end);
  const inside = start === undefined && end === undefined
    ? notNullNode(field)
    : and([start === undefined ? TRUE_NODE : compare('gte', start), end === undefined ? TRUE_NODE : compare('lt', end)]);
  switch (operator) {
    case '$dateOn':
    case '$dateBetween':
      return inside;
    case '$dateNotOn':
      return or([before, after, isNullNode(field)]);
    case '$dateBefore':
      return before;
    case '$dateNotBefore':
      return or([start === undefined ? TRUE_NODE : compare('gte', start), isNullNode(field)]);
    case '$dateAfter':
      return after;
    default:
      return or([end === undefined ? TRUE_NODE : compare('lt', end), isNullNode(field)]);
  }
}

function checkApplies(field: Field, operator: FieldOperator): void {
  const operands = FIELD_OPERATORS[operator];
  const type = field.def.type;
  const fits =
    operands === 'any' ||
    (operands === 'equality' && field.type.capability !== 'none') ||
    (operands === 'ordered' && field.type.capability === 'ordered') ||
    (operands === 'text' && TEXT_TYPES.has(type)) ||
    (operands === 'boolean' && type === 'boolean') ||
    (operands === 'date' && DATE_TYPES.has(type)) ||
    (operands === 'array' && type === 'array');
  if (!fits) throw operatorType(field, operator, `does not apply to a ${type} field`);
}

function fieldCondition(field: Field, operator: string, value: unknown, budget: Budget): FilterNode {
  if (!(operator in FIELD_OPERATORS)) {
    throw new ApiError('FILTER_UNKNOWN_OPERATOR', `unknown operator ${operator}`, { field: field.name });
  }
  const op = operator as FieldOperator;
  checkApplies(field, op);
  count(budget);
  switch (op) {
    case '$eq':
      if (value === null) return isNullNode(field);
      if (Array.isArray(value)) return membership(field, value, op, false);
      return { kind: 'compare', field, op: 'eq', value: parseValue(field, value, op) };
    case '$ne':
      if (value === null) return notNullNode(field);
      if (Array.isArray(value)) return membership(field, value, op, true);
      // A missing value is not equal to anything.
      return or([{ kind: 'compare', field, op: 'ne', value: parseValue(field, value, op) }, isNullNode(field)]);
    case '$in':
      return membership(field, value, op, false);
    case '$notIn':
      return membership(field, value, op, true);
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      if (value === null || typeof value === 'object') throw operatorType(field, op, 'takes a single value');
      return { kind: 'compare', field, op: COMPARE[op]!, value: parseValue(field, value, op) };
    case '$between':
    case '$notBetween': {
      const [from, to] = betweenValues(field, value, op);
      const between = and([{ kind: 'compare', field, op: 'gte', value: from }, { kind: 'compare', field, op: 'lte', value: to }]);
      return op === '$between' ? between : negative(field, between);
    }
    case '$includes':
    case '$notIncludes':
      return textCondition(field, 'includes', value, op, op === '$notIncludes');
    case '$startsWith':
    case '$notStartsWith':
      return textCondition(field, 'startsWith', value, op, op === '$notStartsWith');
    case '$endsWith':
    case '$endWith':
    case '$notEndsWith':
    case '$notEndWith':
      return textCondition(field, 'endsWith', value, op, op === '$notEndsWith' || op === '$notEndWith');
    case '$like':
    case '$notLike':
      return likeCondition(field, 'like', value, op, op === '$notLike');
    case '$iLike':
    case '$notILike':
      return likeCondition(field, 'iLike', value, op, op === '$notILike');
    case '$empty':
    case '$notEmpty': {
      const type = field.def.type;
      const empty = TEXT_TYPES.has(type)
        ? or([isNullNode(field), { kind: 'compare', field, op: 'eq', value: '' }])
        : type === 'array' ? or([isNullNode(field), arrayEmpty(field)]) : isNullNode(field);
      return flag(field, op, value) === (op === '$empty') ? empty : not(empty);
    }
    case '$exists':
    case '$notExists':
      return flag(field, op, value) === (op === '$exists') ? notNullNode(field) : isNullNode(field);
    case '$isTruly':
    case '$isFalsy': {
      const truly: FilterNode = { kind: 'compare', field, op: 'eq', value: true };
      return flag(field, op, value) === (op === '$isTruly') ? truly : negative(field, truly);
    }
    case '$dateOn':
    case '$dateNotOn':
    case '$dateBefore':
    case '$dateNotBefore':
    case '$dateAfter':
    case '$dateNotAfter':
    case '$dateBetween':
      return dateCondition(field, op, value, budget.zone);
    case '$anyOf':
    case '$noneOf':
    case '$match':
    case '$notMatch':
    case '$arrayEmpty':
    case '$arrayNotEmpty':
      return arrayCondition(field, op, value);
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
  if (depth > MAX_FILTER_DEPTH) throw tooComplex(`a filter nests at most ${MAX_FILTER_DEPTH} levels`, 'depth', MAX_FILTER_DEPTH);
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
    } else if (key === '$search') {
      count(budget);
      parts.push(bindSearch(collection, value));
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

/**
 * Binds a raw filter (already JSON-decoded) to a collection; throws FILTER_* errors. Date
 * periods are read in `zone` (the request's X-Timezone).
 */
export function bindFilter(filter: unknown, collection: Collection, zone: TimeZone = UTC): FilterNode {
  return bindObject(filter, collection, 1, { conditions: 0, zone });
}

/**
 * `{"$search": "quick fox"}` (and `?q=`): every word, normalised like the stored tokens,
 * must be a prefix of a word of one of the collection's searchable fields. Blank text is no
 * condition; a collection without searchable fields is 400 FILTER_OPERATOR_TYPE.
 */
export function bindSearch(collection: Collection, value: unknown): FilterNode {
  if (typeof value !== 'string') throw new ApiError('FILTER_OPERATOR_TYPE', '$search takes a string of words', { field: '$search' });
  const fields = collection.fieldList.filter((field) => field.def.searchable === true);
  if (fields.length === 0) throw new ApiError('FILTER_OPERATOR_TYPE', `${collection.name} has no searchable fields`, { field: '$search' });
  const words = [...new Set(tokenize(value))];
  if (words.length > MAX_SEARCH_WORDS) throw tooComplex(`$search takes at most ${MAX_SEARCH_WORDS} words`, 'conditions', MAX_SEARCH_WORDS);
  if (words.length === 0) return TRUE_NODE;
  return { kind: 'search', collection: collection.name, key: collection.key, fields, words };
}
