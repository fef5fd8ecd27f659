import { COLLECTION_UI_OPTIONS, DROPPED_COLLECTION_OPTIONS, FIELD_UI_OPTIONS } from '../schema/ui-options.js';
import { ERROR_CATALOGUE } from '../errors/catalogue.js';
import { MAX_PAGE_SIZE } from '../request/query-params.js';
import { ID_TYPES, ON_DELETE, RELATION_TYPES, SCALAR_TYPES } from '../schema/types.js';
import { ANY_OBJECT, ref, type JsonSchema } from './json-schema.js';

/** Shared component names; a dot keeps them apart from every collection name. */
export const ERROR_SCHEMA = 'corral.Error';
export const PAGE_META_SCHEMA = 'corral.PageMeta';
export const SIMPLE_PAGE_META_SCHEMA = 'corral.SimplePageMeta';
export const CURSOR_PAGE_META_SCHEMA = 'corral.CursorPageMeta';
export const CHANGE_EVENT_SCHEMA = 'corral.ChangeEvent';
export const WEBHOOK_SCHEMA = 'corral.Webhook';
export const WEBHOOK_WRITE_SCHEMA = 'corral.WebhookWrite';
export const DELIVERY_SCHEMA = 'corral.WebhookDelivery';
export const FILTER_SCHEMA = 'corral.Filter';
export const COLLECTION_SCHEMA = 'corral.Collection';
export const FIELD_SCHEMA = 'corral.Field';

/** What a change can be, and the shortest secret a webhook takes (src/webhooks/webhook-definitions.ts). */
const WEBHOOK_ACTIONS = ['create', 'update', 'destroy'] as const;
const MIN_SECRET_LENGTH = 8;

const FILTER_DESCRIPTION =
  'The filter language (API.md §5): keys are field paths (dot paths cross associations) or $and/$or/$not; ' +
  'a bare value means $eq; otherwise an object of operators ($eq $ne $gt $gte $lt $lte $between $notBetween $in $notIn ' +
  '$includes $notIncludes $startsWith $notStartsWith $endsWith $notEndsWith $like $notLike $iLike $notILike $empty ' +
  '$notEmpty $exists $notExists $isTruly $isFalsy $dateOn $dateNotOn $dateBefore $dateNotBefore $dateAfter ' +
  '$dateNotAfter $dateBetween $anyOf $noneOf $match $notMatch $arrayEmpty $arrayNotEmpty). $search matches searchable text.';

/** The schemas every document carries. */
export function commonSchemas(): Record<string, JsonSchema> {
  const count = { type: 'integer', minimum: 0 };
  return {
    [ERROR_SCHEMA]: {
      type: 'object',
      description: 'Every error answer: one entry per problem (validation: one per failing field).',
      required: ['errors'],
      additionalProperties: false,
      properties: {
        errors: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['code', 'message'],
            additionalProperties: false,
            properties: {
              code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
              message: { type: 'string' },
              field: { type: 'string' },
              details: ANY_OBJECT,
            },
          },
        },
      },
    },
    [PAGE_META_SCHEMA]: {
      type: 'object',
      required: ['count', 'page', 'pageSize', 'totalPage'],
      additionalProperties: false,
      properties: {
        count,
        page: { type: 'integer', minimum: 1 },
        pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
        totalPage: count,
        countEstimated: { type: 'boolean', description: 'true: count (and totalPage) is the database\'s estimate, not a count (count=estimated, or more rows than CORRAL_EXACT_COUNT_LIMIT); absent when counted' },
      },
    },
    [SIMPLE_PAGE_META_SCHEMA]: {
      type: 'object',
      required: ['page', 'pageSize', 'hasNext'],
      additionalProperties: false,
      properties: { page: { type: 'integer', minimum: 1 }, pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE }, hasNext: { type: 'boolean' } },
    },
    [CURSOR_PAGE_META_SCHEMA]: {
      type: 'object',
      description: 'Keyset paging (cursor=): pass nextCursor back as cursor for the next page; null on the last page.',
      required: ['pageSize', 'hasNext', 'nextCursor'],
      additionalProperties: false,
      properties: { pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE }, hasNext: { type: 'boolean' }, nextCursor: { type: ['string', 'null'] } },
    },
    [CHANGE_EVENT_SCHEMA]: {
      type: 'object',
      description: 'One change (docs/events.md): `data` is the row as a read answers it (the last state for destroy).',
      required: ['id', 'collection', 'action', 'key', 'data', 'at'],
      additionalProperties: false,
      properties: {
        id: { type: 'integer', minimum: 1 },
        collection: { type: 'string' },
        action: { type: 'string', enum: [...WEBHOOK_ACTIONS] },
        key: {},
        data: ANY_OBJECT,
        at: { type: 'string', format: 'date-time' },
      },
    },
    [WEBHOOK_SCHEMA]: {
      type: 'object',
      description: 'A webhook as the API answers it: the secret is never returned.',
      required: ['id', 'url', 'collections', 'actions', 'active'],
      additionalProperties: false,
      properties: {
        id: { type: 'integer', minimum: 1, readOnly: true },
        url: { type: 'string' },
        collections: { type: 'array', items: { type: 'string' } },
        actions: { anyOf: [{ type: 'array', items: { type: 'string', enum: [...WEBHOOK_ACTIONS] } }, { type: 'null' }], description: 'null: every action' },
        active: { type: 'boolean' },
      },
    },
    [WEBHOOK_WRITE_SCHEMA]: {
      type: 'object',
      additionalProperties: false,
      properties: {
        url: { type: 'string' },
        secret: { type: 'string', minLength: MIN_SECRET_LENGTH, writeOnly: true, description: 'signs each delivery (x-corral-signature); written, never returned' },
        collections: { type: 'array', items: { type: 'string' } },
        actions: { anyOf: [{ type: 'array', items: { type: 'string', enum: [...WEBHOOK_ACTIONS] } }, { type: 'null' }] },
        active: { type: 'boolean' },
      },
    },
    [DELIVERY_SCHEMA]: {
      type: 'object',
      required: ['id', 'eventId', 'status', 'attempts', 'lastError', 'nextAttemptAt'],
      additionalProperties: false,
      properties: {
        id: { type: 'integer', minimum: 1 },
        eventId: { type: 'integer', minimum: 1 },
        status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
        attempts: count,
        lastError: { type: ['string', 'null'] },
        nextAttemptAt: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
      },
    },
    [FILTER_SCHEMA]: {
      type: 'object',
      description: FILTER_DESCRIPTION,
      properties: {
        $and: { type: 'array', items: ref(FILTER_SCHEMA) },
        $or: { type: 'array', items: ref(FILTER_SCHEMA) },
        $not: ref(FILTER_SCHEMA),
        $search: { type: 'string' },
      },
      additionalProperties: true,
    },
    [FIELD_SCHEMA]: {
      type: 'object',
      description: 'A field definition with every option resolved (relations show their keys); `fields` may narrow it.',
      properties: {
        name: { type: 'string' },
        type: { type: 'string', enum: [...SCALAR_TYPES, ...RELATION_TYPES] },
        title: { type: 'string' },
        description: { type: 'string' },
        allowNull: { type: 'boolean' },
        unique: { type: 'boolean' },
        index: { type: 'boolean' },
        defaultValue: {},
        min: { type: 'number' },
        max: { type: 'number' },
        minLength: { type: 'integer', minimum: 0 },
        maxLength: { type: 'integer', minimum: 0 },
        pattern: { type: 'string' },
        enum: { type: 'array' },
        length: { type: 'integer', minimum: 1 },
        precision: { type: 'integer', minimum: 1 },
        scale: { type: 'integer', minimum: 0 },
        searchable: { type: 'boolean', description: 'text the $search filter and ?q= match' },
        primaryKey: { type: 'boolean' },
        autoIncrement: { type: 'boolean' },
        system: { type: 'string', enum: ['id', 'createdAt', 'updatedAt'] },
        columnName: { type: 'string', description: 'managed false: the real column, when not named like the field' },
        readOnly: { type: 'boolean', description: 'generated, identity or unknown-typed column: values sent for it are ignored' },
        rawType: { type: 'string', description: "the column's type as the database's catalogue spells it" },
        defaultSql: { type: 'string', description: "managed false: the column's default expression; a create may leave the field out" },
        references: {
          type: 'object',
          description: 'set on a foreign key column that a relation made',
          required: ['collection', 'key', 'onDelete'],
          additionalProperties: false,
          properties: { collection: { type: 'string' }, key: { type: 'string' }, onDelete: { type: 'string', enum: [...ON_DELETE] } },
        },
        target: { type: 'string' },
        foreignKey: { type: 'string' },
        sourceKey: { type: 'string' },
        targetKey: { type: 'string' },
        through: { type: 'string' },
        otherKey: { type: 'string' },
        onDelete: { type: 'string', enum: [...ON_DELETE] },
        sortable: { type: 'boolean', description: 'hasMany: ordered by a sort field of the target' },
        sortBy: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }], description: 'to-many: the order of the associated rows' },
        attachment: {
          type: 'object',
          description: 'an attachment field (created as `type: attachment`, stored as a belongsToMany to attachments): one file or many, and the MIME types it takes (checked against the bytes)',
          required: ['multiple'],
          additionalProperties: false,
          properties: { multiple: { type: 'boolean' }, accept: { type: 'array', items: { type: 'string' } } },
        },
        ...Object.fromEntries(FIELD_UI_OPTIONS.map((key) => [key, key === 'interface' ? { type: 'string', description: 'UI metadata (NocoBase)' } : { description: 'UI metadata (NocoBase), stored as sent' }])),
        collectionName: { type: 'string', description: 'the collection the field belongs to' },
        key: { type: 'string', description: "the field's key in the `fields` resource: `<collection>.<field>`" },
        builtIn: { type: 'boolean', enum: [true], description: 'a field a system collection is made with: never dropped, renamed or retyped (409 COLLECTION_PROTECTED); absent on other fields' },
        sort: { type: 'integer', description: 'in lists: the position in definition order' },
      },
      additionalProperties: false,
    },
    [COLLECTION_SCHEMA]: {
      type: 'object',
      description: 'A collection definition; relations are listed among its fields. `fields` may narrow it.',
      properties: {
        name: { type: 'string' },
        title: { type: 'string' },
        description: { type: 'string' },
        timestamps: { type: 'boolean' },
        createdAt: { type: 'boolean', description: 'false: no createdAt field (default: timestamps); in a definition only when it differs from timestamps' },
        updatedAt: { type: 'boolean', description: 'false: no updatedAt field (default: timestamps); in a definition only when it differs from timestamps' },
        createdBy: { type: 'boolean', description: 'a belongsTo `createdBy` to users (`createdById`), stamped by the server on create' },
        updatedBy: { type: 'boolean', description: 'a belongsTo `updatedBy` to users (`updatedById`), stamped by the server on every write' },
        autoGenId: { type: 'boolean' },
        idType: { type: 'string', enum: [...ID_TYPES] },
        filterTargetKey: {
          oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 2 }],
          description: "'' for a collection without a key (a view): read by filter only; a list of fields for an existing table's composite primary key (filterByTk is then an object of every one)",
        },
        managed: { type: 'boolean', description: 'false: a table Corral did not create; never altered by Corral (docs/existing-databases.md)' },
        tableName: { type: 'string', description: 'the table, when it is not named after the collection: a system collection\'s corral_ table (users → corral_users), or a table Corral did not create' },
        view: { type: 'boolean', description: 'a view or materialized view: read-only' },
        system: { type: 'boolean', enum: [true], description: "one of Corral's own collections (users, roles, apiKeys, rolesResourcesScopes, webhooks, attachments): never dropped or renamed, its built-in fields never removed or reshaped (409 COLLECTION_PROTECTED); absent on other collections" },
        fields: { type: 'array', items: ref(FIELD_SCHEMA) },
        sortable: { description: 'as sent: true, a sort field name or {name, scopeKey}; the sort field is among `fields`' },
        indexes: {
          type: 'array',
          description: 'indexes over one or more fields, in order (docs/performance.md#indexes); present when the collection has any',
          items: {
            type: 'object',
            required: ['name', 'fields', 'unique'],
            additionalProperties: false,
            properties: { name: { type: 'string' }, fields: { type: 'array', items: { type: 'string' }, minItems: 1 }, unique: { type: 'boolean' } },
          },
        },
        ...Object.fromEntries(COLLECTION_UI_OPTIONS.filter((key) => !DROPPED_COLLECTION_OPTIONS.includes(key)).map((key) => [key, { description: 'NocoBase UI option, stored as sent' }])),
        unavailableActions: { type: 'array', items: { type: 'string' }, description: 'always empty: every collection takes every action' },
        sort: { type: 'integer', description: 'in lists: the position in definition order' },
      },
      additionalProperties: false,
    },
  };
}
