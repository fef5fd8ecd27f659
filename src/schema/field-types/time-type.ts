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
  fromDb: (raw) => String(raw).slice(0, 8),
  capability: 'ordered',
  options: [],
  indexable: true,
};
