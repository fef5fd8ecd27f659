import { fail, ok, type FieldType } from '../field-type.js';

export const booleanType: FieldType = {
  name: 'boolean',
  columnType: (_def, dialect) => (dialect === 'sqlite' ? 'integer' : 'boolean'),
  parse: (value) => {
    if (typeof value === 'boolean') return ok(value);
    // qs-encoded filters carry text.
    if (value === 'true' || value === '1') return ok(true);
    if (value === 'false' || value === '0') return ok(false);
    return fail('must be true or false');
  },
  toDb: (value, dialect) => (dialect === 'postgres' ? value : value ? 1 : 0),
  fromDb: (raw) => raw === true || raw === 1 || raw === 1n || raw === '1',
  capability: 'equality',
  options: [],
  indexable: true,
};
