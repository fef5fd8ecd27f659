import { Readable, pipeline } from 'node:stream';
import { constants, brotliCompress, brotliCompressSync, createBrotliCompress, createGzip, gzip, gzipSync, type BrotliOptions, type ZlibOptions } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { encodedTag } from '../request/entity-tag.js';
import { chooseCoding, type ContentCoding } from './accept-encoding.js';
import { CompressedCache } from './compressed-cache.js';

/** Answers smaller than this are sent as they are: compressing them saves too little to pay for itself. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/** Answers up to this size are compressed on the event loop with fast settings; larger ones on libuv's thread pool with better ones. */
const SYNC_LIMIT_BYTES = 64 * 1024;

/** How many bytes (sources and their compressed forms) the cache of recent compressed answers holds, per process. */
export const COMPRESSED_CACHE_BYTES = 8 * 1024 * 1024;

/** Types worth compressing: JSON (and `+json`), text, JavaScript, XML, SVG. */
const COMPRESSIBLE = /^(?:text\/|application\/(?:[\w.-]+\+)?(?:json|xml|javascript)\b|image\/svg\+xml)/i;

/**
 * gzip and brotli for answers of COMPRESSION_THRESHOLD_BYTES and more, as the request's
 * Accept-Encoding prefers (docs/operations.md#compression). One onSend hook, written here on
 * zlib rather than taken from a plugin: a plugin's stream per answer cost more than the
 * compression itself (bench/history/2026-11-27-compression.md).
 *
 * - Up to SYNC_LIMIT_BYTES: compressed at once with fast settings (brotli quality 1, gzip
 *   level 1, the window fitted to the answer), which cost about a fifth of brotli's defaults.
 *   Larger answers go to the thread pool at brotli quality 4 and gzip level 6; streams (a
 *   whole-table list) through a compressing stream.
 * - A tagged answer's compressed bytes are kept (CompressedCache), so a page asked for again is
 *   not compressed again.
 * - Untouched: answers that already have a Content-Encoding (the studio's files, compressed at
 *   build time), errors (small, and read by the metrics and the log as text), 204/304, types that
 *   are not text, and event streams, which are written past Fastify (render-result.ts).
 * - Entity tags follow the bytes (RFC 9110 §8.8.3): a compressed answer's strong tag gets the
 *   coding appended (`"…-br"`), which If-None-Match and If-Match read back as the record's own
 *   tag (entity-tag.ts).
 */
export function registerCompression(app: FastifyInstance, enabled: boolean): void {
  if (!enabled) return;
  const cache = new CompressedCache(COMPRESSED_CACHE_BYTES);
  // Clients send one of a few Accept-Encoding values: each is parsed once (at most 64 kept).
  const codings = new Map<string, ContentCoding | undefined>();
  const codingOf = (header: string | string[] | undefined): ContentCoding | undefined => {
    if (typeof header !== 'string') return chooseCoding(header);
    if (codings.has(header)) return codings.get(header);
    const coding = chooseCoding(header);
    if (codings.size < 64) codings.set(header, coding);
    return coding;
  };
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 304) {
      retagNotModified(request, reply);
      return done(null, payload);
    }
    if (!compressible(reply, payload)) return done(null, payload);
    varyOnEncoding(reply);
    const coding = codingOf(request.headers['accept-encoding']);
    if (coding === undefined) return done(null, payload);
    if (payload instanceof Readable) {
      encode(reply, coding);
      const compressor = coding === 'br' ? createBrotliCompress(brotliOptions(1 << 24, 4)) : createGzip(GOOD_GZIP);
      // A failing source destroys the compressor with its error, which ends the answer.
      pipeline(payload, compressor, () => undefined);
      return done(null, compressor);
    }
    const source = typeof payload === 'string' ? Buffer.from(payload) : (payload as Buffer);
    const tag = reply.getHeader('etag');
    const key = typeof tag === 'string' && !tag.startsWith('W/') ? coding + tag : undefined;
    const cached = key === undefined ? undefined : cache.get(key, source);
    if (cached !== undefined) {
      encode(reply, coding);
      return done(null, cached);
    }
    if (source.length <= SYNC_LIMIT_BYTES) {
      const output = coding === 'br' ? brotliCompressSync(source, brotliOptions(source.length, 1)) : gzipSync(source, FAST_GZIP);
      if (key !== undefined) cache.set(key, source, output);
      encode(reply, coding);
      return done(null, output);
    }
    const finish = (error: Error | null, output: Buffer): void => {
      if (error !== null) return done(error);
      if (key !== undefined) cache.set(key, source, output);
      encode(reply, coding);
      done(null, output);
    };
    if (coding === 'br') brotliCompress(source, brotliOptions(source.length, 4), finish);
    else gzip(source, GOOD_GZIP, finish);
  });
}

const FAST_GZIP: ZlibOptions = { level: 1 };
const GOOD_GZIP: ZlibOptions = { level: 6 };

/** Brotli for text at a quality, its window no larger than the answer needs (the default 4 MB window costs a large set-up per answer). */
function brotliOptions(size: number, quality: number): BrotliOptions {
  const window = Math.min(constants.BROTLI_MAX_WINDOW_BITS, Math.max(constants.BROTLI_MIN_WINDOW_BITS, Math.ceil(Math.log2(size + 1))));
  return {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_LGWIN]: window,
      [constants.BROTLI_PARAM_SIZE_HINT]: size,
    },
  };
}

/** A successful answer of a text type, not encoded yet, of the threshold or more (a stream's size is not known: it is compressed). */
function compressible(reply: FastifyReply, payload: unknown): boolean {
  if (reply.statusCode >= 300 || reply.statusCode === 204 || reply.getHeader('content-encoding') !== undefined) return false;
  // A file download (Accept-Ranges): its bytes, ranges and sha256 tag are of the stored object as it is.
  if (reply.getHeader('accept-ranges') !== undefined) return false;
  const type = reply.getHeader('content-type');
  if (typeof type !== 'string' || !COMPRESSIBLE.test(type)) return false;
  if (typeof payload === 'string') return payload.length >= COMPRESSION_THRESHOLD_BYTES || Buffer.byteLength(payload) >= COMPRESSION_THRESHOLD_BYTES;
  if (Buffer.isBuffer(payload)) return payload.length >= COMPRESSION_THRESHOLD_BYTES;
  return payload instanceof Readable;
}

/** The answer depends on Accept-Encoding from here on, whether or not this request asked. */
function varyOnEncoding(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  if (vary === undefined) reply.header('vary', 'Accept-Encoding');
  else if (!/accept-encoding/i.test(String(vary))) reply.header('vary', `${String(vary)}, Accept-Encoding`);
}

/** Headers of an encoded answer: its coding, no length (Node sets it from the new bytes or chunks), and a tag of its own. */
function encode(reply: FastifyReply, coding: ContentCoding): void {
  reply.header('content-encoding', coding);
  reply.removeHeader('content-length');
  const tag = reply.getHeader('etag');
  if (typeof tag === 'string' && !tag.startsWith('W/')) reply.header('etag', encodedTag(tag, coding));
}

/** A 304 names the tag the client holds: the encoded one when that is what its If-None-Match sent. */
function retagNotModified(request: FastifyRequest, reply: FastifyReply): void {
  const tag = reply.getHeader('etag');
  const condition = request.headers['if-none-match'];
  if (typeof tag !== 'string' || tag.startsWith('W/') || typeof condition !== 'string') return;
  for (const coding of ['br', 'gzip'] as const) {
    const encoded = encodedTag(tag, coding);
    if (condition.includes(encoded)) return void reply.header('etag', encoded);
  }
}
