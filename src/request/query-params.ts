import { parseTagCondition, type TagCondition } from './entity-tag.js';
import { ApiError } from '../errors/api-error.js';
import { checkFilterText, checkFilterValue } from './filter-limits.js';
import { parseTimeZone, type TimeZone } from './time-zone.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 1000;
export const MAX_KEYS = 1000;
export { MAX_FILTER_TEXT } from './filter-limits.js';
export const MAX_NAME_LIST = 200;

/** The query parameters Corral knows, parsed and typed; unknown ones are ignored. */
export interface QueryParams {
  /** Raw filter tree (from JSON text or qs's nested form); bound to the schema by the planner. */
  filter?: unknown;
  /** Raw keys from filterByTk, not yet coerced to the key type. */
  filterByTk?: KeyInput;
  fields?: string[];
  except?: string[];
  appends?: string[];
  sort?: string[];
  /** Names a create or update may touch; the others in the body are left out. */
  whitelist?: string[];
  /** Names a create or update leaves out. */
  blacklist?: string[];
  /** Associations whose nested objects may change existing targets (not only link them). */
  updateAssociationValues?: string[];
  /** firstOrCreate / updateOrCreate: the body fields that find the existing record. */
  filterKeys?: string[];
  page: number;
  pageSize: number;
  paginate: boolean;
  simplePaginate: boolean;
  /** `?count=`: how a list page counts its rows (exact, estimated, none); absent: exact up to the configured limit, estimated above. */
  count?: CountMode;
  /** Keyset paging: '' for the first page, then the opaque `meta.nextCursor`; absent otherwise. */
  cursor?: string;
  /** move: `sourceId`, `targetId`, `sortField`, `method`, `sticky` (and `targetScope`, refused) as sent. */
  move?: Record<string, unknown>;
  /** `?q=` on list: the same as a `$search` filter. */
  q?: string;
  /** `?cascade=true` on destroy of collections. */
  cascade: boolean;
  /** The `X-Timezone` header: the zone filter date periods are read in (UTC when absent). */
  timeZone?: TimeZone;
  /** The change feed resumes after this event id: `?after=`, else the `Last-Event-ID` header. */
  after?: number;
  /** `If-Match`: update and destroy of one record run only when its entity tag matches (docs/api.md, "Conditional requests"). */
  ifMatch?: TagCondition;
  /** `:export?format=` and `:import?format=`: csv or xlsx (checked by the action). */
  format?: string;
  /** `:import?mode=`: all or skip-invalid (checked by the import action). */
  mode?: string;
  /** `:import?mapping=`: a JSON object of header → field name (parsed by the import action). */
  mapping?: string;
  /** `changes:list?collection=`: the events of one collection only. */
  collection?: string;
  /** `attachments:create?attachmentField=posts.files`: the upload follows that field's rules (its `accept` list). */
  attachmentField?: string;
}

/** A key, keys, or (a composite key) an object of every key field: `filterByTk[a]=1&filterByTk[b]=2`. */
export type KeyInput = string | number | (string | number)[] | CompositeKeyInput;

/** One composite key as sent: key field name → value, not yet coerced. */
export type CompositeKeyInput = { readonly [field: string]: string | number };

/** At most this many parts in a composite key object (a table's primary key has few columns). */
const MAX_KEY_PARTS = 32;

/** How a list counts its rows: `exact` (count(*)), `estimated` (the database's estimate), `none` (hasNext only). */
export type CountMode = 'exact' | 'estimated' | 'none';

const COUNT_MODES: ReadonlySet<string> = new Set<CountMode>(['exact', 'estimated', 'none']);

const param = (name: string, message: string): ApiError => new ApiError('PARAM_INVALID', `${name} ${message}`, { field: name });

function parseNameList(name: string, value: unknown): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const parts = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : undefined;
  if (parts === undefined || !parts.every((part): part is string => typeof part === 'string')) {
    throw param(name, 'must be a comma-separated list or an array of names');
  }
  const names = parts.flatMap((part) => part.split(',')).map((part) => part.trim()).filter((part) => part !== '');
  if (names.length > MAX_NAME_LIST) throw param(name, `lists at most ${MAX_NAME_LIST} names`);
  return names;
}

/**
 * `fields` in every form NocoBase reads: `a,b`, `fields[]=a`, `fields[only]=a,b`,
 * `fields[except]=c`, and mixes of them (`fields=a&fields[only]=b&fields[except]=c`, which
 * qs reads as `{0: 'a', 1: {only: 'b'}, except: ['c']}`).
 */
function parseFieldsParam(value: unknown): { only?: string[]; except?: string[] } {
  if (value === undefined || value === null || value === '' || typeof value === 'string') return { only: parseNameList('fields', value) };
  const only: unknown[] = [];
  const except: unknown[] = [];
  const visit = (part: unknown, nested: boolean): void => {
    if (typeof part === 'string') only.push(part);
    else if (Array.isArray(part) && !nested) for (const item of part) visit(item, true);
    else if (typeof part === 'object' && part !== null && !Array.isArray(part)) {
      for (const [key, item] of Object.entries(part)) {
        if (key === 'only') only.push(...[item].flat());
        else if (key === 'except') except.push(...[item].flat());
        else if (/^\d+$/.test(key) && !nested) visit(item, true);
        else throw param('fields', `has no part ${key} (only: names to return, except: names to leave out)`);
      }
    } else throw param('fields', 'must be a comma-separated list or an array of names');
  };
  visit(value, false);
  const names = (list: unknown[]): string[] | undefined => (list.length === 0 ? undefined : parseNameList('fields', list));
  return { only: names(only), except: names(except) };
}

function parsePositiveInt(name: string, value: unknown, fallback: number, max: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value)) throw param(name, 'must be a positive integer');
  const n = Number(value);
  if (n < 1) throw param(name, 'must be at least 1');
  if (n > max) throw param(name, `must be at most ${max}`);
  return n;
}

function parseBoolean(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw param(name, 'must be true or false');
}

function parseFilter(value: unknown): unknown {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') {
    checkFilterText(value);
    try {
      return JSON.parse(value) as unknown;
    } catch {
      throw new ApiError('FILTER_INVALID', 'filter is not valid JSON');
    }
  }
  if (typeof value === 'object' && !Array.isArray(value)) {
    checkFilterValue(value);
    return value;
  }
  throw new ApiError('FILTER_INVALID', 'filter must be a JSON object');
}

function parseKeys(value: unknown): KeyInput | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let keys: unknown = value;
  if (typeof value === 'string' && (value.startsWith('[') || value.startsWith('{'))) {
    try {
      keys = JSON.parse(value) as unknown;
    } catch {
      // a string key that happens to start with '['
    }
  }
  // qs turns `filterByTk[0]=1` into an array, and very large indexes into an object; named parts
  // (`filterByTk[a]=1&filterByTk[b]=2`) are one composite key.
  if (typeof keys === 'object' && keys !== null && !Array.isArray(keys)) {
    const names = Object.keys(keys);
    if (names.length === 0 || names.every((name) => /^\d+$/.test(name))) keys = Object.values(keys);
    else return compositeKey(keys as Record<string, unknown>, names);
  }
  if (Array.isArray(keys)) {
    if (keys.length > MAX_KEYS) throw param('filterByTk', `holds at most ${MAX_KEYS} keys`);
    if (!keys.every((key): key is string | number => typeof key === 'string' || typeof key === 'number')) {
      throw new ApiError('KEY_INVALID', 'filterByTk must hold strings or numbers');
    }
    return keys;
  }
  if (typeof keys === 'string' || typeof keys === 'number') return keys;
  throw new ApiError('KEY_INVALID', 'filterByTk must be a key or an array of keys');
}

/** Named parts of one composite key; the names are checked against the key fields by bind-keys.ts. */
function compositeKey(parts: Record<string, unknown>, names: string[]): CompositeKeyInput {
  if (names.length > MAX_KEY_PARTS) throw param('filterByTk', `holds at most ${MAX_KEY_PARTS} key parts`);
  return Object.fromEntries(names.map((name) => {
    const part = parts[name];
    if (typeof part !== 'string' && typeof part !== 'number') throw new ApiError('KEY_INVALID', `filterByTk[${name}] must be a string or a number`, { field: 'filterByTk' });
    return [name, part];
  }));
}

/** The `X-Timezone` header: an IANA zone name or a ±HH:MM offset; anything else is 400. */
function parseTimeZoneHeader(value: unknown): TimeZone | undefined {
  if (value === undefined || value === '') return undefined;
  const zone = typeof value === 'string' ? parseTimeZone(value) : undefined;
  if (zone === undefined) throw param('X-Timezone', 'must be an IANA time zone (Europe/Berlin) or an offset (+05:30)');
  return zone;
}

/** An event id of the change feed: a non-negative integer. */
function parseEventId(value: unknown): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw param('after', 'must be an event id (a non-negative integer)');
  return n;
}

/** The parameters every request has, as a query without them gets them. */
const DEFAULT_PARAMS = { page: 1, pageSize: DEFAULT_PAGE_SIZE, paginate: true, simplePaginate: false, cascade: false } as const;

/** Parses the qs-decoded query object, and the request headers that shape a query. */
export function parseQueryParams(query: Record<string, unknown>, headers: Record<string, unknown> = {}): QueryParams {
  // No query string (a get, a write, an association list): only the headers can add anything.
  // Looking up each of the twenty parameter names in an empty object cost more than the rest.
  if (isEmpty(query)) return withHeaderParams({ ...DEFAULT_PARAMS }, undefined, headers);
  const params: QueryParams = {
    page: parsePositiveInt('page', query.page, DEFAULT_PARAMS.page, Number.MAX_SAFE_INTEGER),
    pageSize: parsePositiveInt('pageSize', query.pageSize, DEFAULT_PARAMS.pageSize, MAX_PAGE_SIZE),
    paginate: parseBoolean('paginate', query.paginate, DEFAULT_PARAMS.paginate),
    simplePaginate: parseBoolean('simplePaginate', query.simplePaginate, DEFAULT_PARAMS.simplePaginate),
    cascade: parseBoolean('cascade', query.cascade, DEFAULT_PARAMS.cascade),
  };
  if (query.count !== undefined && query.count !== '') {
    if (typeof query.count !== 'string' || !COUNT_MODES.has(query.count)) throw param('count', 'must be exact, estimated or none');
    params.count = query.count as CountMode;
  }
  if (Object.hasOwn(query, 'cursor')) {
    const cursor = query.cursor ?? '';
    if (typeof cursor !== 'string') throw param('cursor', 'must be a string');
    params.cursor = cursor;
  }
  if (query.format !== undefined) {
    if (typeof query.format !== 'string') throw param('format', 'must be a string');
    params.format = query.format;
  }
  for (const name of ['mode', 'mapping'] as const) {
    if (query[name] === undefined) continue;
    if (typeof query[name] !== 'string') throw param(name, 'must be a string');
    params[name] = query[name];
  }
  if (query.attachmentField !== undefined) {
    if (typeof query.attachmentField !== 'string') throw param('attachmentField', 'must be a string');
    params.attachmentField = query.attachmentField;
  }
  if (query.q !== undefined && query.q !== null && query.q !== '') {
    if (typeof query.q !== 'string') throw param('q', 'must be a string');
    params.q = query.q;
  }
  const move: Record<string, unknown> = {};
  for (const name of ['sourceId', 'targetId', 'sortField', 'method', 'sticky', 'targetScope']) if (query[name] !== undefined && query[name] !== null) move[name] = query[name];
  if (Object.keys(move).length > 0) params.move = move;
  const filter = parseFilter(query.filter);
  if (filter !== undefined) params.filter = filter;
  withHeaderParams(params, query.after, headers);
  if (query.collection !== undefined) {
    if (typeof query.collection !== 'string' || query.collection === '') throw param('collection', 'must be a collection name');
    params.collection = query.collection;
  }
  const keys = parseKeys(query.filterByTk);
  if (keys !== undefined) params.filterByTk = keys;
  for (const name of ['except', 'appends', 'sort', 'whitelist', 'blacklist', 'updateAssociationValues', 'filterKeys'] as const) {
    const list = parseNameList(name, query[name]);
    if (list !== undefined) params[name] = list;
  }
  if (query.fields !== undefined) {
    const { only, except } = parseFieldsParam(query.fields);
    if (only !== undefined) params.fields = only;
    if (except !== undefined) params.except = [...(params.except ?? []), ...except];
  }
  return params;
}

/** The parameters headers can give: `X-Timezone`, `If-Match`, and `Last-Event-ID` unless the query has `after`. */
function withHeaderParams(params: QueryParams, after: unknown, headers: Record<string, unknown>): QueryParams {
  const timeZone = parseTimeZoneHeader(headers['x-timezone']);
  if (timeZone !== undefined) params.timeZone = timeZone;
  const eventId = parseEventId(after ?? headers['last-event-id']);
  if (eventId !== undefined) params.after = eventId;
  const ifMatch = parseTagCondition('If-Match', headers['if-match']);
  if (ifMatch !== undefined) params.ifMatch = ifMatch;
  return params;
}

function isEmpty(query: Record<string, unknown>): boolean {
  for (const _name in query) return false;
  return true;
}
