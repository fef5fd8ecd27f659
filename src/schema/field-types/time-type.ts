import { fail, ok, type FieldType } from '../field-type.js';

export const timeType: FieldType = {
  name: 'time',
  column: () => ({ kind: 'time' }),
  parse: (value) => {
    if (typeof value !== 'string') return fail('must be a time HH:MM[:SS]');
    const match = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/.exec(value);
    if (match === null) return fail('must be a time HH:MM[:SS]');
    return ok(`${match[1]}:${match[2]}:${match[3] ?? '00'}`);
  },
  toDb: (value) => value,
  // Exactly as stored, trailing zero fractions dropped: MySQL's own range reaches 838:59:59 and
  // time(6) columns of existing tables keep their fraction ('-12:30:00.250000' → '-12:30:00.25').
  fromDb: (raw) => String(raw).replace(/\.(\d*?)0+$/, '.$1').replace(/\.$/, ''),
  capability: 'ordered',
  options: [],
  indexable: true,
};
