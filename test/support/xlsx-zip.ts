import { constants, crc32, deflateRawSync } from 'node:zlib';

/**
 * Hand-made XLSX files for the import's bounds (issue 37, findings 4 and 12): a zip of the few
 * parts a reader needs, whose parts may be far larger inflated than here. A part is a list of
 * pieces, each deflated alone and ended with a sync flush (so deflate streams can be joined);
 * a `repeat` piece is deflated once and its bytes repeated, so a 200 MB cell costs one MiB of
 * work here and a few hundred KB of file.
 */
export type Piece = string | Buffer | { readonly repeat: Buffer; readonly times: number };

export interface ZipPart {
  readonly name: string;
  readonly pieces: readonly Piece[];
  /** The uncompressed size the directory states (default: the true one). */
  readonly declared?: number;
}

interface Deflated {
  readonly data: Buffer;
  readonly crc: number;
  readonly size: number;
}

function deflatePart(pieces: readonly Piece[]): Deflated {
  const out: Buffer[] = [];
  let crc = 0;
  let size = 0;
  for (const piece of pieces) {
    const bytes = typeof piece === 'string' ? Buffer.from(piece) : Buffer.isBuffer(piece) ? piece : piece.repeat;
    const times = typeof piece === 'string' || Buffer.isBuffer(piece) ? 1 : piece.times;
    const block = deflateRawSync(bytes, { finishFlush: constants.Z_SYNC_FLUSH });
    for (let n = 0; n < times; n++) {
      out.push(block);
      crc = crc32(bytes, crc);
      size += bytes.length;
    }
  }
  // A last, empty fixed-Huffman block with BFINAL set ends the stream.
  out.push(Buffer.from([0x03, 0x00]));
  return { data: Buffer.concat(out), crc: crc >>> 0, size };
}

/** A zip (deflated entries, no zip64) of these parts. */
export function zipOf(parts: readonly ZipPart[]): Buffer {
  const files: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const { data, crc, size } = deflatePart(part.pieces);
    const declared = part.declared ?? size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    files.push(local, name, data);
    directory.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const central = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...files, central, end]);
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

export interface WorkbookSpec {
  /** The pieces of `<sheetData>`'s content (rows). */
  readonly rows: readonly Piece[];
  /** The pieces of `<sst>`'s content (`<si>` items), when the file has shared strings. */
  readonly strings?: readonly Piece[];
  /** The pieces of `<styleSheet>`'s content, when the file has styles. */
  readonly styles?: readonly Piece[];
  /** Sizes the directory states, by part (`sheet`, `strings`, `styles`). */
  readonly declared?: { readonly sheet?: number; readonly strings?: number; readonly styles?: number };
}

/** An XLSX file: workbook, relationships, the first worksheet and, when given, shared strings and styles. */
export function workbookXlsx(spec: WorkbookSpec): Buffer {
  const rels = [
    `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>`,
    spec.strings === undefined ? '' : `<Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>`,
    spec.styles === undefined ? '' : `<Relationship Id="rId3" Type="${REL}/styles" Target="styles.xml"/>`,
  ].join('');
  const part = (name: string, pieces: readonly Piece[], declared: number | undefined): ZipPart => (declared === undefined ? { name, pieces } : { name, pieces, declared });
  return zipOf([
    { name: '[Content_Types].xml', pieces: ['<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>'] },
    { name: 'xl/workbook.xml', pieces: [`<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="rows" sheetId="1" r:id="rId1"/></sheets></workbook>`] },
    { name: 'xl/_rels/workbook.xml.rels', pieces: [`<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`] },
    ...(spec.strings === undefined ? [] : [part('xl/sharedStrings.xml', [`<?xml version="1.0"?><sst xmlns="${MAIN}">`, ...spec.strings, '</sst>'], spec.declared?.strings)]),
    ...(spec.styles === undefined ? [] : [part('xl/styles.xml', [`<?xml version="1.0"?><styleSheet xmlns="${MAIN}">`, ...spec.styles, '</styleSheet>'], spec.declared?.styles)]),
    part('xl/worksheets/sheet1.xml', [`<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData>`, ...spec.rows, '</sheetData></worksheet>'], spec.declared?.sheet),
  ]);
}

/** An inline-string cell (`ref` undefined: a cell without `r`). */
export function inlineCell(text: string, ref?: string): string {
  return `<c${ref === undefined ? '' : ` r="${ref}"`} t="inlineStr"><is><t>${text}</t></is></c>`;
}
