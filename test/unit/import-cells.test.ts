import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeFormula } from '../../src/export/export-cells.js';
import { cellInput, unescapeFormula, type SheetCell } from '../../src/import/import-cells.js';
import { importColumns, parseMapping } from '../../src/import/import-columns.js';
import { everyFieldTypeFields } from '../fixtures/every-field-type.js';
import { collectionOf } from '../support/collection-of.js';

const every = collectionOf({ name: 'every_type', fields: [...everyFieldTypeFields({ string: { title: 'Label' } })] });
const field = (name: string) => every.fields.get(name)!;

describe('import cells', () => {
  // [field, cell, value the create path gets]
  const CELLS: Array<[string, SheetCell, unknown]> = [
    ['string', 'plain', 'plain'],
    ['string', "'=1+1", '=1+1'],
    ['string', "''@x", "'@x"],
    ['string', "'plain", "'plain"],
    ['string', 42, '42'],
    ['string', '', null],
    ['string', null, null],
    ['integer', '-42', -42],
    ['integer', ' 7 ', 7],
    ['integer', 'many', 'many'],
    ['float', '1e3', 1000],
    ['float', 2.5, 2.5],
    ['bigInt', '-9007199254740993', '-9007199254740993'],
    ['decimal', 12.5, '12.5'],
    ['boolean', 'TRUE', true],
    ['boolean', '0', false],
    ['boolean', false, false],
    ['boolean', 'yes', 'yes'],
    ['date', '2026-03-01T10:30:00.000+01:00', '2026-03-01T10:30:00.000+01:00'],
    ['date', new Date('2026-03-01T09:30:00.000Z'), '2026-03-01T09:30:00.000Z'],
    ['dateOnly', new Date('2026-03-01T00:00:00.000Z'), '2026-03-01'],
    ['time', new Date('1899-12-30T09:30:00.000Z'), '09:30:00'],
    ['json', '{"a":[1,2]}', { a: [1, 2] }],
    ['json', "'-1", -1],
    ['json', 3, 3],
    ['array', '[1,"=x"]', [1, '=x']],
  ];

  it.each(CELLS)('%s: %j → %j', (name, cell, value) => {
    expect(cellInput(field(name), cell)).toEqual({ ok: true, value });
  });

  it('refuses JSON that does not parse and formula cells, never evaluating them', () => {
    expect(cellInput(field('json'), '{oops')).toEqual({ ok: false, message: 'is not JSON text' });
    expect(cellInput(field('integer'), { refused: 'is a formula cell' })).toEqual({ ok: false, message: 'is a formula cell' });
  });

  it('takes off exactly the quote the export adds: any text survives escape then unescape', () => {
    fc.assert(fc.property(fc.string(), (text) => unescapeFormula(escapeFormula(text)) === text));
    fc.assert(fc.property(fc.constantFrom('=', '+', '-', '@', '\t', '\r', "'"), fc.string(), (head, rest) => unescapeFormula(escapeFormula(head + rest)) === head + rest));
  });

  const LINES = fc.array(fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', "'", 'a', ','), { maxLength: 12 }).map((parts) => parts.join(''));

  it('escapes every line of a multi-line text: no line starts a formula, and unescape gives the text back', () => {
    fc.assert(
      fc.property(LINES, (text) => {
        const escaped = escapeFormula(text);
        expect(unescapeFormula(escaped)).toBe(text);
        // Whichever line break a reader splits on (CR, LF or CRLF), no line starts a formula.
        for (const line of escaped.split(/[\r\n]/).slice(1)) expect(line).not.toMatch(/^[=+\-@\t]/);
        expect(escaped).not.toMatch(/^[=+\-@\t\r]/);
      }),
      { seed: 37, numRuns: 500 },
    );
  });
});

describe('import columns', () => {
  it('maps by mapping, then name, then title; null ignores', () => {
    const columns = importColumns(every, ['Label', 'integer', 'Notes'], parseMapping('{"Notes":null}'));
    expect(columns.map((column) => column?.name)).toEqual(['string', 'integer', undefined]);
  });

  it('refuses an unknown header and two columns for one field with IMPORT_FILE_INVALID', () => {
    expect(() => importColumns(every, ['nope'], undefined)).toThrow(expect.objectContaining({ code: 'IMPORT_FILE_INVALID' }));
    expect(() => importColumns(every, ['string', 'Label'], undefined)).toThrow(expect.objectContaining({ code: 'IMPORT_FILE_INVALID' }));
  });

  it('refuses a mapping that is not an object of names or null', () => {
    for (const text of ['{', '[]', '{"a":1}']) expect(() => parseMapping(text)).toThrow(expect.objectContaining({ code: 'PARAM_INVALID' }));
  });
});
