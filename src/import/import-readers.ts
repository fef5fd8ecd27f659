import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { ApiError } from '../errors/api-error.js';
import type { SheetCell } from './import-cells.js';

export const IMPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** One row of the file: its spreadsheet number (the header is row 1) and its cells. */
export interface SheetRow {
  readonly row: number;
  readonly cells: readonly SheetCell[];
}

/** Longest text of one CSV cell (a row longer than this is a broken file, not data). */
export const MAX_CELL_CHARS = 1024 * 1024;

const fileError = (message: string, cause?: unknown): ApiError => new ApiError('IMPORT_FILE_INVALID', message, cause === undefined ? {} : { cause });

/**
 * The records of a CSV file (UTF-8, a byte order mark skipped, `,` separated, RFC 4180
 * quoting), read from disk by csv-parse as a stream. Blank lines are skipped and not counted:
 * `row` is the record's position, the header being 1.
 */
export async function* csvRows(path: string): AsyncGenerator<SheetRow> {
  const input = createReadStream(path);
  const parser = input.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_CELL_CHARS }));
  input.on('error', (error) => parser.destroy(error));
  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      row += 1;
      yield { row, cells: record };
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw fileError(`the CSV file cannot be read after row ${row}: ${error instanceof Error ? error.message.slice(0, 200) : 'parse error'}`, error);
  } finally {
    input.destroy();
  }
}

type XlsxValue = null | undefined | string | number | boolean | Date | { [key: string]: unknown };

/** An XLSX cell's value as a SheetCell: rich text and hyperlinks as their text; formulas and errors refused. */
function xlsxCell(value: XlsxValue): SheetCell {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || value instanceof Date) return value;
  if ('formula' in value || 'sharedFormula' in value) return { refused: 'is a formula cell; formulas are never evaluated, import the values instead' };
  if ('error' in value) return { refused: `is an error cell (${String(value.error).slice(0, 20)})` };
  if (Array.isArray(value.richText)) return value.richText.map((part: unknown) => (typeof part === 'object' && part !== null && 'text' in part ? String(part.text) : '')).join('');
  if (typeof value.text === 'string') return value.text;
  return { refused: 'is a cell of a kind an import does not read' };
}

/**
 * The rows of the first worksheet of an XLSX file, read by exceljs's streaming WorkbookReader
 * (rows are handed over as they are unzipped; shared strings are kept, so a file's distinct
 * texts are in memory). Empty rows are skipped; `row` is the sheet's own row number.
 */
export async function* xlsxRows(path: string): AsyncGenerator<SheetRow> {
  const input = createReadStream(path);
  let last = 0;
  try {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, { worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache', entries: 'ignore' });
    for await (const sheet of reader) {
      for await (const row of sheet) {
        const values = row.values as XlsxValue[];
        const cells: SheetCell[] = [];
        for (let column = 1; column < values.length; column++) cells.push(xlsxCell(values[column]));
        last = row.number;
        yield { row: row.number, cells };
      }
      // The first worksheet only.
      return;
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw fileError(`the XLSX file cannot be read${last > 0 ? ` after row ${last}` : ''}: ${error instanceof Error ? error.message.slice(0, 200) : 'unzip error'}`, error);
  } finally {
    input.destroy();
  }
}

/** The format of a file: `format` when given, else a zip (PK\x03\x04) is XLSX, else the name or type says, else CSV. */
export function importFormat(given: string | undefined, head: Buffer, filename: string, mimetype: string): ImportFormat {
  if (given !== undefined) {
    if ((IMPORT_FORMATS as readonly string[]).includes(given)) return given as ImportFormat;
    throw new ApiError('PARAM_INVALID', `format must be one of ${IMPORT_FORMATS.join(', ')}`, { field: 'format' });
  }
  if (head.length >= 4 && head.readUInt32BE(0) === 0x504b0304) return 'xlsx';
  if (/\.xlsx$/i.test(filename) || mimetype === 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet') return 'xlsx';
  return 'csv';
}
