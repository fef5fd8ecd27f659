import { everyFieldTypeFields } from '../fixtures/every-field-type.js';

/**
 * A schema that uses every field type, every relation type and the collection options:
 * the fixture of the OpenAPI validation and the schema export round trip. It is in the form
 * `collections:create` and CORRAL_SCHEMA accept.
 */
export const EVERY_TYPE_SCHEMA: Record<string, unknown>[] = [
  {
    name: 'labels',
    idType: 'nanoid',
    fields: [{ name: 'label', type: 'string', enum: ['red', 'green', 'blue'] }],
  },
  {
    name: 'people',
    title: 'People',
    idType: 'uuid',
    fields: [
      { name: 'name', type: 'string', length: 80, allowNull: false, index: true },
      { name: 'email', type: 'string', unique: true, pattern: '^[^@]+@[^@]+$' },
      { name: 'secret', type: 'password' },
    ],
  },
  {
    name: 'profiles',
    timestamps: false,
    fields: [
      { name: 'bio', type: 'text' },
      { name: 'person', type: 'belongsTo', target: 'people', onDelete: 'CASCADE' },
    ],
  },
  {
    name: 'manuals',
    fields: [
      { name: 'pages', type: 'integer' },
      { name: 'writer', type: 'belongsTo', target: 'people', onDelete: 'RESTRICT' },
    ],
  },
  { name: 'parts', fields: [{ name: 'name', type: 'string' }] },
  {
    name: 'things',
    description: 'one column of every scalar type',
    idType: 'bigInt',
    fields: [
      ...everyFieldTypeFields({
        string: { name: 'title', minLength: 1, maxLength: 40, defaultValue: 'untitled' },
        text: { name: 'body' },
        integer: { name: 'count', min: 0, max: 1000 },
        bigInt: { name: 'big' },
        float: { name: 'ratio' },
        double: { name: 'precise' },
        decimal: { name: 'price', precision: 10, scale: 2 },
        boolean: { name: 'active', defaultValue: true },
        date: { name: 'at' },
        dateOnly: { name: 'day' },
        time: { name: 'clock' },
        json: { name: 'meta' },
        array: { name: 'list' },
        uuid: { name: 'ref' },
        nanoid: { name: 'code' },
        password: { name: 'pin' },
        sort: { name: 'position' },
      }),
      { name: 'owner', type: 'belongsTo', target: 'people', onDelete: 'SET NULL' },
      { name: 'manual', type: 'hasOne', target: 'manuals' },
      { name: 'parts', type: 'hasMany', target: 'parts' },
      { name: 'labels', type: 'belongsToMany', target: 'labels' },
    ],
  },
];
