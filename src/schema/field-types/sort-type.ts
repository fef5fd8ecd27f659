import type { FieldType } from '../field-type.js';
import { intFromDb, parseInt32 } from './integer-like.js';

/** An integer position; a create without a value gets max + 1 (see actions/create). */
export const sortType: FieldType = {
  name: 'sort',
  columnType: () => 'integer',
  parse: (value) => parseInt32(value),
  toDb: (value) => value,
  fromDb: intFromDb,
  capability: 'ordered',
  options: ['min', 'max'],
  indexable: true,
};
