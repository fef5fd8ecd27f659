import { tokenize } from '../text/search-tokens.js';
import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import type { Collection, Field, Relation } from '../schema/collection.js';
import { unstorableText } from '../schema/field-types/text-like.js';
import { arrayCondition, arrayEmpty } from './bind-array-condition.js';
import { dateCondition } from './bind-date-condition.js';
import { and, FALSE_NODE, or, TRUE_NODE, type CompareOp, type FilterNode, type LikeOp, type TextOp } from './filter-node.js';
import { filterLimitError, MAX_FILTER_CONDITIONS, MAX_FILTER_DEPTH, MAX_SEARCH_WORDS } from '../request/filter-limits.js';
import { flag, isNullNode, listOf, negative, not, notNullNode, operatorType, parseValue, TEXT_TYPES } from './filter-operands.js';
import { matchesNullRow } from './null-row.js';
import { UTC, type TimeZone } from '../request/time-zone.js';

export { MAX_FILTER_CONDITIONS, MAX_FILTER_DEPTH, MAX_IN_VALUES } from '../request/filter-limits.js';

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

const DATE_TYPES: ReadonlySet<string> = new Set(['date', 'dateOnly']);

/**
 * What binding has counted. Depth and conditions are counted over the whole filter (its text
 * is bounded, so this is bounded too) and checked at the end, so `details.actual` is exact.
 */
interface Budget {
  conditions: number;
  depth: number;
  /** The zone date periods are read in (the request's X-Timezone, else UTC). */
  zone: TimeZone;
}

function count(budget: Budget): void {
  budget.conditions++;
}

/** The depth or conditions limit the budget passed, if any (depth first: it is checked first by the reader too). */
function overLimit(budget: Budget): ApiError | undefined {
  if (budget.depth > MAX_FILTER_DEPTH) return filterLimitError('depth', budget.depth);
  if (budget.conditions > MAX_FILTER_CONDITIONS) return filterLimitError('conditions', budget.conditions);
  return undefined;
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
      // A column of a native type (inet, xml…) may not take '' or compare at all: empty is null there.
      const empty = TEXT_TYPES.has(type) && field.type.capability !== 'none' && field.type.parse('', field.def).ok
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
  budget.depth = Math.max(budget.depth, depth);
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
      parts.push(bindPath(collection, key, value, depth, budget));
    }
  }
  return and(parts);
}

/**
 * A dotted key, NocoBase's own form: `name.$eq` ≡ `{name: {$eq: …}}`, and `author.name` ≡
 * `{author: {name: …}}` (so `group.id.$exists` ≡ `{group: {id: {$exists: …}}}`).
 */
function bindPath(collection: Collection, key: string, value: unknown, depth: number, budget: Budget): FilterNode {
  const dot = key.indexOf('.');
  const head = dot === -1 ? key : key.slice(0, dot);
  const rest = key.slice(dot + 1);
  const field = dot === -1 ? undefined : collection.fields.get(head);
  if (field !== undefined && !field.hidden && rest.startsWith('$')) return bindField(field, { [rest]: value }, budget);
  const relation = collection.relations.get(head);
  if (relation === undefined) throw new ApiError('FILTER_UNKNOWN_FIELD', `${collection.name} has no field ${key}`, { field: key });
  return bindRelated(relation, dot === -1 ? value : { [rest]: value }, depth, budget);
}

/**
 * A condition on an association: some related row matches (for to-many paths a parent
 * matches once, however many children do), or there is none and the condition holds for
 * NULLs. `$exists` / `$notExists` test for any related row.
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
  const where = bindObject(value, relation.target, depth + 1, budget);
  const some: FilterNode = { kind: 'exists', relation, where };
  // A row without related rows is tested as related to one row of NULLs, as NocoBase's LEFT
  // JOIN does: `{"group.id": {"$notExists": true}}` finds the members without a group.
  return matchesNullRow(where) ? or([some, not({ kind: 'exists', relation, where: TRUE_NODE })]) : some;
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
  const budget: Budget = { conditions: 0, depth: 0, zone };
  let node: FilterNode;
  try {
    node = bindObject(filter, collection, 1, budget);
  } catch (error) {
    // A filter past a size limit is refused as such, whatever else is wrong further in.
    throw overLimit(budget) ?? error;
  }
  const over = overLimit(budget);
  if (over !== undefined) throw over;
  return node;
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
  if (words.length > MAX_SEARCH_WORDS) throw filterLimitError('searchWords', words.length);
  if (words.length === 0) return TRUE_NODE;
  return { kind: 'search', collection: collection.name, key: collection.key, fields, words };
}
