import { PassThrough, Readable, pipeline } from 'node:stream';
import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import ExcelJS from 'exceljs';
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
  const output = stringify({ bom: true, record_delimiter: 'windows' });
  // A failing read destroys the output with its error: the answer is cut, not ended as if whole.
  pipeline(input, output, () => void source.finish());
  return output;
}

/**
 * One worksheet written by exceljs's streaming WorkbookWriter: each row is committed (and
 * forgotten) as it is added, and the writer waits for the answer to drain between batches.
 * No shared strings, no styles: nothing grows with the row count.
 */
export function xlsxStream(columns: readonly ExportColumn[], source: ItemBatches, zone: TimeZone | undefined, sheetName: string): Readable {
  const output = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31));
  const write = async (): Promise<void> => {
    try {
      sheet.addRow(columns.map((column) => column.title)).commit();
      let count = 0;
      for await (const row of rowsOf(columns, source, zone)) {
        sheet.addRow(row).commit();
        if (++count % 500 === 0 && output.writableNeedDrain) await Promise.race([once(output, 'drain'), once(output, 'close')]);
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
