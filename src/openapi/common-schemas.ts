import { ERROR_CATALOGUE } from '../errors/catalogue.js';
import { MAX_PAGE_SIZE } from '../request/query-params.js';
import { ID_TYPES, ON_DELETE, RELATION_TYPES, SCALAR_TYPES } from '../schema/types.js';
import { ANY_OBJECT, ref, type JsonSchema } from './json-schema.js';

/** Shared component names; a dot keeps them apart from every collection name. */
export const ERROR_SCHEMA = 'corral.Error';
export const PAGE_META_SCHEMA = 'corral.PageMeta';
export const SIMPLE_PAGE_META_SCHEMA = 'corral.SimplePageMeta';
export const FILTER_SCHEMA = 'corral.Filter';
export const COLLECTION_SCHEMA = 'corral.Collection';
export const FIELD_SCHEMA = 'corral.Field';

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
      properties: { count, page: { type: 'integer', minimum: 1 }, pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE }, totalPage: count },
    },
    [SIMPLE_PAGE_META_SCHEMA]: {
      type: 'object',
      required: ['page', 'pageSize', 'hasNext'],
      additionalProperties: false,
      properties: { page: { type: 'integer', minimum: 1 }, pageSize: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE }, hasNext: { type: 'boolean' } },
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
        primaryKey: { type: 'boolean' },
        autoIncrement: { type: 'boolean' },
        system: { type: 'string', enum: ['id', 'createdAt', 'updatedAt'] },
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
        autoGenId: { type: 'boolean' },
        idType: { type: 'string', enum: [...ID_TYPES] },
        filterTargetKey: { type: 'string' },
        fields: { type: 'array', items: ref(FIELD_SCHEMA) },
      },
      additionalProperties: false,
    },
  };
}
