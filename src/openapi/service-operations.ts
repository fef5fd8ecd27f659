import { CHANGE_EVENT_SCHEMA, COLLECTION_SCHEMA, DELIVERY_SCHEMA, FIELD_SCHEMA, PAGE_META_SCHEMA, SIMPLE_PAGE_META_SCHEMA, WEBHOOK_SCHEMA, WEBHOOK_WRITE_SCHEMA } from './common-schemas.js';
import { ANY_OBJECT, ref, type JsonSchema } from './json-schema.js';
import { parameterRef, type QueryParameter } from './parameters.js';
import { dataEnvelope, errorResponses, FEED_ERROR_STATUSES, jsonResponse, LOCATION_HEADER, PUBLIC_READ_ERROR_STATUSES, READ_ERROR_STATUSES, WRITE_ERROR_STATUSES } from './responses.js';
import { PUBLIC } from './security.js';

const LIST_QUERY: readonly QueryParameter[] = ['filter', 'fields', 'sort', 'page', 'pageSize', 'paginate', 'simplePaginate'];

function listOf(item: JsonSchema): JsonSchema {
  const data = { type: 'array', items: item };
  const paged = (meta: string): JsonSchema => ({ type: 'object', required: ['data', 'meta'], additionalProperties: false, properties: { data, meta: ref(meta) } });
  return jsonResponse('`{data, meta}`, paged like any list', { oneOf: [paged(PAGE_META_SCHEMA), paged(SIMPLE_PAGE_META_SCHEMA), dataEnvelope(data)] });
}

const nameKey = (what: string): JsonSchema => ({ name: 'filterByTk', in: 'query', description: `the ${what} name (or put it in the path: …:get/<name>)`, schema: { type: 'string' } });
const body = (description: string, schema: JsonSchema = ANY_OBJECT): JsonSchema => ({ required: true, description, content: { 'application/json': { schema } } });

interface ServiceOp {
  path: string;
  method: 'get' | 'post';
  op: JsonSchema;
}

function op(operationId: string, tag: string, summary: string, parameters: JsonSchema[], responses: Record<string, JsonSchema>, requestBody?: JsonSchema): JsonSchema {
  return { operationId, tags: [tag], summary, parameters, ...(requestBody === undefined ? {} : { requestBody }), responses };
}

/** NocoBase's `fields` resource: every collection's fields, keyed by `<collection>.<field>`. */
function allFieldOperations(prefix: string, field: JsonSchema, reads: Record<string, JsonSchema>, writes: Record<string, JsonSchema>): ServiceOp[] {
  const a = `${prefix}/fields`;
  const S = 'schema';
  const key: JsonSchema = { name: 'filterByTk', in: 'query', description: 'the field key `<collection>.<field>` (or a `filter` matching one field)', schema: { type: 'string' } };
  const filter = parameterRef('filter');
  return [
    { path: `${a}:list`, method: 'get', op: op('fields.list', S, "List every collection's fields (filter[collectionName]=…)", [key, ...LIST_QUERY.map(parameterRef)], { 200: listOf(field), ...reads }) },
    { path: `${a}:get`, method: 'get', op: op('fields.get', S, 'Get a field by key', [key, filter], { 200: jsonResponse('`{data}`', dataEnvelope(field)), ...reads }) },
    { path: `${a}:create`, method: 'post', op: op('fields.create', S, 'Add a field to collectionName', [], { 201: jsonResponse('`{data}`', dataEnvelope(field), LOCATION_HEADER), ...writes }, body('{collectionName, name, type, …options}')) },
    { path: `${a}:update`, method: 'post', op: op('fields.update', S, 'Change a field named by key', [key, filter], { 200: jsonResponse('`{data}`', dataEnvelope(field)), ...writes }, body('{…options}')) },
    { path: `${a}:destroy`, method: 'post', op: op('fields.destroy', S, 'Drop a field named by key', [key, filter], { 200: jsonResponse('`{data: 1}`', dataEnvelope({ type: 'integer' })), ...writes }) },
  ];
}

/** The schema API (API.md §6) and the service endpoints (§10): the same in every document. */
export function serviceOperations(prefix: string): ServiceOp[] {
  const collection = ref(COLLECTION_SCHEMA);
  const field = ref(FIELD_SCHEMA);
  const reads = errorResponses(READ_ERROR_STATUSES);
  const writes = errorResponses(WRITE_ERROR_STATUSES);
  const source: JsonSchema = { name: 'collectionName', in: 'path', required: true, schema: { type: 'string' } };
  const c = `${prefix}/collections`;
  const f = `${prefix}/collections/{collectionName}/fields`;
  const S = 'schema';
  return [
    { path: `${c}:list`, method: 'get', op: op('collections.list', S, 'List collections', [nameKey('collection'), ...LIST_QUERY.map(parameterRef)], { 200: listOf(collection), ...reads }) },
    { path: `${c}:listMeta`, method: 'get', op: op('collections.listMeta', S, 'Every collection with its fields, never paged (NocoBase client start-up)', [], { 200: jsonResponse('`{data}`', dataEnvelope({ type: 'array', items: collection })), ...reads }) },
    { path: `${c}:get`, method: 'get', op: op('collections.get', S, 'Get a collection', [nameKey('collection')], { 200: jsonResponse('`{data}`', dataEnvelope(collection)), ...reads }) },
    {
      path: `${c}:create`,
      method: 'post',
      op: op('collections.create', S, 'Create a collection (its table at once)', [], { 201: jsonResponse('`{data}`', dataEnvelope(collection), LOCATION_HEADER), ...writes }, body('{name, title?, fields:[…], timestamps?, autoGenId?, idType?, filterTargetKey?, indexes?:[{fields, unique?, name?}]}')),
    },
    { path: `${c}:update`, method: 'post', op: op('collections.update', S, 'Change a collection (title, options)', [nameKey('collection')], { 200: jsonResponse('`{data}`', dataEnvelope(collection)), ...writes }, body('{title?, description?, sortable?, indexes?, …UI options}; other options only with their current value')) },
    {
      path: `${c}:setIndexes`,
      method: 'post',
      op: op(
        'collections.setIndexes',
        S,
        "Replace a collection's indexes (over one or more fields; changed ones are rebuilt, [] removes them all)",
        [nameKey('collection')],
        { 200: jsonResponse('`{data}`: the collection with its `indexes`', dataEnvelope(collection)), ...writes },
        body('{indexes: [{fields: [name, …], unique?, name?}]}', {
          type: 'object',
          required: ['indexes'],
          properties: {
            indexes: {
              type: 'array',
              items: { type: 'object', required: ['fields'], properties: { fields: { type: 'array', items: { type: 'string' }, minItems: 1 }, unique: { type: 'boolean' }, name: { type: 'string' } } },
            },
          },
        }),
      ),
    },
    {
      path: `${c}:sync`,
      method: 'post',
      op: op(
        'collections.sync',
        S,
        "Re-read the database's catalogue (root only): tables and columns added, changed or removed are served at once (docs/existing-databases.md)",
        [],
        {
          200: jsonResponse('`{data: {added, changed: [{collection, fields: {added, removed, changed}}], removed, skipped}}`', dataEnvelope({
            type: 'object',
            properties: {
              added: { type: 'array', items: { type: 'string' } },
              changed: { type: 'array', items: { type: 'object', properties: { collection: { type: 'string' }, fields: { type: 'object' } } } },
              removed: { type: 'array', items: { type: 'string' } },
              skipped: { type: 'array', items: { type: 'object', properties: { table: { type: 'string' }, column: { type: 'string' }, reason: { type: 'string' } } } },
            },
          })),
          ...writes,
        },
      ),
    },
    {
      path: `${c}:destroy`,
      method: 'post',
      op: op('collections.destroy', S, 'Drop a collection and its table', [nameKey('collection'), parameterRef('cascade')], { 200: jsonResponse('`{data: 1}`', dataEnvelope({ type: 'integer' })), ...writes }),
    },
    {
      path: `${c}:export`,
      method: 'get',
      op: op('collections.export', S, 'The schema file: exactly the JSON that CORRAL_SCHEMA / --schema applies', [], {
        200: jsonResponse('`{collections: […]}` (not an envelope: it is the file, ready to save)', {
          type: 'object',
          required: ['collections'],
          additionalProperties: false,
          properties: { collections: { type: 'array', items: collection } },
        }),
        ...reads,
      }),
    },
    { path: `${f}:list`, method: 'get', op: op('collections.fields.list', S, 'List the fields of a collection', [source, nameKey('field'), ...LIST_QUERY.map(parameterRef)], { 200: listOf(field), ...reads }) },
    { path: `${f}:get`, method: 'get', op: op('collections.fields.get', S, 'Get a field', [source, nameKey('field')], { 200: jsonResponse('`{data}`', dataEnvelope(field)), ...reads }) },
    { path: `${f}:create`, method: 'post', op: op('collections.fields.create', S, 'Add a field (its column at once)', [source], { 201: jsonResponse('`{data}`', dataEnvelope(field), LOCATION_HEADER), ...writes }, body('{name, type, …options}')) },
    { path: `${f}:update`, method: 'post', op: op('collections.fields.update', S, 'Rename a field or change its options', [source, nameKey('field')], { 200: jsonResponse('`{data}`', dataEnvelope(field)), ...writes }, body('{name?, …options}')) },
    ...allFieldOperations(prefix, field, reads, writes),
    { path: `${f}:destroy`, method: 'post', op: op('collections.fields.destroy', S, 'Drop a field', [source, nameKey('field')], { 200: jsonResponse('`{data: 1}`', dataEnvelope({ type: 'integer' })), ...writes }) },
    {
      path: `${prefix}/app:getInfo`,
      method: 'get',
      op: PUBLIC(op('app.getInfo', 'service', 'Version and dialect (POST works too, as the NocoBase SDK sends it)', [], {
        200: jsonResponse('`{data}`', dataEnvelope({
          type: 'object',
          required: ['name', 'version', 'dialect', 'schemaVersion'],
          additionalProperties: false,
          properties: { name: { type: 'string' }, version: { type: 'string' }, dialect: { type: 'string', enum: ['sqlite', 'postgres', 'mysql'] }, schemaVersion: { type: 'integer' } },
        })),
        ...errorResponses(PUBLIC_READ_ERROR_STATUSES),
      })),
    },
    ...feedOperations(prefix, reads, writes),
    {
      path: '/healthz',
      method: 'get',
      op: PUBLIC(op('healthz', 'service', 'Alive', [], {
        200: jsonResponse('alive', dataEnvelope({ type: 'object', required: ['status'], additionalProperties: false, properties: { status: { const: 'ok' } } })),
        ...errorResponses([503]),
      })),
    },
    {
      path: '/readyz',
      method: 'get',
      op: PUBLIC(op('readyz', 'service', 'Ready: the database answers', [], {
        200: jsonResponse('ready', dataEnvelope({ type: 'object', required: ['status', 'dialect'], additionalProperties: false, properties: { status: { const: 'ready' }, dialect: { type: 'string' } } })),
        ...errorResponses([503]),
      })),
    },
  ];
}

/** `{data, meta}` with `meta` {page, pageSize, hasNext}: the feed and the deliveries page without a count. */
function simplePageOf(description: string, item: JsonSchema): JsonSchema {
  return jsonResponse(description, { type: 'object', required: ['data', 'meta'], additionalProperties: false, properties: { data: { type: 'array', items: item }, meta: ref(SIMPLE_PAGE_META_SCHEMA) } });
}

/** The change feed and the `webhooks` resource (docs/events.md): the same in every document. */
function feedOperations(prefix: string, reads: Record<string, JsonSchema>, writes: Record<string, JsonSchema>): ServiceOp[] {
  const webhook = ref(WEBHOOK_SCHEMA);
  const write = ref(WEBHOOK_WRITE_SCHEMA);
  const w = `${prefix}/webhooks`;
  const T = 'events';
  const id: JsonSchema = { name: 'filterByTk', in: 'query', description: 'the webhook id (or put it in the path: /webhooks/<id>)', schema: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^[0-9]+$' }] } };
  const source: JsonSchema = { name: 'sourceKey', in: 'path', required: true, description: 'the webhook id', schema: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string', pattern: '^[0-9]+$' }] } };
  const collection: JsonSchema = { name: 'collection', in: 'query', description: 'only the events of this collection', schema: { type: 'string' } };
  return [
    {
      path: `${prefix}/changes:list`,
      method: 'get',
      op: op('changes.list', T, 'The change feed: events in id order after `after`, a page at a time', [parameterRef('after'), collection, parameterRef('pageSize')], {
        200: simplePageOf('`{data, meta}`: events; meta.hasNext says whether more follow', ref(CHANGE_EVENT_SCHEMA)),
        ...errorResponses(FEED_ERROR_STATUSES),
      }),
    },
    { path: `${w}:list`, method: 'get', op: op('webhooks.list', T, 'List webhooks (never their secrets)', [], { 200: jsonResponse('`{data}`', dataEnvelope({ type: 'array', items: webhook })), ...reads }) },
    { path: `${w}:get`, method: 'get', op: op('webhooks.get', T, 'Get a webhook', [id], { 200: jsonResponse('`{data}`', dataEnvelope(webhook)), ...reads }) },
    {
      path: `${w}:create`,
      method: 'post',
      op: op('webhooks.create', T, 'Register a webhook: url, secret, collections, actions?, active?', [], { 201: jsonResponse('`{data}`: the webhook (without its secret)', dataEnvelope(webhook), LOCATION_HEADER), ...writes }, body('{url, secret, collections, actions?, active?}', { ...write, required: ['url', 'secret', 'collections'] } as JsonSchema)),
    },
    { path: `${w}:update`, method: 'post', op: op('webhooks.update', T, 'Change a webhook', [id], { 200: jsonResponse('`{data}`', dataEnvelope(webhook)), ...writes }, body('any of {url, secret, collections, actions, active}', write)) },
    { path: `${w}:destroy`, method: 'post', op: op('webhooks.destroy', T, 'Delete a webhook', [id], { 200: jsonResponse('`{data: 1}`', dataEnvelope({ type: 'integer' })), ...writes }) },
    {
      path: `${w}/{sourceKey}/deliveries:list`,
      method: 'get',
      op: op('webhooks.deliveries.list', T, 'The deliveries of a webhook, in event order', [source, parameterRef('page'), parameterRef('pageSize')], { 200: simplePageOf('`{data, meta}`: deliveries; meta.hasNext instead of a count', ref(DELIVERY_SCHEMA)), ...reads }),
    },
    {
      path: `${w}/{sourceKey}/deliveries:retry`,
      method: 'post',
      op: op('webhooks.deliveries.retry', T, 'Send a delivery again: queued anew with fresh attempts (a pending one is tried now), before the webhook\'s later deliveries', [source, { ...id, description: 'the delivery id (or put it in the path: deliveries:retry/<id>)' }], { 200: jsonResponse('`{data}`: the delivery, pending', dataEnvelope(ref(DELIVERY_SCHEMA))), ...writes }),
    },
  ];
}
