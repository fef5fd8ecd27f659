import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import type { Collection, Field, Relation } from '../schema/collection.js';
import type { TimeZone } from '../request/time-zone.js';
import { bindFilter } from './bind-filter.js';
import { checkFilterValue } from '../request/filter-limits.js';
import { TRUE_NODE, type FilterNode } from './filter-node.js';

/** Most groups a `query` answers (and the default `limit`). */
export const MAX_QUERY_ROWS = 1000;
/** Most measures plus dimensions of one `query`. */
export const MAX_QUERY_COLUMNS = 20;
/** Longest alias of a measure or dimension. */
export const MAX_ALIAS_LENGTH = 63;

export type Aggregation = 'count' | 'sum' | 'avg' | 'min' | 'max';
export type DateBucket = 'day' | 'month' | 'year';
export type HavingOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';

/** A value a query reads: a field of the collection or, through to-one relations, of a related one. */
export interface QueryValue {
  field: Field;
  path: Relation[];
}

/** One output column: a group key (dimension) or an aggregate (measure). */
export type QueryColumn =
  | { kind: 'dimension'; alias: string; value: QueryValue; bucket?: DateBucket }
  | { kind: 'measure'; alias: string; aggregation: Aggregation; distinct: boolean; value?: QueryValue };

export type HavingNode =
  | { kind: 'and' | 'or'; items: HavingNode[] }
  | { kind: 'compare'; column: number; op: HavingOp; value: number | string | null };

/** A `query` bound to the schema: output columns (dimensions first), filter, having, order, limit. */
export interface QueryPlan {
  collection: Collection;
  columns: QueryColumn[];
  where: FilterNode;
  having?: HavingNode;
  /** Output column indexes; the remaining dimensions follow, so the answer is deterministic. */
  order: { column: number; desc: boolean }[];
  limit: number;
}

const NUMERIC = new Set(['integer', 'bigInt', 'float', 'double', 'decimal', 'sort']);
const DATES = new Set(['date', 'dateOnly']);
const BUCKETS: Record<string, DateBucket> = { day: 'day', month: 'month', year: 'year', 'YYYY-MM-DD': 'day', 'YYYY-MM': 'month', YYYY: 'year' };
const HAVING_OPS: Record<string, HavingOp> = { $eq: 'eq', $ne: 'ne', $gt: 'gt', $gte: 'gte', $lt: 'lt', $lte: 'lte' };

const invalid = (message: string, field?: string) => new ApiError('BODY_INVALID', message, field === undefined ? {} : { field });

/** `"author.name"` or NocoBase's `["author","name"]` to path segments. */
function segments(raw: unknown, where: string): string[] {
  if (typeof raw === 'string' && raw !== '') return raw.split('.');
  if (Array.isArray(raw) && raw.length > 0 && raw.every((part): part is string => typeof part === 'string' && part !== '')) return raw.flatMap((part) => part.split('.'));
  throw invalid(`${where}: field must be a name, a dot path or an array of names`, where);
}

function resolveValue(collection: Collection, parts: string[]): QueryValue {
  const path: Relation[] = [];
  let current = collection;
  const name = parts.join('.');
  for (const part of parts.slice(0, -1)) {
    const relation = current.relations.get(part);
    if (relation === undefined || relation.toMany) throw new ApiError('FIELDS_UNKNOWN', `${name}: ${current.name}.${part} is not a to-one association`, { field: name });
    path.push(relation);
    current = relation.target;
  }
  const field = current.fields.get(parts[parts.length - 1]!);
  if (field === undefined || field.hidden || field.type.capability === 'none') throw new ApiError('FIELDS_UNKNOWN', `${current.name} has no field ${parts[parts.length - 1]} that a query can read`, { field: name });
  return { field, path };
}

function list(body: Record<string, unknown>, name: string): Record<string, unknown>[] {
  const value = body[name];
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every(isRecord)) throw invalid(`${name} must be an array of objects`, name);
  return value;
}

function alias(raw: unknown, fallback: string, where: string): string {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== 'string' || raw === '' || raw.length > MAX_ALIAS_LENGTH) throw invalid(`${where}: alias must be a name of 1 to ${MAX_ALIAS_LENGTH} characters`, where);
  return raw;
}

function bindHaving(raw: unknown, columns: QueryColumn[], depth = 0): HavingNode {
  if (!isRecord(raw) || depth > 8) throw invalid('having must be an object of aliases and comparisons', 'having');
  const items: HavingNode[] = [];
  for (const [key, value] of Object.entries(raw)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(value)) throw invalid(`having: ${key} takes an array`, 'having');
      items.push({ kind: key === '$and' ? 'and' : 'or', items: value.map((item) => bindHaving(item, columns, depth + 1)) });
      continue;
    }
    const column = columns.findIndex((c) => c.alias === key);
    if (column < 0) throw invalid(`having: ${key} is not an alias of a measure or dimension`, 'having');
    const conditions = isRecord(value) ? Object.entries(value) : [['$eq', value] as const];
    for (const [operator, operand] of conditions) {
      const op = HAVING_OPS[operator];
      if (op === undefined) throw new ApiError('FILTER_UNKNOWN_OPERATOR', `having: ${operator} is not one of ${Object.keys(HAVING_OPS).join(' ')}`, { field: key });
      if (!(operand === null || typeof operand === 'string' || (typeof operand === 'number' && Number.isFinite(operand)))) throw invalid(`having: ${key} ${operator} takes a number, a string or null`, 'having');
      items.push({ kind: 'compare', column, op, value: operand });
    }
  }
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

/**
 * Reads the body of `query`: `{measures:[{field?,aggregation,alias?,distinct?}],
 * dimensions:[{field,alias?,format?}], orders:[{field|alias,order}], filter, having, limit}`.
 */
export function bindQuery(collection: Collection, body: unknown, zone?: TimeZone): QueryPlan {
  if (!isRecord(body)) throw invalid('query takes an object');
  const columns: QueryColumn[] = [];
  for (const [index, raw] of list(body, 'dimensions').entries()) {
    const parts = segments(raw.field, `dimensions[${index}]`);
    const value = resolveValue(collection, parts);
    const column: QueryColumn = { kind: 'dimension', alias: alias(raw.alias, parts.join('.'), `dimensions[${index}]`), value };
    if (raw.format !== undefined && raw.format !== null) {
      const bucket = typeof raw.format === 'string' ? BUCKETS[raw.format] : undefined;
      if (bucket === undefined || !DATES.has(value.field.type.name)) throw invalid(`dimensions[${index}]: format takes day, month or year on a date field`, `dimensions[${index}]`);
      column.bucket = bucket;
    }
    columns.push(column);
  }
  for (const [index, raw] of list(body, 'measures').entries()) {
    const where = `measures[${index}]`;
    const aggregation = raw.aggregation ?? 'count';
    if (aggregation !== 'count' && aggregation !== 'sum' && aggregation !== 'avg' && aggregation !== 'min' && aggregation !== 'max') throw invalid(`${where}: aggregation must be count, sum, avg, min or max`, where);
    const star = aggregation === 'count' && (raw.field === undefined || raw.field === '*');
    const parts = star ? undefined : segments(raw.field, where);
    const value = parts === undefined ? undefined : resolveValue(collection, parts);
    if ((aggregation === 'sum' || aggregation === 'avg') && !NUMERIC.has(value!.field.type.name)) throw new ApiError('FILTER_OPERATOR_TYPE', `${where}: ${aggregation} needs a numeric field`, { field: parts!.join('.') });
    if ((aggregation === 'min' || aggregation === 'max') && value!.field.type.capability !== 'ordered') throw new ApiError('FILTER_OPERATOR_TYPE', `${where}: ${aggregation} needs an ordered field`, { field: parts!.join('.') });
    if (raw.distinct !== undefined && typeof raw.distinct !== 'boolean') throw invalid(`${where}: distinct must be true or false`, where);
    const fallback = parts === undefined ? 'count' : `${parts.join('.')}`;
    columns.push({ kind: 'measure', alias: alias(raw.alias, fallback, where), aggregation, distinct: raw.distinct === true, ...(value === undefined ? {} : { value }) });
  }
  if (columns.length === 0) throw invalid('query needs at least one measure or dimension');
  if (columns.length > MAX_QUERY_COLUMNS) throw invalid(`query takes at most ${MAX_QUERY_COLUMNS} measures and dimensions`);
  const aliases = new Set(columns.map((column) => column.alias));
  if (aliases.size !== columns.length) throw invalid('every measure and dimension needs its own alias');

  const order: QueryPlan['order'] = [];
  for (const [index, raw] of list(body, 'orders').entries()) {
    const where = `orders[${index}]`;
    const name = raw.alias ?? (raw.field === undefined ? undefined : segments(raw.field, where).join('.'));
    const column = columns.findIndex((c) => c.alias === name);
    if (column < 0) throw invalid(`${where}: order by the alias or field of a measure or dimension`, where);
    const direction = raw.order ?? 'asc';
    if (direction !== 'asc' && direction !== 'desc') throw invalid(`${where}: order must be asc or desc`, where);
    order.push({ column, desc: direction === 'desc' });
  }

  let limit = MAX_QUERY_ROWS;
  if (body.limit !== undefined && body.limit !== null) {
    if (typeof body.limit !== 'number' || !Number.isInteger(body.limit) || body.limit < 1 || body.limit > MAX_QUERY_ROWS) throw invalid(`limit must be an integer from 1 to ${MAX_QUERY_ROWS}`, 'limit');
    limit = body.limit;
  }
  if (body.filter !== undefined && body.filter !== null) checkFilterValue(body.filter);
  const where = body.filter === undefined || body.filter === null ? TRUE_NODE : bindFilter(body.filter, collection, zone);
  const plan: QueryPlan = { collection, columns, where, order, limit };
  if (body.having !== undefined && body.having !== null) plan.having = bindHaving(body.having, columns);
  return plan;
}
