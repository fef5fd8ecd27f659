import { fail, ok, type FieldType } from '../field-type.js';

export const dateOnlyType: FieldType = {
  name: 'dateOnly',
  columnType: (_def, dialect) => (dialect === 'sqlite' ? 'text' : 'date'),
  parse: (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return fail('must be a date YYYY-MM-DD');
    const date = new Date(`${value}T00:00:00Z`);
    if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) return fail('is not a calendar date');
    return ok(value);
  },
  toDb: (value) => value,
  fromDb: (raw) => (raw instanceof Date ? raw.toISOString().slice(0, 10) : String(raw).slice(0, 10)),
  capability: 'ordered',
  options: [],
  indexable: true,
};
