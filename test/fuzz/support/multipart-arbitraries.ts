/**
 * Generators of multipart bodies for the upload and import endpoints: random part counts, part
 * order, names, filenames, headers and sizes, file contents that are CSV-ish (quotes, CR/LF,
 * formulas, ragged rows, long cells, NUL and broken UTF-8) or XLSX-ish (real workbooks, cut or
 * with flipped bytes, a zip signature before noise), and broken framing (wrong, missing or
 * quoted boundary, no closing delimiter, a body cut short, no blank line after the headers).
 */
import fc from 'fast-check';
import type { FuzzRequest } from './request-arbitraries.js';

const CRLF = '\r\n';

export interface GeneratedPart {
  name: string;
  filename?: string;
  contentType?: string;
  /** Extra header lines, written as given (odd ones included). */
  extraHeaders: string[];
  content: Buffer;
}

export type Framing =
  | { kind: 'plain' }
  | { kind: 'noClosing' }
  | { kind: 'wrongBoundary' }
  | { kind: 'noBoundaryParam' }
  | { kind: 'quotedBoundary' }
  | { kind: 'cut'; at: number }
  | { kind: 'noBlankLine' }
  | { kind: 'notMultipart'; type: string };

const BOUNDARY_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789\'()+_,-./:=?';

const boundaryArb = fc
  .array(fc.constantFrom(...BOUNDARY_CHARS.split('')), { minLength: 1, maxLength: 70 })
  .map((chars) => `${chars.join('').replace(/ $/, '')}x`);

const textArb = (maxLength: number) => fc.string({ maxLength, unit: 'grapheme' });

/** One CSV cell: mostly plain words and numbers (so rows get written), some hostile on purpose. */
const cellArb = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,10}$/) },
  { weight: 3, arbitrary: fc.integer({ min: -1000, max: 100_000 }).map(String) },
  { weight: 1, arbitrary: textArb(12) },
  { weight: 1, arbitrary: fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('"', '""', '"a', 'a"b', '"a""b"', '\r', '\n', '\r\n', 'x\ry', '=1+1', '@SUM(1)', '+1', '-1', '\u0000', '\uFEFF', 'true', '2026-01-02', '1e999', 'NaN') },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 9000 }).map((n) => 'w'.repeat(n)) },
);

/** Header names: the collection's own fields and others. */
const headerArb = fc.oneof(fc.constantFrom('title', 'pages', 'id', 'files', 'createdAt', 'Title', 'path', 'sha256', 'storage', ''), textArb(8));

function quoteCell(cell: string, quoting: boolean): string {
  return quoting && /[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/** Mostly a header the collection knows (so rows get read and written), sometimes anything. */
const headerRowArb = fc.oneof(
  { weight: 3, arbitrary: fc.shuffledSubarray(['title', 'pages'], { minLength: 1 }) },
  { weight: 2, arbitrary: fc.array(headerArb, { minLength: 0, maxLength: 5 }) },
);

/** CSV text: a header row and ragged data rows; cells quoted properly or not at all. */
export const csvArb: fc.Arbitrary<Buffer> = fc
  .record({
    headers: headerRowArb,
    rows: fc.array(fc.array(cellArb, { minLength: 0, maxLength: 3 }), { minLength: 0, maxLength: 12 }),
    quoting: fc.constantFrom(true, true, true, false),
    separator: fc.constantFrom(',', ',', ',', ';', '\t'),
    lineEnd: fc.constantFrom('\n', '\r\n', '\r'),
    bom: fc.constantFrom(false, false, true),
    tail: fc.constantFrom('', '', '', '\n', '"', '\u0000', '\uFFFF'),
    brokenUtf8: fc.constantFrom(false, false, false, true),
  })
  .map(({ headers, rows, quoting, separator, lineEnd, bom, tail, brokenUtf8 }) => {
    const lines = [headers, ...rows].map((row) => row.map((cell) => quoteCell(cell, quoting)).join(separator));
    const text = `${bom ? '\uFEFF' : ''}${lines.join(lineEnd)}${tail}`;
    const bytes = Buffer.from(text, 'utf8');
    return brokenUtf8 ? Buffer.concat([bytes, Buffer.from([0xc3, 0x28, 0xff, 0xfe])]) : bytes;
  });

/** XLSX-ish bytes from the given real workbooks: as they are, cut, with flipped bytes, or a zip signature before noise. */
export function xlsxArb(workbooks: readonly Buffer[]): fc.Arbitrary<Buffer> {
  const workbook = fc.constantFrom(...workbooks);
  return fc.oneof(
    workbook,
    fc.tuple(workbook, fc.double({ min: 0, max: 1, noNaN: true })).map(([bytes, at]) => bytes.subarray(0, Math.floor(bytes.length * at))),
    fc.tuple(workbook, fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 })).map(([bytes, flips]) => {
      const copy = Buffer.from(bytes);
      for (const [at, value] of flips) copy[Math.min(copy.length - 1, Math.floor(copy.length * at))] = value;
      return copy;
    }),
    fc.uint8Array({ maxLength: 600 }).map((noise) => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from(noise)])),
  );
}

/** Any file content: CSV-ish, XLSX-ish, random bytes, empty, or large. */
export function fileContentArb(workbooks: readonly Buffer[]): fc.Arbitrary<Buffer> {
  return fc.oneof(
    { weight: 4, arbitrary: csvArb },
    { weight: 3, arbitrary: xlsxArb(workbooks) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2000 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 256 * 1024 }).map((size) => Buffer.alloc(size, 0x61)) },
    { weight: 1, arbitrary: fc.constantFrom('<html><script>x</script></html>', '%PDF-1.4\n', 'GIF89a\u0001\u0000', '\u0089PNG\r\n\u001a\n').map((text) => Buffer.from(text, 'latin1')) },
  );
}

/** A form field's value for the import's options, sensible or not. */
const optionValueArb = fc.oneof(
  fc.constantFrom('csv', 'xlsx', 'all', 'skip-invalid', 'title', 'title,pages', 'nope', '', 'null', '{"Title":"title"}', '{"a":null}', '[1]', '{'),
  textArb(20),
  fc.integer({ min: 1, max: 8000 }).map((n) => 'v'.repeat(n)),
);

const partNameArb = fc.constantFrom('file', 'file', 'file', 'format', 'mode', 'filterKeys', 'mapping', 'title', 'files', 'x', '', 'file[]', 'FILE');

const filenameArb = fc.oneof(
  fc.constantFrom('a.csv', 'b.xlsx', 'c.txt', '../../etc/passwd', 'x\\y.csv', '.hidden', 'é.csv', 'a"b.csv', 'a;b.csv', '', 'photo.png', 'a\u202Egnp.exe'),
  textArb(30),
);

const contentTypeArb = fc.constantFrom(
  'text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/octet-stream', 'text/plain', 'image/png',
  'text/html', 'application/json', '', 'multipart/mixed; boundary=zz', 'text/csv; charset=utf-16', 'x/y\u0000',
);

/** Header lines a part may carry besides the usual ones (some malformed). */
const extraHeaderArb = fc.constantFrom('Content-Transfer-Encoding: base64', 'Content-Length: 3', 'X-Odd: yes', 'no colon here', ': empty name', 'Content-Disposition: form-data; name="other"');

export function partArb(workbooks: readonly Buffer[]): fc.Arbitrary<GeneratedPart> {
  return fc.oneof(
    // A file part.
    fc.record({
      name: partNameArb,
      filename: fc.option(filenameArb, { nil: undefined }),
      contentType: fc.option(contentTypeArb, { nil: undefined }),
      extraHeaders: fc.array(extraHeaderArb, { maxLength: 2 }),
      content: fileContentArb(workbooks),
    }),
    // A text field.
    fc.record({
      name: partNameArb,
      extraHeaders: fc.array(extraHeaderArb, { maxLength: 1 }),
      content: optionValueArb.map((text) => Buffer.from(text, 'utf8')),
    }),
  );
}

const framingArb: fc.Arbitrary<Framing> = fc.oneof(
  { weight: 16, arbitrary: fc.constant({ kind: 'plain' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'noClosing' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'wrongBoundary' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'noBoundaryParam' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'quotedBoundary' as const }) },
  { weight: 2, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((at) => ({ kind: 'cut' as const, at })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'noBlankLine' as const }) },
  { weight: 1, arbitrary: fc.constantFrom('application/json', 'text/csv', 'application/x-www-form-urlencoded', 'multipart/mixed').map((type) => ({ kind: 'notMultipart' as const, type })) },
);

const escapeQuoted = (value: string) => value.replaceAll('"', '%22').replaceAll('\r', '%0D').replaceAll('\n', '%0A');

/** The bytes of a multipart body and its Content-Type, with the framing asked for. */
export function encodeMultipart(parts: readonly GeneratedPart[], boundary: string, framing: Framing): { payload: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `Content-Disposition: form-data; name="${escapeQuoted(part.name)}"${part.filename === undefined ? '' : `; filename="${escapeQuoted(part.filename)}"`}`;
    const headers = [disposition, ...(part.contentType === undefined ? [] : [`Content-Type: ${part.contentType}`]), ...part.extraHeaders];
    chunks.push(Buffer.from(`--${boundary}${CRLF}${headers.join(CRLF)}${framing.kind === 'noBlankLine' ? CRLF : CRLF + CRLF}`, 'utf8'), part.content, Buffer.from(CRLF));
  }
  if (framing.kind !== 'noClosing') chunks.push(Buffer.from(`--${boundary}--${CRLF}`));
  let payload = Buffer.concat(chunks);
  if (framing.kind === 'cut') payload = payload.subarray(0, Math.floor(payload.length * framing.at));
  const contentType =
    framing.kind === 'notMultipart' ? framing.type
      : framing.kind === 'noBoundaryParam' ? 'multipart/form-data'
        : framing.kind === 'wrongBoundary' ? `multipart/form-data; boundary=${boundary}Z`
          : framing.kind === 'quotedBoundary' ? `multipart/form-data; boundary="${boundary}"`
            : `multipart/form-data; boundary=${boundary}`;
  return { payload, contentType };
}

/** A multipart request to one of `paths`, with an optional query string from `queries`. */
export function multipartRequestArb(paths: readonly string[], queries: readonly string[], workbooks: readonly Buffer[]): fc.Arbitrary<FuzzRequest> {
  // Half the bodies are shaped as a client would send them (option fields, then one `file`
  // part), so the readers past the framing get exercised; the rest are any parts in any order.
  const fileFirstShaped = fc
    .tuple(
      fc.array(fc.record({ name: fc.constantFrom('format', 'mode', 'filterKeys', 'mapping'), extraHeaders: fc.constant<string[]>([]), content: fc.constantFrom('csv', 'all', 'skip-invalid', 'title', '{"Title":"title"}').map((text) => Buffer.from(text, 'utf8')) }), { maxLength: 1 }),
      fc.record({
        name: fc.constant('file'),
        filename: fc.constantFrom('a.csv', 'b.xlsx', 'photo.png', 'c.txt'),
        contentType: fc.option(contentTypeArb, { nil: undefined }),
        extraHeaders: fc.constant<string[]>([]),
        content: fc.oneof({ weight: 3, arbitrary: csvArb }, { weight: 2, arbitrary: fc.constantFrom(...workbooks) }, { weight: 2, arbitrary: fileContentArb(workbooks) }),
      }),
    )
    .map(([fields, file]): GeneratedPart[] => [...fields, file]);
  return fc
    .record({
      path: fc.constantFrom(...paths),
      query: fc.constantFrom('', ...queries),
      parts: fc.oneof(fileFirstShaped, fc.array(partArb(workbooks), { minLength: 0, maxLength: 6 })),
      boundary: boundaryArb,
      framing: framingArb,
    })
    .map(({ path, query, parts, boundary, framing }) => {
      const { payload, contentType } = encodeMultipart(parts, boundary, framing);
      return { method: 'POST', path, query, body: payload, headers: { 'content-type': contentType } };
    });
}
