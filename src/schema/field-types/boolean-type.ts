import { VALUE_ENCODINGS } from '../../db/dialects/adapters.js';
import { fail, ok, type FieldType } from '../field-type.js';

export const booleanType: FieldType = {
  name: 'boolean',
  column: () => ({ kind: 'boolean' }),
  parse: (value) => {
    if (typeof value === 'boolean') return ok(value);
    // qs-encoded filters carry text.
    if (value === 'true' || value === '1') return ok(true);
    if (value === 'false' || value === '0') return ok(false);
    return fail('must be true or false');
  },
  toDb: (value, dialect) => VALUE_ENCODINGS[dialect].boolean(value as boolean),
  fromDb: (raw) => raw === true || raw === 1 || raw === 1n || raw === '1',
  capability: 'equality',
  options: [],
  indexable: true,
};
