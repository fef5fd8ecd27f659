import { ApiError } from '../errors/api-error.js';
import type { SheetCell } from './import-cells.js';
import type { XmlHandler } from './xml-scanner.js';
import { contentTooLarge } from './zip-entries.js';

/** One row of a sheet: its spreadsheet number (the header is row 1) and its cells. */
export interface SheetRow {
  readonly row: number;
  readonly cells: readonly SheetCell[];
  /** Bytes of the file read so far (CSV; a read-ahead of up to one 64 KB chunk included). */
  readonly bytesRead?: number;
}

/** Longest text of one cell or shared string, in characters: the record limit of a CSV row too. */
export const MAX_CELL_CHARS = 1024 * 1024;
/** Columns of a row (Excel's own limit, XFD). */
export const MAX_COLUMNS = 16_384;
/** Characters of a row's own text (shared strings are held once, whatever the cells that use them). */
export const MAX_ROW_CHARS = 16 * 1024 * 1024;
/** The last row number a sheet can have (Excel's limit). */
const MAX_ROW_NUMBER = 1_048_576;

/** What the cells of a sheet refer to: the shared strings, which cell formats are dates, and the date system. */
export interface SheetContext {
  readonly strings: readonly string[];
  readonly dateStyles: readonly boolean[];
  readonly date1904: boolean;
}

const sheetError = (message: string): ApiError => new ApiError('IMPORT_FILE_INVALID', `the XLSX file cannot be read: ${message}`);

/** `1` → `A`, `28` → `AB`. */
export function columnName(column: number): string {
  let name = '';
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) name = String.fromCharCode(65 + ((rest - 1) % 26)) + name;
  return name;
}

/** The column of a cell reference (`AB12` → 28), or undefined when it is not one. */
function columnOf(reference: string): number | undefined {
  const match = /^\$?([A-Za-z]{1,3})\$?\d*$/.exec(reference.trim());
  if (match === null) return undefined;
  let column = 0;
  for (const char of match[1]!.toUpperCase()) column = column * 26 + (char.charCodeAt(0) - 64);
  return column;
}

/** A serial day number of the workbook's date system as an instant (UTC), the way spreadsheets store dates. */
function serialDate(serial: number, date1904: boolean): Date {
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * 86_400_000));
}

interface OpenCell {
  readonly type: string;
  readonly style: number;
  readonly reference: string;
  formula: boolean;
  hasValue: boolean;
}

/**
 * The rows of a worksheet's XML as the XmlScanner reports it (`sheetData` > `row` > `c` >
 * `v` | `f` | `is`): a cell without `r` is the next column, a row without `r` the next row.
 * Bounds: a cell's text (MAX_CELL_CHARS), a row's columns (MAX_COLUMNS) and text
 * (MAX_ROW_CHARS), each 413 IMPORT_CONTENT_TOO_LARGE naming the cell or row. Finished rows wait
 * in `take()` for the reader; rows with no value are skipped.
 */
export class SheetReader implements XmlHandler {
  /** True once `</sheetData>` is read: nothing after it matters. */
  done = false;
  private ready: SheetRow[] = [];
  private inData = false;
  private rowNumber = 0;
  private cells: SheetCell[] = [];
  private column = 0;
  private rowChars = 0;
  private cell: OpenCell | undefined;
  private cellText = '';
  private capture = false;
  private phonetic = 0;

  constructor(private readonly context: SheetContext) {}

  /** The rows finished since the last call. */
  take(): SheetRow[] {
    const rows = this.ready;
    this.ready = [];
    return rows;
  }

  open(name: string, attributes: ReadonlyMap<string, string>, selfClosing: boolean): void {
    if (name === 'sheetData') {
      this.inData = !selfClosing;
      this.done = selfClosing;
      return;
    }
    if (!this.inData) return;
    if (name === 'row') this.startRow(attributes.get('r'), selfClosing);
    else if (name === 'c') this.startCell(attributes, selfClosing);
    else if (this.cell === undefined) return;
    else if (name === 'f') this.cell.formula = true;
    else if (name === 'rPh') this.phonetic += selfClosing ? 0 : 1;
    else if (name === 'v' || (name === 't' && this.phonetic === 0)) {
      // A phonetic guide's `t` (inside `rPh`) is not the cell's text.
      this.cell.hasValue = true;
      this.capture = !selfClosing;
    }
  }

  text(text: string): void {
    if (!this.capture) return;
    this.cellText += text;
    this.rowChars += text.length;
    if (this.cellText.length > MAX_CELL_CHARS) {
      throw contentTooLarge(`cell ${this.cell?.reference ?? ''} holds more than ${MAX_CELL_CHARS} characters`, MAX_CELL_CHARS);
    }
    if (this.rowChars > MAX_ROW_CHARS) throw contentTooLarge(`row ${this.rowNumber} holds more than ${MAX_ROW_CHARS} characters`, MAX_ROW_CHARS);
  }

  close(name: string): void {
    if (name === 'v' || name === 't') this.capture = false;
    else if (name === 'rPh') this.phonetic = Math.max(0, this.phonetic - 1);
    else if (name === 'c') this.endCell();
    else if (name === 'row') this.endRow();
    else if (name === 'sheetData' && this.inData) {
      this.inData = false;
      this.done = true;
    }
  }

  private startRow(reference: string | undefined, selfClosing: boolean): void {
    const number = reference === undefined ? this.rowNumber + 1 : Number(reference);
    if (!Number.isInteger(number) || number < 1 || number > MAX_ROW_NUMBER) throw sheetError(`row number ${String(reference).slice(0, 20)} is not one`);
    this.rowNumber = number;
    this.cells = [];
    this.column = 0;
    this.rowChars = 0;
    if (selfClosing) this.endRow();
  }

  private startCell(attributes: ReadonlyMap<string, string>, selfClosing: boolean): void {
    const reference = attributes.get('r');
    const column = reference === undefined ? this.column + 1 : columnOf(reference);
    if (column === undefined || column < 1) throw sheetError(`row ${this.rowNumber} has a cell reference ${String(reference).slice(0, 20)} that is not one`);
    if (column > MAX_COLUMNS) throw contentTooLarge(`row ${this.rowNumber} has more than ${MAX_COLUMNS} columns`, MAX_COLUMNS);
    this.column = column;
    const style = Number(attributes.get('s') ?? '0');
    this.cell = { type: attributes.get('t') ?? 'n', style: Number.isInteger(style) ? style : 0, reference: `${columnName(column)}${this.rowNumber}`, formula: false, hasValue: false };
    this.cellText = '';
    this.capture = false;
    this.phonetic = 0;
    if (selfClosing) this.endCell();
  }

  private endCell(): void {
    const cell = this.cell;
    if (cell === undefined) return;
    this.cells[this.column - 1] = this.value(cell, this.cellText);
    this.cell = undefined;
    this.cellText = '';
    this.capture = false;
  }

  private endRow(): void {
    this.endCell();
    const cells = Array.from(this.cells, (cell) => cell ?? null);
    if (cells.some((cell) => cell !== null)) this.ready.push({ row: this.rowNumber, cells });
    this.cells = [];
  }

  /** A cell's value as exceljs gave it before: text, a number, a boolean, a date for a date-formatted number; formulas and errors refused. */
  private value(cell: OpenCell, text: string): SheetCell {
    if (cell.formula) return { refused: 'is a formula cell; formulas are never evaluated, import the values instead' };
    if (!cell.hasValue) return null;
    switch (cell.type) {
      case 's': {
        const index = Number(text.trim());
        const shared = Number.isInteger(index) ? this.context.strings[index] : undefined;
        if (shared === undefined) throw sheetError(`cell ${cell.reference} refers to shared string ${text.slice(0, 20)}, which the file does not have`);
        return shared;
      }
      case 'str':
      case 'inlineStr':
        return text;
      case 'b':
        return text.trim() === '1' || text.trim().toLowerCase() === 'true';
      case 'e':
        return { refused: `is an error cell (${text.slice(0, 20)})` };
      case 'd': {
        const date = new Date(text.trim());
        return Number.isNaN(date.getTime()) ? { refused: 'is a date cell whose value is not a date' } : date;
      }
      default: {
        if (text.trim() === '') return null;
        const number = Number(text);
        if (!Number.isFinite(number)) return { refused: 'is a number cell whose value is not a number' };
        return this.context.dateStyles[cell.style] === true ? serialDate(number, this.context.date1904) : number;
      }
    }
  }
}
