import { fail, ok, type FieldType } from '../field-type.js';
import { isCalendarDate } from './date-type.js';

export const dateOnlyType: FieldType = {
  name: 'dateOnly',
  column: () => ({ kind: 'date' }),
  parse: (value) => {
    const match = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
    if (match === null) return fail('must be a date YYYY-MM-DD');
    const year = Number(match[1]);
    if (!isCalendarDate(year, Number(match[2]), Number(match[3]))) return fail('is not a calendar date');
    // The range MySQL's DATE supports, and the one `date` has, so every dialect agrees.
    if (year < 1000) return fail('must be between years 1000 and 9999');
    return ok(value);
  },
  toDb: (value) => value,
  fromDb: (raw) => (raw instanceof Date ? raw.toISOString().slice(0, 10) : String(raw).slice(0, 10)),
  capability: 'ordered',
  options: [],
  indexable: true,
};
