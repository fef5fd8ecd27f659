import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { multipartBody } from '../support/multipart-body.js';
import { useDialectApp, type DialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';
import { inlineCell, workbookXlsx, type Piece } from '../support/xlsx-zip.js';

/**
 * Bounded spreadsheets (issue 37, findings 4 and 12): whatever an XLSX file inflates to, an
 * import reads it a chunk at a time and refuses it (413 IMPORT_CONTENT_TOO_LARGE, nothing
 * written) as soon as a cell, shared string, row or the whole passes its bound; a cell without
 * `r` takes the next column; a broken file is 400 without a library's message. The files are
 * made here (test/support/xlsx-zip.ts): the 200 MB cell is a few hundred KB of zip.
 */
const MIB = 1024 * 1024;
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
/** The test app's CORRAL_IMPORT_MAX_UNCOMPRESSED_BYTES: small, so that passing it costs little. */
const BUDGET = 2 * MIB;

/** Text that deflates hardly at all (base64 of random bytes): keeps a part's ratio under the zip-bomb bound. */
const noise = (length: number): Buffer => Buffer.from(randomBytes(Math.ceil((length * 3) / 4)).toString('base64').slice(0, length));

const HEADER = `<row r="1">${inlineCell('label', 'A1')}${inlineCell('n', 'B1')}</row>`;
const run = (byte: string, times: number): Piece => ({ repeat: Buffer.alloc(MIB, byte), times });
/** Row 2 whose cell A2 is an inline string of these pieces. */
const bigCell = (...pieces: Piece[]): Piece[] => [HEADER, '<row r="2"><c r="A2" t="inlineStr"><is><t>', ...pieces, '</t></is></c></row>'];
const strings200 = ['<si><t>', run('b', 200), '</t></si>'];
const firstString = [HEADER, '<row r="2"><c r="A2" t="s"><v>0</v></c></row>'];

interface Refusal {
  readonly name: string;
  readonly file: () => Buffer;
  readonly status: number;
  readonly code: string;
  readonly message: RegExp;
  /** Most bytes the file may have: the bombs are small. */
  readonly maxBytes?: number;
  readonly details?: Record<string, unknown>;
}

const REFUSALS: Refusal[] = [
  {
    name: 'a 200 MB inline-string cell (finding 4)',
    file: () => workbookXlsx({ rows: bigCell(run('a', 200)) }),
    status: 413, code: 'IMPORT_CONTENT_TOO_LARGE', message: /inflates more than 200 times its compressed size/, maxBytes: 400 * 1024,
  },
  {
    name: 'a 200 MB cell whose directory claims 8 MiB: refused by the cell bound while streaming',
    file: () => workbookXlsx({ rows: bigCell(run('a', 200)), declared: { sheet: 8 * MIB } }),
    status: 413, code: 'IMPORT_CONTENT_TOO_LARGE', message: /cell A2 holds more than 1048576 characters/, maxBytes: 400 * 1024, details: { limit: MIB },
  },
  {
    name: 'a 200 MB shared string',
    file: () => workbookXlsx({ rows: firstString, strings: strings200 }),
    status: 413, code: 'IMPORT_CONTENT_TOO_LARGE', message: /sharedStrings\.xml inflates more than 200 times/, maxBytes: 400 * 1024,
  },
  {
    name: 'a 200 MB shared string whose directory claims 8 MiB',
    file: () => workbookXlsx({ rows: firstString, strings: strings200, declared: { strings: 8 * MIB } }),
    status: 413, code: 'IMPORT_CONTENT_TOO_LARGE', message: /shared string 1 holds more than 1048576 characters/, maxBytes: 400 * 1024,
  },
  {
    name: 'a cell of 1 MiB and a bit that is no zip bomb',
    file: () => workbookXlsx({ rows: bigCell(run('a', 1), noise(16 * 1024)) }),
    status: 413, code: 'IMPORT_CONTENT_TOO_LARGE', message: /cell A2 holds more than 1048576 characters/,
  },
  {
    name: 'a row of 16,385 cells without r',
    file: () => workbookXlsx({ rows: [HEADER, `<row r="2">${inlineCell('x').repeat(16_385)}</row>`] }),
    status: 413, code: 'IMPORT_CONTENT_TOO_LARGE', message: /row 2 has more than 16384 columns/, details: { limit: 16_384 },
  },
  {
    name: 'a cell in column XFE (16,385)',
    file: () => workbookXlsx({ rows: [HEADER, `<row r="2">${inlineCell('x', 'XFE2')}</row>`] }),
    status: 413, code: 'IMPORT_CONTENT_TOO_LARGE', message: /row 2 has more than 16384 columns/,
  },
  {
    name: 'a zip bomb in a part the import only skims (styles: 100 MB of spaces)',
    file: () => workbookXlsx({ rows: [HEADER], styles: ['<numFmts>', run(' ', 100), '</numFmts>'] }),
    status: 413, code: 'IMPORT_CONTENT_TOO_LARGE', message: /styles\.xml inflates more than 200 times/, maxBytes: 200 * 1024,
  },
  {
    name: 'parts inflating past CORRAL_IMPORT_MAX_UNCOMPRESSED_BYTES',
    file: () => workbookXlsx({ rows: [HEADER], styles: ['<numFmts>', run(' ', 3), noise(64 * 1024), '</numFmts>'] }),
    status: 413, code: 'IMPORT_CONTENT_TOO_LARGE', message: /inflates to more than 2097152 bytes \(CORRAL_IMPORT_MAX_UNCOMPRESSED_BYTES\)/,
    details: { limit: BUDGET, setting: 'CORRAL_IMPORT_MAX_UNCOMPRESSED_BYTES' },
  },
  {
    name: 'a worksheet whose deflate data is broken: 400, no library message',
    file: () => {
      const file = Buffer.from(workbookXlsx({ rows: [HEADER, `<row r="2">${inlineCell('fine')}</row>`] }));
      // The first byte of the sheet's deflate data (after its local header's name): block type 3, which does not exist.
      const name = Buffer.from('xl/worksheets/sheet1.xml');
      file[file.indexOf(name) + name.length] = 0xff;
      return file;
    },
    status: 400, code: 'IMPORT_FILE_INVALID', message: /^the XLSX file cannot be read: xl\/worksheets\/sheet1\.xml does not inflate: its compressed data is broken$/,
  },
];

async function importFile(ctx: DialectApp, content: Buffer, collection = 'sheets'): Promise<{ status: number; body: any; text: string }> {
  const { payload, contentType } = multipartBody([{ name: 'file', filename: 'rows.xlsx', type: XLSX_TYPE, content }]);
  const reply = await ctx.built.app.inject({ method: 'POST', url: `/api/${collection}:import`, payload, headers: { ...(await ctx.api.authHeaders()), 'content-type': contentType } });
  let body: unknown;
  try {
    body = JSON.parse(reply.body);
  } catch {
    body = undefined;
  }
  return { status: reply.statusCode, body, text: reply.body };
}

/** The files, made once for every dialect. */
const files = new Map<string, Buffer>();
const fileOf = (refusal: Refusal): Buffer => {
  let file = files.get(refusal.name);
  if (file === undefined) files.set(refusal.name, (file = refusal.file()));
  return file;
};

for (const dialect of DIALECTS) {
  describe(`import bounds on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, { importMaxUncompressedBytes: BUDGET });

    beforeAll(async () => {
      for (const name of ['sheets', 'loose']) await ctx.api.collection({ name, fields: [{ name: 'label', type: 'text' }, { name: 'n', type: 'integer' }] });
    });

    it.each(REFUSALS)('$name: $status $code, nothing written', async (refusal) => {
      const file = fileOf(refusal);
      if (refusal.maxBytes !== undefined) expect(file.length).toBeLessThan(refusal.maxBytes);
      const reply = await importFile(ctx, file);
      expect(reply.status, reply.text.slice(0, 300)).toBe(refusal.status);
      expect(reply.body.errors[0].code).toBe(refusal.code);
      expect(reply.body.errors[0].message).toMatch(refusal.message);
      if (refusal.details !== undefined) expect(reply.body.errors[0].details).toMatchObject(refusal.details);
      const list = await ctx.api.get('/api/sheets:list?paginate=false');
      expect(list.body.data).toEqual([]);
    });

    it('a cell without r is the next column; a row without r the next row (finding 12)', async () => {
      const rows = [
        `<row>${inlineCell('label')}${inlineCell('n')}</row>`,
        `<row>${inlineCell('first')}<c><v>7</v></c></row>`,
        `<row r="4"><c r="B4"><v>9</v></c>${inlineCell('beyond the header')}</row>`,
        `<row>${inlineCell('fifth', 'A5')}<c><v>11</v></c></row>`,
      ];
      const reply = await importFile(ctx, workbookXlsx({ rows }), 'loose');
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toMatchObject({ total: 3, created: 3, errors: [] });
      const list = await ctx.api.get('/api/loose:list?paginate=false&sort=id&fields=label,n');
      expect(list.body.data).toEqual([{ label: 'first', n: 7 }, { label: null, n: 9 }, { label: 'fifth', n: 11 }]);
    });
  });
}
