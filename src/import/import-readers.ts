import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
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
  /** Bytes of the file read so far (CSV; a read-ahead of up to one 64 KB chunk included). */
  readonly bytesRead?: number;
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
      yield { row, cells: record, bytesRead: input.bytesRead };
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

/** Characters of the sheet's XML parsed at a time (see xlsxRows). */
export const SHEET_CHUNK_CHARS = 4096;

/**
 * The bytes of a worksheet's XML as text in pieces of at most `size` characters, decoded as
 * one UTF-8 stream: a character split across two chunks of the zip entry stays whole.
 */
export async function* textChunks(bytes: AsyncIterable<Buffer | string>, size: number): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  const pieces = function* (text: string): Generator<string> {
    for (let start = 0; start < text.length; start += size) yield text.slice(start, start + size);
  };
  for await (const chunk of bytes) yield* pieces(typeof chunk === 'string' ? chunk : decoder.write(chunk));
  yield* pieces(decoder.end());
}

/** The one part of exceljs's WorksheetReader that xlsxRows replaces: where it reads the sheet's XML. */
interface SheetSource {
  iterator?: unknown;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Buffer | string> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/**
 * The rows of the first worksheet of an XLSX file, read by exceljs's streaming WorkbookReader
 * (shared strings are kept, so a file's distinct texts are in memory). The sheet's XML reaches
 * exceljs's parser as text decoded here, in pieces of SHEET_CHUNK_CHARS: exceljs decodes each
 * 64 KB chunk alone (a character split between two chunks became U+FFFD) and keeps the Row and
 * Cell objects of a whole chunk alive while its rows are written, long enough to reach V8's old
 * generation (docs/import-export.md#limits-and-large-files). Empty rows are skipped; `row` is
 * the sheet's own row number.
 */
export async function* xlsxRows(path: string): AsyncGenerator<SheetRow> {
  const input = createReadStream(path);
  let last = 0;
  try {
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, { worksheets: 'emit', sharedStrings: 'cache', hyperlinks: 'ignore', styles: 'cache', entries: 'ignore' });
    for await (const sheet of reader) {
      const source = sheet as unknown as SheetSource;
      if (!isAsyncIterable(source.iterator)) throw new Error('exceljs WorksheetReader has no iterator to read the sheet from (exceljs changed: see import-readers.ts)');
      source.iterator = textChunks(source.iterator, SHEET_CHUNK_CHARS);
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
