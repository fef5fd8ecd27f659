import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/schema/collection.js';
import { compileDecoder, decoderOf, MAX_COMPILED_FIELDS, reuseDecoder } from '../../src/schema/row-decoder.js';
import { collectionOf } from '../support/collection-of.js';
import { TYPED_FIELDS } from '../support/typed-fields.js';

/** The generated row decoder against the loop it replaces, on random driver rows of every dialect. */

/** Values a driver may hand back for a column (and some it should not: both sides must agree either way). */
const raw = fc.oneof(
  fc.constantFrom(null, undefined, 0, 1, -7, 2 ** 40, 12n, 'abc', '', '12.500', '2026-11-26T10:00:00.000Z', '2026-11-26 10:00:00', '2026-11-26', '{"a":[1,2]}', '[1,"x"]', true, false),
  fc.constantFrom(new Date(Date.UTC(2026, 10, 26, 10)), { a: 1 }, ['x', 'y'], Buffer.from('ab')),
);

/** What decoding gives: the item with its key order, or the error it throws. */
function outcome(decode: () => Record<string, unknown>): unknown {
  try {
    const item = decode();
    return { keys: Object.keys(item), item };
  } catch (error) {
    return { error: String(error) };
  }
}

describe('compiled row decoder', () => {
  for (const dialect of ['sqlite', 'postgres', 'mysql'] as const) {
    it(`decodes every row as the loop does (${dialect})`, () => {
      const collection = collectionOf({ name: 'things', fields: TYPED_FIELDS }, dialect);
      const fields = collection.visible;
      const compiled = compileDecoder(fields, dialect);
      const row = fc.record(Object.fromEntries(fields.map((field) => [field.name, raw])), { requiredKeys: [] });
      fc.assert(
        fc.property(row, (r) => {
          // A fresh list is never marked: decode takes the loop.
          expect(outcome(() => compiled(r))).toEqual(outcome(() => collection.decode(r, [...fields])));
        }),
        { numRuns: 2000 },
      );
    });
  }

  it('compiles only marked lists of plain names and at most MAX_COMPILED_FIELDS fields', () => {
    const collection = collectionOf({ name: 'things', fields: TYPED_FIELDS }, 'sqlite');
    const marked = [...collection.visible];
    expect(decoderOf(marked, 'sqlite')).toBeUndefined();
    reuseDecoder(marked);
    const decoder = decoderOf(marked, 'sqlite');
    expect(decoder).toBeTypeOf('function');
    expect(decoderOf(marked, 'sqlite')).toBe(decoder);
    const wide = Array.from({ length: MAX_COMPILED_FIELDS + 1 }, () => collection.visible[0]!) as Field[];
    reuseDecoder(wide);
    expect(decoderOf(wide, 'sqlite')).toBeUndefined();
    const odd = [{ ...collection.visible[0]!, name: 'a"b' }] as Field[];
    reuseDecoder(odd);
    expect(decoderOf(odd, 'sqlite')).toBeUndefined();
  });

  it('keeps the loop\'s answer for a repeated field and for a missing column', () => {
    const collection = collectionOf({ name: 'things', fields: TYPED_FIELDS }, 'sqlite');
    const title = collection.fields.get('s')!;
    const views = collection.fields.get('i')!;
    const list = [title, views, title];
    const compiled = compileDecoder(list, 'sqlite');
    for (const row of [{ s: 'a', i: 3 }, { i: 2n }, {}]) {
      expect(outcome(() => compiled(row))).toEqual(outcome(() => collection.decode(row, [...list])));
    }
  });
});
