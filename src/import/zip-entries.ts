import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInflateRaw } from 'node:zlib';
import { ApiError } from '../errors/api-error.js';

/** One file of a zip, as its central directory describes it. */
export interface ZipEntry {
  readonly name: string;
  /** 0 stored, 8 deflated (the only two an XLSX uses). */
  readonly method: number;
  readonly compressedSize: number;
  /** The uncompressed size the directory declares; inflating past it is a broken file. */
  readonly size: number;
  readonly localOffset: number;
}

/** Entries a zip may list, and bytes its central directory may take (an XLSX has a few dozen entries). */
const MAX_ENTRIES = 10_000;
const MAX_DIRECTORY_BYTES = 4 * 1024 * 1024;
/** The end-of-directory record and its longest comment. */
const EOCD_BYTES = 22;
const MAX_COMMENT = 0xffff;
/**
 * Inflated bytes per compressed byte past which an entry is a zip bomb (413): deflate reaches
 * about 1032:1 on a run of one byte; a worksheet's XML stays under 100:1. Checked once an entry
 * has inflated RATIO_FLOOR bytes, so that small entries (a tiny styles.xml) never trip it.
 */
export const MAX_RATIO = 200;
export const RATIO_FLOOR = 1024 * 1024;
/** Bytes read from the file (and handed to inflate) at a time. */
const READ_CHUNK = 64 * 1024;

export const zipError = (message: string): ApiError => new ApiError('IMPORT_FILE_INVALID', `the XLSX file cannot be read: ${message}`);

export function contentTooLarge(message: string, limit: number, setting?: string): ApiError {
  return new ApiError('IMPORT_CONTENT_TOO_LARGE', message, { details: setting === undefined ? { limit } : { limit, setting } });
}

/** What an import may inflate in all (CORRAL_IMPORT_MAX_UNCOMPRESSED_BYTES), counted over every entry read. */
export class InflateBudget {
  private used = 0;

  constructor(readonly maxBytes: number) {}

  take(bytes: number): void {
    this.used += bytes;
    if (this.used > this.maxBytes) {
      throw contentTooLarge(`the XLSX file inflates to more than ${this.maxBytes} bytes (CORRAL_IMPORT_MAX_UNCOMPRESSED_BYTES)`, this.maxBytes, 'CORRAL_IMPORT_MAX_UNCOMPRESSED_BYTES');
    }
  }
}

async function readAt(path: string, position: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The entries of a zip file, read from its central directory (never from the local headers,
 * which a streamed zip leaves without sizes). Zip64, encrypted and multi-disk archives are
 * refused: an XLSX within CORRAL_IMPORT_MAX_BYTES needs none of them.
 */
export async function zipEntries(path: string, fileSize: number): Promise<Map<string, ZipEntry>> {
  if (fileSize < EOCD_BYTES) throw zipError('it is too short to be a zip');
  const tailLength = Math.min(fileSize, EOCD_BYTES + MAX_COMMENT);
  const tail = await readAt(path, fileSize - tailLength, tailLength);
  let end = -1;
  for (let at = tail.length - EOCD_BYTES; at >= 0; at--) {
    if (tail.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) throw zipError('it has no zip central directory');
  const count = tail.readUInt16LE(end + 10);
  const directorySize = tail.readUInt32LE(end + 12);
  const directoryOffset = tail.readUInt32LE(end + 16);
  if (tail.readUInt16LE(end + 4) !== 0 || count === 0xffff || directoryOffset === 0xffffffff) throw zipError('zip64 and multi-disk archives are not read');
  if (count > MAX_ENTRIES || directorySize > MAX_DIRECTORY_BYTES) throw zipError(`it lists more than ${MAX_ENTRIES} entries`);
  if (directoryOffset + directorySize > fileSize) throw zipError('its central directory lies outside the file');
  const directory = await readAt(path, directoryOffset, directorySize);
  const entries = new Map<string, ZipEntry>();
  let at = 0;
  for (let index = 0; index < count; index++) {
    if (at + 46 > directory.length || directory.readUInt32LE(at) !== 0x02014b50) throw zipError('its central directory is broken');
    const flags = directory.readUInt16LE(at + 8);
    const nameLength = directory.readUInt16LE(at + 28);
    const skip = directory.readUInt16LE(at + 30) + directory.readUInt16LE(at + 32);
    if (at + 46 + nameLength > directory.length) throw zipError('its central directory is broken');
    const entry: ZipEntry = {
      name: directory.toString('utf8', at + 46, at + 46 + nameLength),
      method: directory.readUInt16LE(at + 10),
      compressedSize: directory.readUInt32LE(at + 20),
      size: directory.readUInt32LE(at + 24),
      localOffset: directory.readUInt32LE(at + 42),
    };
    if ((flags & 1) !== 0) throw zipError('it is encrypted');
    if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff || entry.localOffset === 0xffffffff) throw zipError('zip64 entries are not read');
    entries.set(entry.name, entry);
    at += 46 + nameLength + skip;
  }
  return entries;
}

/**
 * The inflated bytes of one entry, streamed: a chunk at a time through node:zlib, each counted
 * against `budget` and against the entry's declared size and MAX_RATIO, so no entry can make
 * the reader hold or produce more than the bounds allow, whatever the zip claims.
 */
export async function* entryBytes(path: string, fileSize: number, entry: ZipEntry, budget: InflateBudget): AsyncGenerator<Buffer> {
  if (entry.method !== 0 && entry.method !== 8) throw zipError(`${entry.name.slice(0, 100)} uses compression method ${entry.method} (only stored and deflated entries are read)`);
  const local = await readAt(path, entry.localOffset, 30);
  if (local.length < 30 || local.readUInt32LE(0) !== 0x04034b50) throw zipError(`the local header of ${entry.name.slice(0, 100)} is broken`);
  const start = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  if (start + entry.compressedSize > fileSize) throw zipError(`${entry.name.slice(0, 100)} lies outside the file`);
  const tooInflated = (): ApiError => contentTooLarge(`${entry.name.slice(0, 100)} inflates more than ${MAX_RATIO} times its compressed size (a zip bomb)`, MAX_RATIO);
  if (entry.size > RATIO_FLOOR && entry.size > entry.compressedSize * MAX_RATIO) throw tooInflated();
  if (entry.compressedSize === 0) return;
  const raw = createReadStream(path, { start, end: start + entry.compressedSize - 1, highWaterMark: READ_CHUNK });
  const stream = entry.method === 8 ? raw.pipe(createInflateRaw({ chunkSize: READ_CHUNK })) : raw;
  if (stream !== raw) raw.on('error', (error) => stream.destroy(error));
  let produced = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      produced += chunk.length;
      if (produced > entry.size) throw zipError(`${entry.name.slice(0, 100)} inflates past the size its directory declares`);
      if (produced > RATIO_FLOOR && produced > entry.compressedSize * MAX_RATIO) throw tooInflated();
      budget.take(chunk.length);
      yield chunk;
    }
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw zipError(`${entry.name.slice(0, 100)} does not inflate: its compressed data is broken`);
  } finally {
    raw.destroy();
    stream.destroy();
  }
  if (produced !== entry.size) throw zipError(`${entry.name.slice(0, 100)} is shorter than its directory declares`);
}
