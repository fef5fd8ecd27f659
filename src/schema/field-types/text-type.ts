import type { FieldType } from '../field-type.js';
import { parseString } from './text-like.js';

export const textType: FieldType = {
  name: 'text',
  column: () => ({ kind: 'longText' }),
  parse: (value, def) => parseString(value, def),
  toDb: (value) => value,
  fromDb: (raw) => String(raw),
  capability: 'ordered',
  options: ['minLength', 'maxLength', 'pattern'],
  // MySQL cannot index a TEXT column without a prefix length; refuse on every dialect alike.
  indexable: false,
};
