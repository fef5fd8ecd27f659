import * as zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32, crc32Fallback } from '../../src/request/crc32.js';

/** Entity tags must be the same on every node: the JavaScript CRC-32 (Node.js before 20.15) equals zlib's. */
describe('crc32', () => {
  it('the fallback agrees with zlib on empty, short, long and random inputs', () => {
    const inputs = [Buffer.alloc(0), Buffer.from('123456789'), Buffer.from('{"data":{"id":1}}'), Buffer.alloc(70_000, 0xab)];
    for (let i = 0; i < 50; i++) inputs.push(Buffer.from(Array.from({ length: i * 37 }, (_, j) => (j * 7919 + i * 104729) & 0xff)));
    expect(crc32Fallback(Buffer.from('123456789'))).toBe(0xcbf43926);
    for (const input of inputs) {
      expect(crc32Fallback(input)).toBe(zlib.crc32(input));
      expect(crc32(input)).toBe(zlib.crc32(input));
    }
  });
});
