import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { SHEET_CHUNK_CHARS, textChunks, xlsxRows } from '../../src/import/import-readers.js';

const dir = mkdtempSync(join(tmpdir(), 'corral-import-readers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(source: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const piece of source) out.push(piece);
  return out;
}

async function* bytes(...chunks: Buffer[]): AsyncGenerator<Buffer> {
  yield* chunks;
}

describe('textChunks', () => {
  it('keeps a UTF-8 character whole when the byte chunks split it', async () => {
    const text = Buffer.from('aü€😀b', 'utf8');
    const split = [text.subarray(0, 2), text.subarray(2, 5), text.subarray(5, 8), text.subarray(8)];
    expect((await collect(textChunks(bytes(...split), 100))).join('')).toBe('aü€😀b');
  });

  it('hands the text over in pieces of at most the given size', async () => {
    const pieces = await collect(textChunks(bytes(Buffer.from('x'.repeat(10))), 4));
    expect(pieces).toEqual(['xxxx', 'xxxx', 'xx']);
  });
});

describe('xlsxRows', () => {
  it('reads non-ASCII text that straddles the 64 KB chunks of the sheet unchanged (exceljs alone turned it into U+FFFD)', async () => {
    const file = join(dir, 'text.xlsx');
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: false });
    const sheet = workbook.addWorksheet('s');
    sheet.addRow(['label']).commit();
    const label = (n: number) => `${'ü'.repeat(200 + (n % 7))}€ ${n}`;
    const rows = 3000;
    for (let n = 0; n < rows; n++) sheet.addRow([label(n)]).commit();
    sheet.commit();
    await workbook.commit();
    const read: string[] = [];
    for await (const row of xlsxRows(file, { maxUncompressedBytes: 256 * 1024 * 1024 })) if (row.row > 1) read.push(String(row.cells[0]));
    expect(read).toHaveLength(rows);
    expect(read.filter((text, n) => text !== label(n))).toEqual([]);
    expect(SHEET_CHUNK_CHARS).toBeLessThan(64 * 1024);
  });
});
