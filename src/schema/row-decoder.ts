import type { Field, Row } from './collection.js';
import { NAME_PATTERN, type Dialect, type JsonValue } from './types.js';

/** A row's wire item for one select list: each selected field's `fromDb` value, null for NULL. */
export type RowDecoder = (row: Row) => Record<string, JsonValue>;

/** Select lists wider than this keep the loop: V8 took long to optimize very wide generated code (see mysql2's row parsers on a 190-column table in docs/performance.md). */
export const MAX_COMPILED_FIELDS = 64;

/** Lists marked as reused: `'due'` until their first decode compiles them (or `null` when they cannot be). */
const decoders = new WeakMap<readonly Field[], RowDecoder | 'due' | null>();

/**
 * Marks a select list that reads reuse from request to request (the whole shape of a
 * collection, made once per snapshot): rows read with it are decoded by generated code.
 * Lists made for one request (`fields`, `except`, appends) are never compiled.
 */
export function reuseDecoder(fields: readonly Field[]): void {
  if (!decoders.has(fields)) decoders.set(fields, 'due');
}

/**
 * The compiled decoder of a list marked by `reuseDecoder`, or undefined (the caller loops
 * over the fields).
 *
 * The loop stored each field into the item with a keyed store and read each column by a name
 * that changed from field to field at the same two sites, so both went through V8's generic
 * (megamorphic) handlers: on a 20-row page of nine fields about 6k instructions a row. The
 * compiled decoder has one load and one store per field, each with its name as a constant,
 * so each site sees one row shape and one item shape and V8 inlines them. It builds the item
 * with stores into `{}` in field order, as the loop did, not as one object literal: that
 * version made a `get` 30k instructions dearer, with Node's own object literals (`nextTick`)
 * then going through V8's runtime; why was not found (docs/performance.md). Field names must
 * match NAME_PATTERN (as every stored name does) and are written as JSON string literals
 * anyway; `fromDb` is called on the field's type as in the loop.
 */
export function decoderOf(fields: readonly Field[], dialect: Dialect): RowDecoder | undefined {
  const known = decoders.get(fields);
  if (known === undefined || known === null) return undefined;
  if (known !== 'due') return known;
  const decoder = compilable(fields) ? compileDecoder(fields, dialect) : null;
  decoders.set(fields, decoder);
  return decoder ?? undefined;
}

function compilable(fields: readonly Field[]): boolean {
  return fields.length <= MAX_COMPILED_FIELDS && fields.every((field) => NAME_PATTERN.test(field.name) && field.name !== '__proto__');
}

/** The decoder of a list, as generated code (exported for the test that compares it with the loop). */
export function compileDecoder(fields: readonly Field[], dialect: Dialect): RowDecoder {
  const body = fields
    .map((field, i) => {
      const name = JSON.stringify(field.name);
      return `v = row[${name}];\nitem[${name}] = v === null || v === undefined ? null : types[${i}].fromDb(v, dialect, defs[${i}]);`;
    })
    .join('\n');
  const factory = new Function('types', 'defs', 'dialect', `'use strict';\nreturn function decodeRow(row) {\nconst item = {};\nlet v;\n${body}\nreturn item;\n};`) as (
    types: readonly Field['type'][],
    defs: readonly Field['def'][],
    dialect: Dialect,
  ) => RowDecoder;
  return factory(
    fields.map((field) => field.type),
    fields.map((field) => field.def),
    dialect,
  );
}
