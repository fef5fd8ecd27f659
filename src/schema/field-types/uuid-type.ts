import { randomUUID } from 'node:crypto';
import { fail, ok, type FieldType } from '../field-type.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const uuidType: FieldType = {
  name: 'uuid',
  column: () => ({ kind: 'uuid' }),
  parse: (value) => {
    const text = typeof value === 'string' ? value.toLowerCase() : undefined;
    return text !== undefined && UUID.test(text) ? ok(text) : fail('must be a UUID');
  },
  toDb: (value) => value,
  fromDb: (raw) => String(raw),
  capability: 'ordered',
  options: [],
  indexable: true,
};

export const newUuid = (): string => randomUUID();
