import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { parse } from 'csv-parse';
import { ApiError } from '../errors/api-error.js';
import { scanned, sheetContext, workbookParts, type XlsxSource } from './xlsx-parts.js';
import { MAX_CELL_CHARS, SheetReader, type SheetRow } from './xlsx-sheet.js';
import { InflateBudget, zipEntries } from './zip-entries.js';

export { SHEET_CHUNK_CHARS, textChunks } from './xlsx-parts.js';
export { MAX_CELL_CHARS, type SheetRow } from './xlsx-sheet.js';

export const IMPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

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
    if (typeof error === 'object' && error !== null && 'code' in error && error.code === 'CSV_MAX_RECORD_SIZE') {
      throw new ApiError('IMPORT_CONTENT_TOO_LARGE', `row ${row + 1} of the CSV file holds more than ${MAX_CELL_CHARS} characters`, { details: { limit: MAX_CELL_CHARS }, cause: error });
    }
    throw fileError(`the CSV file cannot be read after row ${row}: ${error instanceof Error ? error.message.slice(0, 200) : 'parse error'}`, error);
  } finally {
    input.destroy();
  }
}

/** The bounds of an XLSX import besides the cell and row ones (xlsx-sheet.ts). */
export interface XlsxLimits {
  /** What all the parts read may inflate to together (CORRAL_IMPORT_MAX_UNCOMPRESSED_BYTES). */
  readonly maxUncompressedBytes: number;
}

/**
 * The rows of the first worksheet of an XLSX file, read without loading it: the zip's central
 * directory tells where the parts are, each part is inflated as a stream (zip-entries.ts, every
 * byte counted against `limits` and a zip-bomb ratio) and scanned by a small XML tokenizer
 * (xml-scanner.ts); the shared strings are held (bounded), the sheet's rows are handed on as
 * they are read. Empty rows are skipped; `row` is the sheet's own row number
 * (docs/import-export.md#limits-and-large-files).
 */
export async function* xlsxRows(path: string, limits: XlsxLimits): AsyncGenerator<SheetRow> {
  let last = 0;
  try {
    const { size } = await stat(path);
    const source: XlsxSource = { path, size, entries: await zipEntries(path, size), budget: new InflateBudget(limits.maxUncompressedBytes) };
    const parts = await workbookParts(source);
    const reader = new SheetReader(await sheetContext(source, parts));
    for await (const _ of scanned(source, parts.sheet, reader)) {
      for (const row of reader.take()) {
        last = row.row;
        yield row;
      }
    }
    yield* reader.take();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw fileError(`the XLSX file cannot be read${last > 0 ? ` after row ${last}` : ''}`, error);
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
