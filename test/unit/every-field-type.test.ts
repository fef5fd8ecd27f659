import { describe, expect, it } from 'vitest';
import { FIELD_TYPES } from '../../src/schema/field-types/index.js';
import { EVERY_FIELD_TYPE_COLLECTION, everyFieldTypeFields } from '../fixtures/every-field-type.js';
import { collectionOf } from '../support/collection-of.js';

describe('the every-field-type fixture', () => {
  it('has one field of each registered type, named after it, and is a valid collection', () => {
    expect(EVERY_FIELD_TYPE_COLLECTION.fields.map((field) => [field.name, field.type])).toEqual(Object.keys(FIELD_TYPES).map((type) => [type, type]));
    const collection = collectionOf(EVERY_FIELD_TYPE_COLLECTION);
    for (const type of Object.keys(FIELD_TYPES)) expect(collection.fields.get(type)?.def.type).toBe(type);
  });

  it('takes other names and options per type, and leaves types out', () => {
    const fields = everyFieldTypeFields({ decimal: { name: 'price', scale: 2 } }, ['sort']);
    expect(fields.find((field) => field.type === 'decimal')).toEqual({ name: 'price', type: 'decimal', precision: 12, scale: 2 });
    expect(fields.some((field) => field.type === 'sort')).toBe(false);
    expect(fields).toHaveLength(Object.keys(FIELD_TYPES).length - 1);
  });
});
