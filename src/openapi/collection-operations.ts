import type { Collection, Relation } from '../schema/collection.js';
import { CURSOR_PAGE_META_SCHEMA, PAGE_META_SCHEMA, SIMPLE_PAGE_META_SCHEMA } from './common-schemas.js';
import { createSchemaName, keySchemaName, rowSchemaName, updateSchemaName } from './collection-schemas.js';
import { ANY_OBJECT, ref, type JsonSchema } from './json-schema.js';
import { parameterRef, type QueryParameter } from './parameters.js';
import { CONDITIONAL_WRITE_ERROR_STATUSES, dataEnvelope, errorResponses, ETAG_HEADERS, FEED_ERROR_STATUSES, IF_MATCH, IF_NONE_MATCH, jsonResponse, LOCATION_HEADER, NOT_MODIFIED, READ_ERROR_STATUSES, WRITE_ERROR_STATUSES } from './responses.js';

/** The actions a collection (or an association) offers in the document. */
export type DocumentedAction =
  | 'list'
  | 'get'
  | 'count'
  | 'create'
  | 'update'
  | 'destroy'
  | 'add'
  | 'set'
  | 'remove'
  | 'toggle'
  | 'firstOrCreate'
  | 'updateOrCreate'
  | 'query'
  | 'move'
  | 'subscribe'
  | 'export'
  | 'import';

const ROW_ACTIONS: readonly DocumentedAction[] = ['list', 'get', 'count', 'create', 'update', 'destroy'];
/** A collection also finds-or-writes, aggregates, reorders and streams its changes; an association does not. */
export const COLLECTION_ACTIONS: readonly DocumentedAction[] = [...ROW_ACTIONS, 'firstOrCreate', 'updateOrCreate', 'query', 'move', 'subscribe', 'export', 'import'];
const TO_MANY_ACTIONS: readonly DocumentedAction[] = [...ROW_ACTIONS, 'add', 'set', 'remove', 'toggle', 'export', 'import'];
/** A to-one association names its one row: list answers like get, there is no count, and add/toggle do not apply. */
const TO_ONE_ACTIONS: readonly DocumentedAction[] = ['list', 'get', 'create', 'update', 'destroy', 'set', 'remove'];

export const associationActions = (relation: Relation): readonly DocumentedAction[] => (relation.toMany ? TO_MANY_ACTIONS : TO_ONE_ACTIONS);

/** Where an operation sits and what it is called. */
export interface OperationTarget {
  /** The collection whose rows the operation reads or writes. */
  collection: Collection;
  operationId: string;
  /** The resource named in summaries: `posts` or `posts.comments`. */
  label: string;
  tag: string;
  /** Path parameters of an association path (the source key). */
  pathParameters: JsonSchema[];
  /** A to-one association: get/update/destroy need no key. */
  toOne: boolean;
}

const READ_METHOD = 'get';
const WRITE_METHOD = 'post';

interface ActionSpec {
  method: typeof READ_METHOD | typeof WRITE_METHOD;
  summary: string;
  query: readonly QueryParameter[];
  keys: 'none' | 'one' | 'many';
}

const SPECS: Record<DocumentedAction, ActionSpec> = {
  list: { method: READ_METHOD, summary: 'List rows, paged', query: ['filter', 'q', 'fields', 'except', 'appends', 'sort', 'page', 'pageSize', 'paginate', 'simplePaginate', 'count', 'cursor'], keys: 'many' },
  get: { method: READ_METHOD, summary: 'Get one row', query: ['filter', 'fields', 'except', 'appends', 'sort'], keys: 'one' },
  count: { method: READ_METHOD, summary: 'Count matching rows', query: ['filter', 'count'], keys: 'many' },
  create: { method: WRITE_METHOD, summary: 'Create a row (or an array of rows, in one transaction)', query: ['appends', 'whitelist', 'blacklist', 'updateAssociationValues'], keys: 'none' },
  update: { method: WRITE_METHOD, summary: 'Update the row of a key, or every row of a key array or filter', query: ['filter', 'appends', 'whitelist', 'blacklist', 'updateAssociationValues'], keys: 'many' },
  destroy: { method: WRITE_METHOD, summary: 'Delete the row of a key, or every row of a key array or filter', query: ['filter'], keys: 'many' },
  add: { method: WRITE_METHOD, summary: 'Link rows by key', query: [], keys: 'many' },
  set: { method: WRITE_METHOD, summary: 'Replace the linked rows by these keys', query: [], keys: 'many' },
  remove: { method: WRITE_METHOD, summary: 'Unlink rows by key', query: [], keys: 'many' },
  toggle: { method: WRITE_METHOD, summary: 'Link the keys not linked, unlink the others', query: [], keys: 'many' },
  firstOrCreate: { method: WRITE_METHOD, summary: 'The first row whose filterKeys fields equal the body, or a new row from the body', query: ['filterKeys', 'appends', 'whitelist', 'blacklist'], keys: 'none' },
  updateOrCreate: { method: WRITE_METHOD, summary: 'Update the first row whose filterKeys fields equal the body, or create one from the body', query: ['filterKeys', 'appends', 'whitelist', 'blacklist'], keys: 'none' },
  query: { method: WRITE_METHOD, summary: 'Aggregate: measures, dimensions, filter, having, orders, limit in the body', query: [], keys: 'none' },
  move: { method: WRITE_METHOD, summary: 'Move a row within its sort field (sourceId, targetId or sticky, sortField, method; query or body)', query: [], keys: 'none' },
  subscribe: { method: READ_METHOD, summary: 'Stream the changes as Server-Sent Events', query: ['filter', 'fields', 'except', 'after'], keys: 'none' },
  export: { method: READ_METHOD, summary: 'Download the rows a paginate=false list answers as CSV or XLSX', query: ['filter', 'q', 'fields', 'except', 'appends', 'sort'], keys: 'many' },
  import: { method: WRITE_METHOD, summary: 'Create (or, with filterKeys, update) rows from an uploaded CSV or XLSX file', query: ['filterKeys'], keys: 'none' },
};

export const actionMethod = (action: DocumentedAction): string => SPECS[action].method;

function filterByTk(collection: Collection, keys: 'one' | 'many', toOne: boolean): JsonSchema {
  const key = ref(keySchemaName(collection.name));
  return {
    name: 'filterByTk',
    in: 'query',
    description: toOne ? 'not needed: the association holds one row' : keys === 'one' ? 'the key (or use filter)' : 'a key, or an array of keys (filterByTk[]=1&filterByTk[]=2, or a JSON array)',
    schema: keys === 'one' ? key : { anyOf: [key, { type: 'array', items: key }] },
  };
}

function listResponse(row: JsonSchema): JsonSchema {
  const data = { type: 'array', items: row };
  const paged = (meta: string): JsonSchema => ({ type: 'object', required: ['data', 'meta'], additionalProperties: false, properties: { data, meta: ref(meta) } });
  return {
    description:
      '`{data, meta}` (page, pageSize, count, totalPage, and countEstimated: true when count is an estimate); with simplePaginate=true or count=none `meta` has hasNext instead of count; ' +
      'a page starting past CORRAL_MAX_OFFSET rows is 400 PAGE_TOO_DEEP (use cursor); ' +
      'with cursor= `meta` is {pageSize, hasNext, nextCursor}; with paginate=false only `{data}`',
    content: { 'application/json': { schema: { oneOf: [paged(PAGE_META_SCHEMA), paged(SIMPLE_PAGE_META_SCHEMA), paged(CURSOR_PAGE_META_SCHEMA), dataEnvelope(data)] } } },
  };
}

function linkBody(target: Collection): JsonSchema {
  const key = ref(keySchemaName(target.name));
  return {
    required: false,
    description: 'keys (when filterByTk does not name them): a key, an array of keys, or [key, {through values}] pairs (belongsToMany)',
    content: { 'application/json': { schema: { anyOf: [key, { type: 'array', items: { anyOf: [key, { type: 'array', prefixItems: [key, ANY_OBJECT], minItems: 2, maxItems: 2 }] } }] } } },
  };
}

/** The export's `format` (only export takes it: inline rather than a shared component). */
const FORMAT_PARAMETER: JsonSchema = { name: 'format', in: 'query', description: "the export's file format", schema: { type: 'string', enum: ['csv', 'xlsx'], default: 'csv' } };

/** The export's file (docs/import-export.md): written as it is read, so a failure after the first byte cuts it short. */
const EXPORT_RESPONSE: JsonSchema = {
  description: 'The file, streamed (`Content-Disposition: attachment; filename="<collection>.<format>"`): a header row of field titles, then one row per record; to-one appends as `relation.field` columns; text that would start a formula escaped with a leading `\'`',
  headers: { 'Content-Disposition': { schema: { type: 'string' } } },
  content: {
    'text/csv': { schema: { type: 'string' } },
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: { type: 'string', format: 'binary' } },
  },
};

/** The import's own query parameters (each may also be a text part of the form). */
const IMPORT_PARAMETERS: JsonSchema[] = [
  { name: 'format', in: 'query', description: 'the file format; by default told by the content (a zip is XLSX), then the file name and type, else CSV', schema: { type: 'string', enum: ['csv', 'xlsx'] } },
  { name: 'mode', in: 'query', description: '`all`: every row in one transaction or none (400 IMPORT_INVALID); `skip-invalid`: the valid rows are written, the others reported', schema: { type: 'string', enum: ['all', 'skip-invalid'], default: 'all' } },
  { name: 'mapping', in: 'query', description: 'a JSON object of header → field name, or null to ignore a column; unmapped headers match a field by name, then by title', schema: { type: 'string' } },
];

/** What an import answers: the same object as JSON or as the last event of the progress stream. */
const IMPORT_SUMMARY: JsonSchema = {
  type: 'object',
  required: ['total', 'created', 'updated', 'skipped', 'errors'],
  properties: {
    total: { type: 'integer', minimum: 0, description: 'data rows read' },
    created: { type: 'integer', minimum: 0 },
    updated: { type: 'integer', minimum: 0 },
    skipped: { type: 'integer', minimum: 0, description: 'rows not written (mode=skip-invalid)' },
    errors: {
      type: 'array',
      description: 'rejected rows (at most 1000 listed): row is the spreadsheet row number, the header being row 1',
      items: {
        type: 'object',
        required: ['row', 'field', 'code', 'message'],
        properties: { row: { type: 'integer', minimum: 2 }, field: { type: ['string', 'null'] }, code: { type: 'string' }, message: { type: 'string' } },
      },
    },
    invalid: { type: 'integer', minimum: 0, description: 'present when more rows were rejected than errors lists' },
  },
};

const IMPORT_BODY: JsonSchema = {
  required: true,
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['file'],
        properties: {
          file: { type: 'string', format: 'binary', description: 'the CSV (UTF-8, header row first) or XLSX file (its first worksheet); at most CORRAL_IMPORT_MAX_BYTES and CORRAL_IMPORT_MAX_ROWS' },
          mode: { type: 'string', enum: ['all', 'skip-invalid'] },
          filterKeys: { type: 'string', description: 'comma-separated field names: a row matching a record on them updates it' },
          mapping: { type: 'string', description: 'JSON object of header → field name or null' },
          format: { type: 'string', enum: ['csv', 'xlsx'] },
        },
      },
    },
  },
};

const IMPORT_RESPONSE: JsonSchema = {
  description:
    '`{data: {total, created, updated, skipped, errors}}`. With `Accept: text/event-stream`: Server-Sent Events, `progress` ({processed}; for CSV also bytesRead and bytes, the file size) every 1000 rows, then `result` with this body, or `error` with {status, errors}',
  content: {
    'application/json': { schema: dataEnvelope(IMPORT_SUMMARY) },
    'text/event-stream': { schema: { type: 'string' } },
  },
};

/** One action of a collection or association as an OpenAPI operation object. */
export function operation(target: OperationTarget, action: DocumentedAction): JsonSchema {
  const spec = SPECS[action];
  const { collection } = target;
  const row = ref(rowSchemaName(collection.name));
  const parameters: JsonSchema[] = [...target.pathParameters];
  if (spec.keys !== 'none') parameters.push(filterByTk(collection, spec.keys === 'one' ? 'one' : 'many', target.toOne));
  for (const name of spec.query) parameters.push(parameterRef(name));
  const op: JsonSchema = { operationId: target.operationId, summary: `${spec.summary} (${target.label})`, tags: [target.tag], parameters };
  const writes = spec.method === WRITE_METHOD;
  let success: Record<string, JsonSchema>;
  switch (action) {
    case 'list':
      success = { 200: target.toOne ? jsonResponse('`{data}`: the one linked row (as get)', dataEnvelope(row)) : listResponse(row) };
      break;
    case 'get':
      success = { 200: jsonResponse('`{data}`: the row', dataEnvelope(row)) };
      break;
    case 'count':
    case 'destroy':
      success = { 200: jsonResponse(action === 'count' ? '`{data}`: the number of matching rows' : '`{data}`: the number of rows deleted', dataEnvelope({ type: 'integer', minimum: 0 })) };
      break;
    case 'create': {
      const one = ref(createSchemaName(collection.name));
      op.requestBody = { required: true, content: { 'application/json': { schema: target.toOne ? one : { anyOf: [one, { type: 'array', items: one, minItems: 1 }] } } } };
      success = { 201: jsonResponse('`{data}`: the created row (an array for a bulk create; Location only for one row)', dataEnvelope(target.toOne ? row : { anyOf: [row, { type: 'array', items: row }] }), LOCATION_HEADER) };
      break;
    }
    case 'update':
      op.requestBody = { required: true, content: { 'application/json': { schema: ref(updateSchemaName(collection.name)) } } };
      success = { 200: jsonResponse('`{data}`: the updated row for one key; an array for a key array or a filter', dataEnvelope(target.toOne ? row : { anyOf: [row, { type: 'array', items: row }] })) };
      break;
    case 'add':
    case 'set':
    case 'remove':
    case 'toggle':
      op.requestBody = linkBody(collection);
      success = { 200: jsonResponse('`{data: null}`', dataEnvelope({ type: 'null' })) };
      break;
    case 'firstOrCreate':
    case 'updateOrCreate':
      op.requestBody = { required: true, content: { 'application/json': { schema: ref(createSchemaName(collection.name)) } } };
      success = {
        200: jsonResponse(action === 'firstOrCreate' ? '`{data}`: the row found' : '`{data}`: the row found, updated', dataEnvelope(row)),
        201: jsonResponse('`{data}`: the created row (none matched)', dataEnvelope(row), LOCATION_HEADER),
      };
      break;
    case 'query':
      op.requestBody = { required: false, description: '{measures, dimensions, filter, having, orders, limit}', content: { 'application/json': { schema: ANY_OBJECT } } };
      success = { 200: jsonResponse('`{data}`: one object per group, keyed by alias', dataEnvelope({ type: 'array', items: ANY_OBJECT })) };
      break;
    case 'move':
      op.requestBody = { required: false, description: '{sourceId, targetId?, sortField?, method?: insertAfter|insertBefore, sticky?} (or as query parameters)', content: { 'application/json': { schema: ANY_OBJECT } } };
      success = { 200: jsonResponse('`{data: null}`', dataEnvelope({ type: 'null' })) };
      break;
    case 'subscribe':
      success = {
        200: {
          description: 'GET: Server-Sent Events, one per change: `id` is the event id, `data` the JSON {id, collection, action, key, data, at}; resume with after= or Last-Event-ID. POST (same query): `{data: {ticket, expiresAt}}`, a one-minute ticket that opens this stream by GET with `ticket=` and no Authorization header (a browser\'s EventSource)',
          content: {
            'text/event-stream': { schema: { type: 'string' } },
            'application/json': { schema: dataEnvelope({ type: 'object', required: ['ticket', 'expiresAt'], properties: { ticket: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } } }) },
          },
        },
      };
      break;
    case 'export':
      parameters.push(FORMAT_PARAMETER);
      success = { 200: EXPORT_RESPONSE };
      break;
    case 'import':
      parameters.push(...IMPORT_PARAMETERS);
      op.requestBody = IMPORT_BODY;
      success = { 200: IMPORT_RESPONSE };
      break;
  }
  const conditional = action === 'update' || action === 'destroy';
  if (action === 'get' || action === 'list') {
    // Tagged answers (not the paginate=false stream, which has no ETag).
    for (const response of Object.values(success)) response.headers = { ...(response.headers as Record<string, JsonSchema> | undefined), ...ETAG_HEADERS };
    success[304] = NOT_MODIFIED;
    parameters.push(IF_NONE_MATCH);
  }
  if (conditional) parameters.push(IF_MATCH);
  op.responses = { ...success, ...errorResponses(conditional ? CONDITIONAL_WRITE_ERROR_STATUSES : writes ? WRITE_ERROR_STATUSES : action === 'subscribe' ? FEED_ERROR_STATUSES : READ_ERROR_STATUSES) };
  return op;
}
