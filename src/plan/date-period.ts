import { isCalendarDate } from '../schema/field-types/date-type.js';
import { instantToWall, parseTimeZone, wallToInstant, type TimeZone } from '../request/time-zone.js';

/** A half-open range of instants [start, end), in epoch milliseconds. */
export interface Period {
  start: number;
  end: number;
}

const DAY_MS = 86_400_000;

const YEAR = /^(\d{4})$/;
const QUARTER = /^(\d{4})-?Q([1-4])$/;
const WEEK = /^(\d{4})-?W(\d{2})$/;
/** NocoBase's lowercase week: weeks start on Sunday, week 1 holds January 1st. */
const SUNDAY_WEEK = /^(\d{4})-?w(\d{2})$/;
const MONTH = /^(\d{4})-(\d{2})$/;
/** A day, optionally with an hour, minute, second and fraction, optionally with a zone. */
const DAY_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Monday of ISO week 1 of `year` (the week holding January 4th), as UTC ms of the wall day. */
function isoWeekOne(year: number): number {
  const jan4 = Date.UTC(year, 0, 4);
  const weekday = (new Date(jan4).getUTCDay() + 6) % 7; // Monday = 0
  return jan4 - weekday * DAY_MS;
}

/** Whether `year` has an ISO week 53. */
const hasWeek53 = (year: number): boolean => isoWeekOne(year + 1) - isoWeekOne(year) === 53 * 7 * DAY_MS;

function zoneOffsetMinutes(text: string): number | undefined {
  if (text === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(text)!;
  const hours = Number(m[2]);
  const minutes = Number(m[3]);
  if (hours > 23 || minutes > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** A period of wall-clock time [start, end) (ms as if UTC), read in `zone`. */
const wallPeriod = (start: number, end: number, zone: TimeZone): Period => ({ start: wallToInstant(start, zone), end: wallToInstant(end, zone) });

/**
 * Reads one period: `2026`, `2026Q1`, `2026W05` (ISO week), `2026-01`, `2026-01-15`,
 * `2026-01-15T10`, `…T10:30`, `…T10:30:15`, `…T10:30:15.250`, each in `zone` unless it
 * carries its own (`Z`, `+02:00`). The period spans the unit of the last component given.
 */
export function parsePeriodText(text: string, zone: TimeZone): Period | undefined {
  // The years date fields hold; earlier text would name a period no row can fall in or after.
  if (!/^\d{4}/.test(text) || Number(text.slice(0, 4)) < 1000) return undefined;
  let m = YEAR.exec(text);
  if (m !== null) {
    const year = Number(m[1]);
    return wallPeriod(Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1), zone);
  }
  m = QUARTER.exec(text);
  if (m !== null) {
    const year = Number(m[1]);
    const quarter = Number(m[2]);
    return wallPeriod(Date.UTC(year, (quarter - 1) * 3, 1), Date.UTC(year, quarter * 3, 1), zone);
  }
  m = WEEK.exec(text);
  if (m !== null) {
    const year = Number(m[1]);
    const week = Number(m[2]);
    if (week < 1 || week > 53 || (week === 53 && !hasWeek53(year))) return undefined;
    const start = isoWeekOne(year) + (week - 1) * 7 * DAY_MS;
    return wallPeriod(start, start + 7 * DAY_MS, zone);
  }
  m = SUNDAY_WEEK.exec(text);
  if (m !== null) {
    const year = Number(m[1]);
    const jan1 = Date.UTC(year, 0, 1);
    const start = jan1 - new Date(jan1).getUTCDay() * DAY_MS + (Number(m[2]) - 1) * 7 * DAY_MS;
    if (Number(m[2]) < 1 || start >= Date.UTC(year + 1, 0, 1)) return undefined;
    return wallPeriod(start, start + 7 * DAY_MS, zone);
  }
  m = MONTH.exec(text);
  if (m !== null) {
    const year = Number(m[1]);
    const month = Number(m[2]);
    if (month < 1 || month > 12) return undefined;
    return wallPeriod(Date.UTC(year, month - 1, 1), Date.UTC(year, month, 1), zone);
  }
  m = DAY_TIME.exec(text);
  if (m === null) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!isCalendarDate(year, month, day)) return undefined;
  const hour = m[4] === undefined ? undefined : Number(m[4]);
  const minute = m[5] === undefined ? undefined : Number(m[5]);
  const second = m[6] === undefined ? undefined : Number(m[6]);
  if ((hour ?? 0) > 23 || (minute ?? 0) > 59 || (second ?? 0) > 59) return undefined;
  const millis = m[7] === undefined ? undefined : Number(m[7].padEnd(3, '0').slice(0, 3));
  const start = Date.UTC(year, month - 1, day, hour ?? 0, minute ?? 0, second ?? 0, millis ?? 0);
  const length = millis !== undefined ? 1 : second !== undefined ? 1000 : minute !== undefined ? 60_000 : hour !== undefined ? 3_600_000 : DAY_MS;
  if (m[8] !== undefined) {
    const offset = zoneOffsetMinutes(m[8]);
    if (offset === undefined) return undefined;
    return { start: start - offset * 60_000, end: start + length - offset * 60_000 };
  }
  return wallPeriod(start, start + length, zone);
}

/** A period with the zone it was read in (the request's, or the one the value names). */
export interface ZonedPeriod extends Period {
  zone: TimeZone;
}

/** A zone ending a value, NocoBase style: `2026+08:00`, `[2026-01-01,2026-01-05]+08:00`. */
const ZONE_SUFFIX = /[+-]\d{2}:\d{2}$/;
/** `[from,to]`, each end closed `[ ]` (the bound's period included) or open `( )` (left out). */
const RANGE_TEXT = /^([[(])([^,]*),([^,]*)([\])])$/;
const BRACKETS = /^[[(][\])]$/;

/**
 * From `from` to `to`: a closed end includes its bound's period (`[2026,2027]` is both years),
 * an open end leaves it out (`[2026,2027)` is 2026 only).
 */
function span(from: string, to: string, brackets: string, zone: TimeZone): ZonedPeriod | undefined {
  const first = parsePeriodText(from.trim(), zone);
  const last = parsePeriodText(to.trim(), zone);
  if (first === undefined || last === undefined) return undefined;
  return { start: brackets[0] === '[' ? first.start : first.end, end: brackets[1] === ']' ? last.end : last.start, zone };
}

/** A period text that may end in its own zone and may be a `[from,to]` range. */
function parsePeriodString(value: string, zone: TimeZone): ZonedPeriod | undefined {
  let text = value.trim();
  const suffix = ZONE_SUFFIX.exec(text);
  if (suffix !== null && !/[T ]\d{2}(:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(text.slice(0, suffix.index))) {
    // A zone after a time is the time's own offset (DAY_TIME reads it); elsewhere it is the zone of the whole value.
    const named = parseTimeZone(suffix[0]);
    if (named === undefined) return undefined;
    text = text.slice(0, suffix.index);
    zone = named;
  }
  const range = RANGE_TEXT.exec(text);
  if (range !== null) return span(range[2]!, range[3]!, range[1]! + range[4]!, zone);
  const period = parsePeriodText(text, zone);
  return period === undefined ? undefined : { ...period, zone };
}

/**
 * A period value: one period's text (optionally ending in a zone, `2026+08:00`), a range text
 * `[from,to]` (ends open with `(` or `)`), or the array `[from, to]`, optionally followed by the
 * brackets (`"[)"`) and a zone: NocoBase's forms. Undefined when the value is not a period.
 */
export function parsePeriod(value: unknown, zone: TimeZone): ZonedPeriod | undefined {
  if (typeof value === 'string') return parsePeriodString(value, zone);
  if (!Array.isArray(value) || value.length < 2 || value.length > 4 || !value.every((item) => typeof item === 'string')) return undefined;
  const [from, to, brackets = '[]', zoneText] = value as string[];
  if (!BRACKETS.test(brackets)) return undefined;
  const named = zoneText === undefined ? zone : parseTimeZone(zoneText);
  return named === undefined ? undefined : span(from!, to!, brackets, named);
}

/** The first and the last instant `date` and `dateOnly` fields hold (years 1000 to 9999). */
export const MIN_INSTANT = Date.UTC(1000, 0, 1);
export const END_INSTANT = Date.UTC(10000, 0, 1);

/** 'YYYY-MM-DD' of a wall-clock day (ms as if UTC), or undefined beyond the years fields hold. */
const dayText = (wall: number): string | undefined => (wall < MIN_INSTANT || wall >= END_INSTANT ? undefined : new Date(wall).toISOString().slice(0, 10));

/**
 * The calendar days [start, end) a period touches in `zone`, for `dateOnly` fields: the day
 * its start falls on, up to the day after the one its last instant falls on. A bound beyond
 * the years a field holds is undefined (no bound).
 */
export function periodDays(period: Period, zone: TimeZone): { start: string | undefined; end: string | undefined } {
  const startDay = Math.floor(instantToWall(period.start, zone) / DAY_MS) * DAY_MS;
  const endDay = Math.max(Math.floor(instantToWall(period.end - 1, zone) / DAY_MS) * DAY_MS + DAY_MS, startDay);
  return { start: dayText(startDay), end: dayText(endDay) };
}
