import type { Field } from '../schema/collection.js';
import type { ScalarType } from '../schema/types.js';

/** A cell an import refuses (an XLSX formula: never evaluated, its cached result not taken either), and why. */
export interface RefusedCell {
  readonly refused: string;
}

/** A cell as a reader gives it: CSV gives text, XLSX its typed value; null when empty. */
export type SheetCell = string | number | boolean | Date | RefusedCell | null;

/** What a cell becomes for the create path: a value bindWriteValues checks, or why it cannot be read. */
export type CellInput = { ok: true; value: unknown } | { ok: false; message: string };

/** The quote the export put at a line start (the text's, or after a CR or LF) before a formula character. */
const ESCAPED_FORMULA = /(?<=^|[\r\n])'(?='*[=+\-@\t\r])/g;

/** `'=1+1` → `=1+1`, `a\n'=2` → `a\n=2`: the export's CSV-injection quotes (export-cells.ts `escapeFormula`) taken off again, one per line. */
export function unescapeFormula(text: string): string {
  return text.replace(ESCAPED_FORMULA, '');
}

const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
const BOOLEANS: Record<string, boolean> = { true: true, false: false, '1': true, '0': false };

const ok = (value: unknown): CellInput => ({ ok: true, value });

/** A non-empty, non-formula cell as text: numbers as JavaScript writes them, dates in ISO 8601 UTC. */
function textOf(cell: string | number | boolean | Date): string {
  return cell instanceof Date ? cell.toISOString() : String(cell);
}

type CellReader = (cell: string | number | boolean | Date) => CellInput;

const text: CellReader = (cell) => ok(typeof cell === 'string' ? unescapeFormula(cell) : textOf(cell));
/** Numbers from number cells, or from text that is a decimal number; other text goes to the field's validator as it is (and fails there). */
const number: CellReader = (cell) => {
  if (typeof cell === 'number') return ok(cell);
  const trimmed = textOf(cell).trim();
  return ok(NUMBER_TEXT.test(trimmed) ? Number(trimmed) : trimmed);
};
/** Exact digits stay text: a number cell would have rounded them already, its text is taken as shown. */
const digits: CellReader = (cell) => ok(textOf(cell).trim());
const boolean: CellReader = (cell) => {
  if (typeof cell === 'boolean') return ok(cell);
  const word = textOf(cell).trim().toLowerCase();
  return ok(Object.hasOwn(BOOLEANS, word) ? BOOLEANS[word] : textOf(cell));
};
const instant: CellReader = (cell) => ok(textOf(cell).trim());
const dateOnly: CellReader = (cell) => ok(cell instanceof Date ? cell.toISOString().slice(0, 10) : textOf(cell).trim());
const timeOfDay: CellReader = (cell) => ok(cell instanceof Date ? cell.toISOString().slice(11, 19) : textOf(cell).trim());
/** JSON text (the export's form); a number or boolean cell is that JSON value. */
const json: CellReader = (cell) => {
  if (typeof cell === 'number' || typeof cell === 'boolean') return ok(cell);
  const source = typeof cell === 'string' ? unescapeFormula(cell) : textOf(cell);
  try {
    return ok(JSON.parse(source) as unknown);
  } catch {
    return { ok: false, message: 'is not JSON text' };
  }
};

/** How each field type reads a cell; a new type fails to compile until it has a reader here. */
const CELL_READERS: Record<ScalarType, CellReader> = {
  string: text,
  text,
  uuid: text,
  nanoid: text,
  password: text,
  integer: number,
  float: number,
  double: number,
  sort: number,
  bigInt: digits,
  decimal: digits,
  boolean,
  date: instant,
  dateOnly,
  time: timeOfDay,
  json,
  array: json,
};

/**
 * One cell as the create path's input for `field` (docs/import-export.md#values): an empty
 * cell is null; text is parsed by the field's type (numbers, `true/false/1/0`, JSON text); the
 * export's formula quote is removed; a formula cell is refused, never evaluated.
 */
export function cellInput(field: Field, cell: SheetCell): CellInput {
  if (cell === null || cell === '') return ok(null);
  if (typeof cell === 'object' && !(cell instanceof Date)) return { ok: false, message: cell.refused };
  return CELL_READERS[field.def.type as ScalarType](cell);
}
