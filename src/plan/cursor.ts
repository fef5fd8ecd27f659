import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import type { JsonValue } from '../schema/types.js';
import type { SortTerm } from './bind-sort.js';

/** Longest `cursor` parameter accepted (a cursor holds one value per sort term). */
export const MAX_CURSOR_TEXT = 8 * 1024;

/** What a cursor is bound to: the resource, the bound order and the raw filter and keys. */
export interface CursorQuery {
  /** The collection, or the association of one source item, the list reads. */
  collection: string;
  order: readonly SortTerm[];
  filter: unknown;
  keys: unknown;
  search?: string;
}

/** A digest of the query a cursor belongs to; a cursor from any other query fails its MAC. */
export function queryDigest(query: CursorQuery): string {
  const order = query.order.map((term) => `${(term.path ?? []).map((relation) => `${relation.name}.`).join('')}${term.field.name}${term.desc ? '-' : '+'}`);
  const text = JSON.stringify([query.collection, order, query.filter ?? null, query.keys ?? null, query.search ?? null]);
  return createHash('sha256').update(text).digest('base64url');
}

/** AES-256-GCM: the cursor is encrypted (its values hidden) and authenticated (tied to the query). */
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const keys = new WeakMap<Buffer, Buffer>();

/** The cipher key of a secret (any length, configured or generated): HKDF-SHA256, made once. */
function keyOf(secret: Buffer): Buffer {
  let key = keys.get(secret);
  if (key === undefined) {
    key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'corral cursor', 32));
    keys.set(secret, key);
  }
  return key;
}

/**
 * An opaque cursor: the last row's sort values (wire form), encrypted with the query's digest
 * as associated data. Nothing of the row can be read from it, so a field grant that hides the
 * key or a sort field hides it from the cursor too, and a cursor from another query fails.
 */
export function encodeCursor(secret: Buffer, digest: string, values: readonly JsonValue[]): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, keyOf(secret), iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(digest));
  const sealed = Buffer.concat([iv, cipher.update(JSON.stringify(values), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return sealed.toString('base64url');
}

const invalid = (why: string) => new ApiError('PARAM_INVALID', `cursor ${why}`, { field: 'cursor' });

/**
 * The sort values (wire form) a cursor carries, or 400 PARAM_INVALID when it was forged, is
 * from another query (sort, filter, keys) or no longer fits the sort.
 */
export function decodeCursor(secret: Buffer, digest: string, cursor: string, terms: number): JsonValue[] {
  if (cursor.length > MAX_CURSOR_TEXT) throw invalid(`is longer than ${MAX_CURSOR_TEXT} characters`);
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid('is malformed');
  const sealed = Buffer.from(cursor, 'base64url');
  if (sealed.length <= IV_BYTES + TAG_BYTES) throw invalid('is malformed');
  let text: string;
  try {
    const decipher = createDecipheriv(CIPHER, keyOf(secret), sealed.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(digest));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    text = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw invalid('is not valid for this query (forged, or from another sort or filter)');
  }
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch {
    throw invalid('is malformed');
  }
  if (!Array.isArray(values) || values.length !== terms) throw invalid('does not fit the sort');
  return values as JsonValue[];
}

/** Reads a cursor's wire values back to canonical values of the sort terms' fields. */
export function cursorValues(order: readonly SortTerm[], values: readonly JsonValue[]): unknown[] {
  return order.map((term, index) => {
    const value = values[index];
    if (value === null || value === undefined) return null;
    const parsed = term.field.type.parse(value, term.field.def);
    if (!parsed.ok) throw invalid('is stale: a value no longer fits its field');
    return parsed.value;
  });
}
