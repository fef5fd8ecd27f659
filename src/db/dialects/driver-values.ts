/** The last instant formatted: a write stamps `createdAt` and `updatedAt` with the same one. */
let lastTime = Number.NaN;
let lastText = '';

/** `date.toISOString()`, formatted once for consecutive calls with the same instant (an invalid date still throws). */
export function isoText(date: Date): string {
  const time = date.getTime();
  if (time !== lastTime) {
    lastText = date.toISOString();
    lastTime = time;
  }
  return lastText;
}

/** MySQL DATETIME(3) text in UTC: 'YYYY-MM-DD HH:MM:SS.mmm'. */
export const toMysqlDateTime = (date: Date): string => date.toISOString().slice(0, 23).replace('T', ' ');

/**
 * SQLite returns a REAL as a number and an integral value as a bigint (safe integers are on);
 * format both like the servers do, with exactly `scale` digits after the point.
 */
export function formatDecimal(raw: unknown, scale: number): string {
  const zeros = scale > 0 ? `.${'0'.repeat(scale)}` : '';
  if (typeof raw === 'bigint') return `${raw}${zeros}`;
  if (typeof raw === 'number') {
    // toFixed switches to exponent notation from 1e21 on; such a REAL is integral anyway.
    return Math.abs(raw) < 1e21 ? raw.toFixed(scale) : `${BigInt(raw)}${zeros}`;
  }
  return String(raw);
}
