/** An inclusive byte range inside the object (the storage's ByteRange has this shape). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** What a `Range` header asks of an object of `size` bytes. */
export type RangeRequest =
  /** No header, another unit, a list of ranges or a malformed one: the whole object (RFC 9110 §14.2 lets a server ignore Range). */
  | { kind: 'whole' }
  | { kind: 'range'; range: ByteRange }
  /** A range wholly past the end: 416. */
  | { kind: 'unsatisfiable' };

const SINGLE = /^bytes=(\d*)-(\d*)$/;

/**
 * Reads a `Range` header for one range (`bytes=0-99`, `bytes=100-`, `bytes=-100`). Several
 * ranges are answered whole (200) rather than as multipart/byteranges.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'whole' };
  const match = SINGLE.exec(header.replace(/\s+/g, ''));
  if (match === null) return { kind: 'whole' };
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    // A suffix: the last `last` bytes.
    const length = Number(last);
    if (length === 0) return { kind: 'unsatisfiable' };
    if (size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', range: { start: Math.max(0, size - length), end: size - 1 } };
  }
  const start = Number(first);
  if (!Number.isSafeInteger(start)) return { kind: 'whole' };
  const end = last === '' ? Number.MAX_SAFE_INTEGER : Number(last);
  if (!Number.isSafeInteger(end) || end < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', range: { start, end: Math.min(end, size - 1) } };
}
