import { crc32 } from './crc32.js';
import { ApiError } from '../errors/api-error.js';

/**
 * Entity tags of JSON answers (docs/api.md, "Conditional requests"): a strong tag of the exact
 * identity-encoded body bytes, `"<crc>-<crc of the first half>-<length>"` (two CRC-32s, 64
 * checksum bits, and the byte length, in hex). Not a cryptographic hash: zlib's CRC-32 costs
 * about 0.4 instructions a byte where SHA-1 cost 11 (a list page's tag was +15% of the
 * request; docs/performance.md). The same body gives the same tag on every node and
 * dialect; the body depends on the caller's grants, so the tag does too (it is computed from
 * what the caller was shown, never from hidden values).
 */
export function entityTag(body: Buffer): string {
  const half = body.subarray(0, body.length >>> 1);
  return `"${crc32(body).toString(16).padStart(8, '0')}-${crc32(half).toString(16).padStart(8, '0')}-${body.length.toString(16)}"`;
}

/** The serialized `{data}` envelope of one record: the bytes `GET /api/<c>/<key>` sends, and what its tag is computed from. */
export function recordBody(item: object): Buffer {
  return Buffer.from(JSON.stringify({ data: item }));
}

/** A parsed If-Match / If-None-Match header: `*`, or the list of entity tags (weak ones keep their `W/`). */
export type TagCondition = '*' | readonly string[];

const TAG = /\s*((?:W\/)?"[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/y;

/**
 * Parses `*` or a comma-separated list of entity tags (RFC 9110 §13.1.1-2). Undefined when the
 * header is absent; a malformed one is 400 REQUEST_INVALID naming the header.
 */
export function parseTagCondition(name: string, value: unknown): TagCondition | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ApiError('REQUEST_INVALID', `${name} is sent once`);
  const text = value.trim();
  if (text === '*') return '*';
  const tags: string[] = [];
  TAG.lastIndex = 0;
  while (TAG.lastIndex < text.length) {
    const start = TAG.lastIndex;
    const match = TAG.exec(text);
    if (match === null || TAG.lastIndex === start) throw new ApiError('REQUEST_INVALID', `${name} must be * or a list of entity tags ("…" or W/"…")`);
    tags.push(match[1]!);
  }
  if (tags.length === 0) throw new ApiError('REQUEST_INVALID', `${name} must be * or a list of entity tags ("…" or W/"…")`);
  return tags;
}

/**
 * The tag of the same body sent with a content coding (compression.ts): strong tags must differ
 * between encodings of one representation (RFC 9110 §8.8.3), so the encoding is appended.
 */
export function encodedTag(tag: string, encoding: 'br' | 'gzip'): string {
  return `${tag.slice(0, -1)}-${encoding}"`;
}

/** A tag as computed here, without the encoding encodedTag appended (a length in hex never ends in `-br` or `-gzip`). */
function identityTag(given: string): string {
  if (given.endsWith('-br"')) return `${given.slice(0, -4)}"`;
  if (given.endsWith('-gzip"')) return `${given.slice(0, -6)}"`;
  return given;
}

/** If-None-Match: weak comparison (the `W/` prefix is ignored on both sides), any encoding of the body. */
export function noneMatch(condition: TagCondition, tag: string): boolean {
  if (condition === '*') return false;
  const opaque = tag.startsWith('W/') ? tag.slice(2) : tag;
  return !condition.some((given) => identityTag(given.startsWith('W/') ? given.slice(2) : given) === opaque);
}

/**
 * If-Match: strong comparison (a weak tag never matches); `*` matches any current record. A
 * client that read the record compressed holds its encoded tag: the same record, so it matches.
 */
export function matches(condition: TagCondition, tag: string): boolean {
  if (condition === '*') return true;
  return condition.some((given) => !given.startsWith('W/') && identityTag(given) === tag);
}
