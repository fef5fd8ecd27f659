import type { FieldType } from '../field-type.js';
import { intFromDb, parseInt32 } from './integer-like.js';

export const integerType: FieldType = {
  name: 'integer',
  column: () => ({ kind: 'integer' }),
  parse: (value) => parseInt32(value),
  toDb: (value) => value,
  fromDb: intFromDb,
  capability: 'ordered',
  options: ['min', 'max'],
  indexable: true,
};
