import { StringDecoder } from 'node:string_decoder';
import { ApiError } from '../errors/api-error.js';
import { MAX_CELL_CHARS, type SheetContext } from './xlsx-sheet.js';
import { XmlScanner, type XmlHandler } from './xml-scanner.js';
import { contentTooLarge, entryBytes, type InflateBudget, type ZipEntry } from './zip-entries.js';

/** Characters of a part's XML scanned at a time: rows are handed on after each piece. */
export const SHEET_CHUNK_CHARS = 4096;
/**
 * Characters all shared strings of a file may hold together, each counted with SHARED_STRING_COST
 * more for its own bookkeeping: they are kept in memory while the sheet is read.
 */
export const MAX_SHARED_CHARS = 64 * 1024 * 1024;
const SHARED_STRING_COST = 32;
/** Cell formats (`cellXfs`) and custom number formats a styles part may declare (Excel allows 64,000). */
const MAX_FORMATS = 65_536;

/** The zip being read: its path, size, entries and what it may still inflate. */
export interface XlsxSource {
  readonly path: string;
  readonly size: number;
  readonly entries: ReadonlyMap<string, ZipEntry>;
  readonly budget: InflateBudget;
}

const partError = (message: string): ApiError => new ApiError('IMPORT_FILE_INVALID', `the XLSX file cannot be read: ${message}`);

/**
 * Bytes as text in pieces of at most `size` characters, decoded as one UTF-8 stream: a
 * character split across two chunks of the zip entry stays whole.
 */
export async function* textChunks(bytes: AsyncIterable<Buffer | string>, size: number): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  const pieces = function* (text: string): Generator<string> {
    for (let start = 0; start < text.length; start += size) yield text.slice(start, start + size);
  };
  for await (const chunk of bytes) yield* pieces(typeof chunk === 'string' ? chunk : decoder.write(chunk));
  yield* pieces(decoder.end());
}

/** Scans one part through `handler`, pausing after each piece of text (the sheet's reader hands rows on there). */
export async function* scanned(source: XlsxSource, entry: ZipEntry, handler: XmlHandler & { done?: boolean }): AsyncGenerator<void> {
  const scanner = new XmlScanner(handler);
  for await (const text of textChunks(entryBytes(source.path, source.size, entry, source.budget), SHEET_CHUNK_CHARS)) {
    scanner.write(text);
    yield;
    if (handler.done === true) return;
  }
  scanner.end();
}

async function scanAll(source: XlsxSource, entry: ZipEntry, handler: XmlHandler): Promise<void> {
  for await (const _ of scanned(source, entry, handler));
}

/** `xl/worksheets/sheet1.xml` for `worksheets/sheet1.xml` in `xl/_rels/workbook.xml.rels`. */
function partPath(target: string): string {
  return target.startsWith('/') ? target.slice(1) : `xl/${target}`;
}

/** Where the first worksheet, the shared strings and the styles are, and the workbook's date system. */
export interface WorkbookParts {
  readonly sheet: ZipEntry;
  readonly strings?: ZipEntry;
  readonly styles?: ZipEntry;
  readonly date1904: boolean;
}

/** The first sheet workbook.xml lists, found through its relationships; a file without them falls back to the usual names. */
export async function workbookParts(source: XlsxSource): Promise<WorkbookParts> {
  let firstSheet: string | undefined;
  let date1904 = false;
  const book = source.entries.get('xl/workbook.xml');
  if (book !== undefined) {
    await scanAll(source, book, {
      open(name, attributes) {
        if (name === 'sheet' && firstSheet === undefined) firstSheet = attributes.get('id') ?? '';
        if (name === 'workbookPr') date1904 = ['1', 'true'].includes(attributes.get('date1904') ?? '');
      },
      close() {},
      text() {},
    });
  }
  const targets = new Map<string, string>();
  let strings: string | undefined;
  let styles: string | undefined;
  const rels = source.entries.get('xl/_rels/workbook.xml.rels');
  if (rels !== undefined) {
    await scanAll(source, rels, {
      open(name, attributes) {
        const [id, type, target] = [attributes.get('Id'), attributes.get('Type') ?? '', attributes.get('Target')];
        if (name !== 'Relationship' || target === undefined) return;
        if (id !== undefined && targets.size < 10_000) targets.set(id, partPath(target));
        if (type.endsWith('/sharedStrings')) strings = partPath(target);
        if (type.endsWith('/styles')) styles = partPath(target);
      },
      close() {},
      text() {},
    });
  }
  const sheetPath = (firstSheet === undefined ? undefined : targets.get(firstSheet)) ?? 'xl/worksheets/sheet1.xml';
  const sheet = source.entries.get(sheetPath) ?? [...source.entries.values()].find((entry) => /^xl\/worksheets\/[^/]+\.xml$/.test(entry.name));
  if (sheet === undefined) throw partError('it has no worksheet (is it an XLSX file?)');
  const stringsEntry = source.entries.get(strings ?? 'xl/sharedStrings.xml');
  const stylesEntry = source.entries.get(styles ?? 'xl/styles.xml');
  return { sheet, date1904, ...(stringsEntry === undefined ? {} : { strings: stringsEntry }), ...(stylesEntry === undefined ? {} : { styles: stylesEntry }) };
}

/**
 * The shared strings (`sst` > `si`, rich text runs joined, phonetic guides left out). Bounds: one
 * string MAX_CELL_CHARS, all of them MAX_SHARED_CHARS (413 IMPORT_CONTENT_TOO_LARGE).
 */
export async function sharedStrings(source: XlsxSource, entry: ZipEntry): Promise<string[]> {
  const strings: string[] = [];
  let current: string | undefined;
  let capture = false;
  let phonetic = 0;
  let total = 0;
  await scanAll(source, entry, {
    open(name, _attributes, selfClosing) {
      if (name === 'si') current = '';
      else if (name === 'rPh' && !selfClosing) phonetic += 1;
      else if (name === 't' && current !== undefined && phonetic === 0) capture = !selfClosing;
      if (name === 'si' && selfClosing) this.close('si');
    },
    text(text) {
      if (!capture || current === undefined) return;
      current += text;
      total += text.length;
      if (current.length > MAX_CELL_CHARS) throw contentTooLarge(`shared string ${strings.length + 1} holds more than ${MAX_CELL_CHARS} characters`, MAX_CELL_CHARS);
      if (total > MAX_SHARED_CHARS) throw contentTooLarge(`the shared strings hold more than ${MAX_SHARED_CHARS} characters`, MAX_SHARED_CHARS);
    },
    close(name) {
      if (name === 't') capture = false;
      else if (name === 'rPh') phonetic = Math.max(0, phonetic - 1);
      else if (name === 'si' && current !== undefined) {
        strings.push(current);
        current = undefined;
        total += SHARED_STRING_COST;
        if (total > MAX_SHARED_CHARS) throw contentTooLarge(`the shared strings hold more than ${MAX_SHARED_CHARS} characters`, MAX_SHARED_CHARS);
      }
    },
  });
  return strings;
}

/** Built-in number formats that show dates or times (ECMA-376 18.8.30). */
const DATE_FORMAT_IDS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);

/** A custom format code shows a date when, its quoted text and [bracketed] parts aside, it has a date or time letter. */
function isDateCode(code: string): boolean {
  return /[ymdhsb]/i.test(code.replace(/\[[^\]]*\]/g, '').replace(/"[^"]*"/g, ''));
}

/** Which cell formats (`cellXfs` > `xf`, by index) show a date: such a number cell reads as a date. */
export async function dateStyles(source: XlsxSource, entry: ZipEntry): Promise<boolean[]> {
  const custom = new Map<number, string>();
  const formats: number[] = [];
  let inCellFormats = false;
  await scanAll(source, entry, {
    open(name, attributes, selfClosing) {
      if (name === 'numFmt' && custom.size < MAX_FORMATS) custom.set(Number(attributes.get('numFmtId')), (attributes.get('formatCode') ?? '').slice(0, 256));
      else if (name === 'cellXfs') inCellFormats = !selfClosing;
      else if (name === 'xf' && inCellFormats) {
        if (formats.length >= MAX_FORMATS) throw partError(`its styles declare more than ${MAX_FORMATS} cell formats`);
        formats.push(Number(attributes.get('numFmtId') ?? '0'));
      }
    },
    close(name) {
      if (name === 'cellXfs') inCellFormats = false;
    },
    text() {},
  });
  return formats.map((id) => { const code = custom.get(id); return code === undefined ? DATE_FORMAT_IDS.has(id) : isDateCode(code); });
}

/** The shared strings and date formats a sheet's cells refer to. */
export async function sheetContext(source: XlsxSource, parts: WorkbookParts): Promise<SheetContext> {
  const strings = parts.strings === undefined ? [] : await sharedStrings(source, parts.strings);
  const styles = parts.styles === undefined ? [] : await dateStyles(source, parts.styles);
  return { strings, dateStyles: styles, date1904: parts.date1904 };
}
