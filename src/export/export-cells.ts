import { offsetAt, type TimeZone } from '../request/time-zone.js';
import type { Field } from '../schema/collection.js';

/** A cell as a spreadsheet holds it: text, a number, a boolean, or empty. */
export type Cell = string | number | boolean | null;

/**
 * Where a line of a text cell starts with characters that make a spreadsheet read it as a
 * formula (or that some spreadsheets strip before doing so): OWASP's CSV injection list. A line
 * starts at the start of the text and after every CR or LF in it, so no line of a multi-line
 * cell can start a formula whichever line break a reader splits on.
 */
// A line that already starts with quotes before such a character gets one more, so an import
// (import-cells.ts) takes exactly one off each line and the round trip keeps the text.
const FORMULA_LINE_START = /(?<=^|[\r\n])(?='*[=+\-@\t\r])/g;

/** Text whose values are numbers or instants written as text: never a formula, never escaped. */
const NOT_TEXT = new Set(['bigInt', 'decimal', 'date', 'dateOnly', 'time']);

/** `'=1+1` for `=1+1`, `a\n'=2` for `a\n=2`: each line of a text cell that would start a formula gets a leading single quote. */
export function escapeFormula(text: string): string {
  return text.replace(FORMULA_LINE_START, "'");
}

/** `2026-03-01T09:30:00.000+01:00`: the instant in `zone` with its offset; `Z` kept when the offset is zero. */
export function instantIn(iso: string, zone: TimeZone | undefined): string {
  const ms = Date.parse(iso);
  if (zone === undefined || Number.isNaN(ms)) return iso;
  const offset = offsetAt(zone, ms);
  if (offset === 0) return new Date(ms).toISOString();
  const minutes = Math.round(Math.abs(offset) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${new Date(ms + offset).toISOString().slice(0, -1)}${sign}${hh}:${mm}`;
}

/**
 * One value of an item as a cell: numbers and booleans as they are, instants (`date` fields)
 * in the caller's zone, JSON values as JSON text, big integers and decimals as their exact text,
 * and text that would start a formula escaped.
 */
export function cellOf(field: Field, value: unknown, zone: TimeZone | undefined): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  const type = field.def.type;
  if (typeof value === 'string') {
    if (type === 'date') return instantIn(value, zone);
    if (NOT_TEXT.has(type)) return value;
    if (type === 'json' || type === 'array') return escapeFormula(JSON.stringify(value));
    return escapeFormula(value);
  }
  return escapeFormula(JSON.stringify(value));
}

/** A cell as CSV text: empty for null, `true`/`false`, numbers as JavaScript writes them. */
export function csvText(cell: Cell): string {
  return cell === null ? '' : String(cell);
}
