import * as zlib from 'node:zlib';

/** The CRC-32 table of the IEEE polynomial (reflected 0xEDB88320), for the fallback below. */
const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The same CRC-32 as zlib's, in JavaScript: the same tags on a node whose Node.js predates zlib.crc32. */
export function crc32Fallback(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < data.length; i++) crc = TABLE[(crc ^ data[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * CRC-32 of the bytes: zlib's (Node.js 20.15 and later, native and fast) or the same sum in
 * JavaScript on the older Node.js 20 releases `engines` still allows (20.11 to 20.14).
 */
export const crc32: (data: Uint8Array) => number = typeof (zlib as { crc32?: unknown }).crc32 === 'function' ? (data) => zlib.crc32(data) : crc32Fallback;
