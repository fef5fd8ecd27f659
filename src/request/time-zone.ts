/**
 * The zone date periods are read in: UTC, a fixed offset (`+05:30`) or an IANA name
 * (`Europe/Berlin`), from the `X-Timezone` request header.
 */
export type TimeZone = { kind: 'offset'; minutes: number } | { kind: 'iana'; name: string };

export const UTC: TimeZone = { kind: 'offset', minutes: 0 };

const OFFSET = /^([+-])(\d{2}):?(\d{2})$/;
const MAX_OFFSET_MINUTES = 18 * 60;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(name: string): Intl.DateTimeFormat | undefined {
  let formatter = formatters.get(name);
  if (formatter === undefined) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: name, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
      });
    } catch {
      return undefined;
    }
    formatters.set(name, formatter);
  }
  return formatter;
}

/** `Z`, `UTC`, `±HH:MM` (also `±HHMM`) or an IANA zone name; undefined when it is none of these. */
export function parseTimeZone(text: string): TimeZone | undefined {
  const value = text.trim();
  if (value === 'Z' || value.toUpperCase() === 'UTC') return UTC;
  const m = OFFSET.exec(value);
  if (m !== null) {
    const hours = Number(m[2]);
    const minutes = Number(m[3]);
    if (minutes > 59) return undefined;
    const total = hours * 60 + minutes;
    if (total > MAX_OFFSET_MINUTES) return undefined;
    return { kind: 'offset', minutes: m[1] === '-' ? -total : total };
  }
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(value)) return undefined;
  const formatter = formatterOf(value);
  return formatter === undefined ? undefined : { kind: 'iana', name: formatter.resolvedOptions().timeZone };
}

/** Milliseconds east of UTC that `zone` is at the instant `ms` (whole seconds: old local mean times are not whole minutes). */
export function offsetAt(zone: TimeZone, ms: number): number {
  if (zone.kind === 'offset') return zone.minutes * 60_000;
  const parts = formatterOf(zone.name)!.formatToParts(new Date(ms));
  const get = (type: string): number => Number(parts.find((part) => part.type === type)!.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  const whole = ms - (((ms % 1000) + 1000) % 1000);
  return wall - whole;
}

/**
 * The instant of a wall-clock time (given as if it were UTC, in ms) in `zone`. A wall time
 * skipped by a DST change resolves with the offset before the change (so it lands after the gap);
 * a repeated one takes its first occurrence.
 */
export function wallToInstant(wall: number, zone: TimeZone): number {
  if (zone.kind === 'offset') return wall - zone.minutes * 60_000;
  const first = wall - offsetAt(zone, wall);
  const second = wall - offsetAt(zone, first);
  if (first === second) return first;
  // Two candidates: keep one that maps back to the wall time, the earlier if both do.
  const back = (t: number) => t + offsetAt(zone, t) === wall;
  const candidates = [first, second].filter(back).sort((a, b) => a - b);
  return candidates[0] ?? Math.max(first, second);
}

/** The wall-clock time (as if UTC, in ms) of the instant `ms` in `zone`. */
export const instantToWall = (ms: number, zone: TimeZone): number => ms + offsetAt(zone, ms);
