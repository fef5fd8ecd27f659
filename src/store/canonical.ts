import type { Collection, Field, Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';

/** A driver value back to the canonical value its field type works with. */
export function canonical(field: Field, raw: unknown, dialect: Dialect): unknown {
  if (raw === null || raw === undefined) return null;
  const wire = field.type.fromDb(raw, dialect, field.def);
  const parsed = field.type.parse(wire, field.def);
  return parsed.ok ? parsed.value : wire;
}

/** The fields that name one row: the key field, or every field of a composite key. */
export function keyFields(collection: Collection): readonly Field[] {
  return collection.compositeKey ?? [collection.key];
}

/**
 * A driver row's key, canonical: the key field's value, or (a composite key) an object of every
 * key field's value by field name, which keyFilter (plan/bind-keys.ts) takes back.
 */
export function rowKey(collection: Collection, row: Row, dialect: Dialect): unknown {
  const composite = collection.compositeKey;
  if (composite === undefined) return canonical(collection.key, row[collection.key.name], dialect);
  return Object.fromEntries(composite.map((field) => [field.name, canonical(field, row[field.name], dialect)]));
}

/** Text that tells keys apart: a composite key's object as JSON, any other key as String does. */
export function keyText(key: unknown): string {
  return typeof key === 'object' && key !== null && !(key instanceof Date) ? JSON.stringify(key, bigIntText) : String(key);
}

/** bigint parts (a bigint column of a composite key) as their digits. */
const bigIntText = (_name: string, value: unknown): unknown => (typeof value === 'bigint' ? value.toString() : value);
