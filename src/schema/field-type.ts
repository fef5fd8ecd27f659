import type { ColumnSpec } from '../db/dialects/dialect-adapter.js';
import type { Dialect, FieldDef, JsonValue, ScalarType } from './types.js';

/** Result of reading a client value for a field: the canonical value or a message. */
export type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

export const ok = (value: unknown): Parsed => ({ ok: true, value });
export const fail = (message: string): Parsed => ({ ok: false, message });

/** How a field type may be used in filters and sorts. */
export type Capability = 'equality' | 'ordered';

/**
 * One scalar field type. Values move through three shapes: the client's JSON value,
 * the canonical JS value (after `parse`), and the driver value (`toDb` / `fromDb`).
 */
export interface FieldType {
  readonly name: ScalarType;
  /** What the column stores; each dialect's adapter spells it (`ddl.columnTypes`). */
  column(def: FieldDef): ColumnSpec;
  /** Reads a non-null client value (body or filter) into the canonical value, or explains why not. */
  parse(value: unknown, def: FieldDef): Parsed;
  /** Canonical value to the driver parameter for a dialect (encodings that differ: the adapter's `values`). */
  toDb(value: unknown, dialect: Dialect): unknown;
  /** Driver value (never null) to the wire value; the same on every dialect. */
  fromDb(raw: unknown, dialect: Dialect, def: FieldDef): JsonValue;
  /** Which filter operators and sorts apply: none, equality only, or ordered. */
  readonly capability: Capability | 'none';
  /** Never returned to clients. */
  readonly hidden?: boolean;
  /** Options meaningful for this type besides the common ones. */
  readonly options: readonly ('length' | 'precision' | 'scale' | 'min' | 'max' | 'minLength' | 'maxLength' | 'pattern')[];
  /** Whether a column of this type may carry a unique constraint or an index on every dialect. */
  readonly indexable: boolean;
}
