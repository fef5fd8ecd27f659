import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactRange, servedStart } from '../../src/files/range-guard.js';
import { readAll } from '../support/storage-contract.js';

/** A body as a server might send it, in chunks of `size` bytes. */
function chunked(bytes: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks);
}

describe('exactRange (a server that answers more than the range asked)', () => {
  it('passes an exact answer through untouched', () => {
    const body = Readable.from([Buffer.from('345')]);
    expect(exactRange(body, { start: 3, end: 5 }, { start: 3, length: 3 })).toBe(body);
  });

  it('cuts the range out of a whole object (200 instead of 206) or of a longer answer, chunk sizes aside (property)', async () => {
    const cases = fc.uint8Array({ minLength: 1, maxLength: 3000 }).chain((array) =>
      fc.tuple(fc.constant(Buffer.from(array)), fc.nat({ max: array.length - 1 }), fc.nat({ max: array.length - 1 }), fc.nat({ max: array.length - 1 }), fc.integer({ min: 1, max: 700 })),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ([bytes, a, b, c, chunk]) => {
        const [servedFrom, start, end] = [a, b, c].sort((x, y) => x - y) as [number, number, number];
        const body = chunked(bytes.subarray(servedFrom), chunk);
        const cut = await readAll(exactRange(body, { start, end }, { start: servedFrom, length: bytes.length - servedFrom }));
        expect(cut.equals(bytes.subarray(start, end + 1))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('fails a read whose answer starts after the range', async () => {
    const stream = exactRange(Readable.from([Buffer.from('x')]), { start: 2, end: 4 }, { start: 3, length: 2 });
    await expect(readAll(stream)).rejects.toThrow('the server answered bytes from 3, after the 2 asked for');
  });

  it('reads where an answer starts from its Content-Range', () => {
    expect(servedStart('bytes 100-199/1000')).toBe(100);
    expect(servedStart('bytes 0-0/*')).toBe(0);
    expect(servedStart(undefined)).toBe(0);
  });
});
