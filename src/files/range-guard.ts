import { Readable, Transform } from 'node:stream';
import type { ByteRange } from './file-storage.js';

/**
 * The bytes of `range` out of a body the server answered for it. HTTP lets a server ignore
 * `Range` (a 200 with the whole object), and some S3-compatible servers answer a range wrongly
 * (s3rver sends everything for `bytes=0-0`); `served` is where the body starts (from its
 * Content-Range, 0 for a whole object). A body that is exactly the range passes through as is.
 */
export function exactRange(body: Readable, range: ByteRange, served: { start: number; length: number | undefined }): Readable {
  const wanted = range.end - range.start + 1;
  if (served.start === range.start && served.length === wanted) return body;
  let skip = range.start - served.start;
  let left = wanted;
  const cut = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      // Chunks already on their way after the range was complete are dropped.
      if (left === 0) return done();
      let bytes = chunk;
      if (skip > 0) {
        const dropped = Math.min(skip, bytes.length);
        skip -= dropped;
        bytes = bytes.subarray(dropped);
      }
      if (left > 0 && bytes.length > 0) {
        const kept = bytes.subarray(0, left);
        left -= kept.length;
        this.push(kept);
      }
      if (left === 0) {
        this.push(null);
        body.destroy();
      }
      done();
    },
  });
  if (skip < 0) {
    cut.destroy(new Error(`the server answered bytes from ${served.start}, after the ${range.start} asked for`));
    body.destroy();
    return cut;
  }
  body.on('error', (error) => cut.destroy(error));
  return body.pipe(cut);
}

/** Where a `Content-Range: bytes a-b/size` answer starts; 0 without one (the whole object). */
export function servedStart(contentRange: string | undefined): number {
  const match = /^bytes (\d+)-\d+\/(?:\d+|\*)$/.exec(contentRange ?? '');
  return match === null ? 0 : Number(match[1]);
}
