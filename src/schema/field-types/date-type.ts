import { VALUE_ENCODINGS } from '../../db/dialects/adapters.js';
import { fail, ok, type FieldType } from '../field-type.js';

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(T(\d{2}):(\d{2})(:(\d{2})(\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))?)?$/;

/** Days in a month of the proleptic Gregorian calendar (month 1..12). */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Whether year-month-day names a real calendar day (JS Date would roll 2026-02-30 over to March). */
export const isCalendarDate = (year: number, month: number, day: number): boolean =>
  month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);

/** Reads an ISO 8601 string or epoch milliseconds into a Date; no zone means UTC. */
export function parseInstant(value: unknown): Date | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  if (typeof value !== 'string') return undefined;
  const m = ISO_INSTANT.exec(value);
  if (m === null) return undefined;
  if (!isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return undefined;
  // Every component in range: no 24:00, no leap second, no offset beyond ±23:59.
  if (m[5] !== undefined && (Number(m[5]) > 23 || Number(m[6]) > 59)) return undefined;
  if (m[8] !== undefined && Number(m[8]) > 59) return undefined;
  if (m[11] !== undefined && (Number(m[11]) > 23 || Number(m[12]) > 59)) return undefined;
  const hasZone = m[10] !== undefined;
  const text = m[4] !== undefined ? (hasZone ? value : `${value}Z`) : `${value}T00:00:00Z`;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const CANONICAL_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const dateType: FieldType = {
  name: 'date',
  column: () => ({ kind: 'instant' }),
  parse: (value) => {
    const date = parseInstant(value);
    if (date === undefined) return fail('must be an ISO 8601 date-time');
    if (date.getUTCFullYear() < 1000 || date.getUTCFullYear() > 9999) return fail('must be between years 1000 and 9999');
    return ok(date);
  },
  toDb: (value, dialect) => VALUE_ENCODINGS[dialect].instant(value as Date),
  fromDb: (raw, dialect) => {
    if (raw instanceof Date) return raw.toISOString();
    // SQLite holds the text Corral wrote, already in the wire form.
    if (typeof raw === 'string' && CANONICAL_INSTANT.test(raw)) return raw;
    return VALUE_ENCODINGS[dialect].instantText(String(raw));
  },
  capability: 'ordered',
  options: [],
  indexable: true,
};
