import { PassThrough, Readable, pipeline } from 'node:stream';
import { EventEmitter, once } from 'node:events';
import { stringify } from 'csv-stringify';
import type { ItemBatches } from '../store/read-rows.js';
import type { TimeZone } from '../request/time-zone.js';
import { cellOf, csvText, type Cell } from './export-cells.js';
import type { ExportColumn } from './export-columns.js';

export const EXPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** The header row, then one row of cells per item, batch by batch as the store reads them. */
async function* rowsOf(columns: readonly ExportColumn[], source: ItemBatches, zone: TimeZone | undefined): AsyncGenerator<Cell[]> {
  for await (const items of source.batches) {
    for (const item of items) yield columns.map((column) => cellOf(column.field, column.value(item as Record<string, unknown>), zone));
  }
}

/**
 * RFC 4180 CSV (CRLF rows, UTF-8 with a byte order mark so spreadsheets read it as UTF-8) through
 * csv-stringify, pulled row by row: a slow client slows the read, memory stays flat.
 */
export function csvStream(columns: readonly ExportColumn[], source: ItemBatches, zone: TimeZone | undefined): Readable {
  async function* records(): AsyncGenerator<string[]> {
    try {
      yield columns.map((column) => column.title);
      for await (const row of rowsOf(columns, source, zone)) yield row.map(csvText);
    } finally {
      await source.finish();
    }
  }
  const input = Readable.from(records());
  // A bare CR or LF is a line break to RFC 4180 readers and spreadsheets: quoted like CRLF, comma and quote.
  const output = stringify({ bom: true, record_delimiter: 'windows', quoted_match: /[\r\n]/ });
  // A failing read destroys the output with its error: the answer is cut, not ended as if whole.
  pipeline(input, output, () => void source.finish());
  return output;
}

/**
 * exceljs writes a sheet into its zip without heeding backpressure: its sheet buffer (`stream`)
 * writes each chunk into the zip's deflate stream (`pipes`) whatever that stream's backlog.
 * Waiting here until the deflate stream and the answer have drained keeps the backlog to one
 * batch of rows (exceljs 4.4; without the internals, the wait is on the answer alone).
 */
async function drained(sheet: object, output: PassThrough): Promise<void> {
  const buffer = (sheet as { stream?: { pipes?: unknown } }).stream;
  const pipes = Array.isArray(buffer?.pipes) ? (buffer.pipes as unknown[]) : [];
  for (const target of [...pipes, output]) {
    // The zip's streams are readable-stream's (not node:stream's): told by their shape.
    if (!(target instanceof EventEmitter) || !isBacklogged(target)) continue;
    const stop = new AbortController();
    // Either ends the wait; the other listener is removed (no listener piles up per batch).
    await Promise.race([once(target, 'drain', { signal: stop.signal }), once(output, 'close', { signal: stop.signal })]).catch(() => undefined);
    stop.abort();
  }
}

function isBacklogged(target: EventEmitter): boolean {
  const stream = target as { writableLength?: unknown; writableHighWaterMark?: unknown; _writableState?: { length?: unknown; highWaterMark?: unknown }; destroyed?: unknown };
  // readable-stream 2 (archiver's) has no writableLength: its state tells the backlog.
  const length = stream.writableLength ?? stream._writableState?.length;
  const limit = stream.writableHighWaterMark ?? stream._writableState?.highWaterMark;
  return typeof length === 'number' && typeof limit === 'number' && length >= limit && stream.destroyed !== true;
}

/**
 * One worksheet written by exceljs's streaming WorkbookWriter: each row is committed (and
 * forgotten) as it is added, and the writer waits for the answer to drain between batches.
 * No shared strings, no styles: nothing grows with the row count. exceljs is loaded here, on
 * the first XLSX export, not when the app starts (it is most of the app's load time).
 */
export function xlsxStream(columns: readonly ExportColumn[], source: ItemBatches, zone: TimeZone | undefined, sheetName: string): Readable {
  const output = new PassThrough();
  const write = async (): Promise<void> => {
    try {
      const { default: ExcelJS } = await import('exceljs');
      const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useSharedStrings: false, useStyles: false });
      const sheet = workbook.addWorksheet(sheetName.slice(0, 31));
      sheet.addRow(columns.map((column) => column.title)).commit();
      let count = 0;
      for await (const row of rowsOf(columns, source, zone)) {
        sheet.addRow(row).commit();
        if (++count % 500 === 0) await drained(sheet, output);
        if (output.destroyed) return;
      }
      sheet.commit();
      await workbook.commit();
    } finally {
      await source.finish();
    }
  };
  write().catch((error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error))));
  output.once('close', () => void source.finish());
  return output;
}
