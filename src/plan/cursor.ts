import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
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

function mac(secret: Buffer, digest: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(`${digest}.${payload}`).digest();
}

/** An opaque cursor: the last row's sort values (wire form), signed together with the query's digest. */
export function encodeCursor(secret: Buffer, digest: string, values: readonly JsonValue[]): string {
  const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
  return `${payload}.${mac(secret, digest, payload).toString('base64url')}`;
}

const invalid = (why: string) => new ApiError('PARAM_INVALID', `cursor ${why}`, { field: 'cursor' });

/**
 * The sort values (wire form) a cursor carries, or 400 PARAM_INVALID when it was forged, is
 * from another query (sort, filter, keys) or no longer fits the sort.
 */
export function decodeCursor(secret: Buffer, digest: string, cursor: string, terms: number): JsonValue[] {
  if (cursor.length > MAX_CURSOR_TEXT) throw invalid(`is longer than ${MAX_CURSOR_TEXT} characters`);
  const [payload, signature, ...rest] = cursor.split('.');
  if (payload === undefined || signature === undefined || rest.length > 0) throw invalid('is malformed');
  const expected = mac(secret, digest, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalid('is not valid for this query (forged, or from another sort or filter)');
  }
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
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
