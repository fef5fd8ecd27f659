import { fail, ok, type FieldType } from '../field-type.js';

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Reads an ISO 8601 string or epoch milliseconds into a Date; no zone means UTC. */
export function parseInstant(value: unknown): Date | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value);
  if (typeof value !== 'string' || !ISO_INSTANT.test(value)) return undefined;
  const hasZone = /(Z|[+-]\d{2}:?\d{2})$/.test(value) && value.includes('T');
  const text = value.includes('T') ? (hasZone ? value : `${value}Z`) : `${value}T00:00:00Z`;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** MySQL DATETIME(3) text in UTC: 'YYYY-MM-DD HH:MM:SS.mmm'. */
export const toMysqlDateTime = (date: Date): string => date.toISOString().slice(0, 23).replace('T', ' ');

export const dateType: FieldType = {
  name: 'date',
  columnType: (_def, dialect) =>
    dialect === 'postgres' ? 'timestamptz(3)' : dialect === 'mysql' ? 'datetime(3)' : 'text',
  parse: (value) => {
    const date = parseInstant(value);
    if (date === undefined) return fail('must be an ISO 8601 date-time');
    if (date.getUTCFullYear() < 1000 || date.getUTCFullYear() > 9999) return fail('must be between years 1000 and 9999');
    return ok(date);
  },
  toDb: (value, dialect) => (dialect === 'mysql' ? toMysqlDateTime(value as Date) : (value as Date).toISOString()),
  fromDb: (raw, dialect) => {
    if (raw instanceof Date) return raw.toISOString();
    const text = String(raw);
    return new Date(dialect === 'mysql' ? `${text.replace(' ', 'T')}Z` : text).toISOString();
  },
  capability: 'ordered',
  options: [],
  indexable: true,
};
