import type { FieldType } from '../field-type.js';
import { parseString } from './text-like.js';

export const DEFAULT_STRING_LENGTH = 255;

export const stringType: FieldType = {
  name: 'string',
  column: (def) => ({ kind: 'varchar', length: def.length ?? DEFAULT_STRING_LENGTH }),
  parse: (value, def) => parseString(value, def, def.length ?? DEFAULT_STRING_LENGTH),
  toDb: (value) => value,
  fromDb: (raw) => String(raw),
  capability: 'ordered',
  options: ['length', 'minLength', 'maxLength', 'pattern'],
  indexable: true,
};
