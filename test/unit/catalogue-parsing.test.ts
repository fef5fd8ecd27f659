import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catalogueFilter, tablePattern } from '../../src/db/catalogue/catalogue-filter.js';
import { checkCondition, quotedMembers, typeArguments } from '../../src/db/catalogue/catalogue-types.js';
import { sqliteChecks } from '../../src/db/catalogue/sqlite-checks.js';

/** The pure parts of the catalogue readers (src/db/catalogue/). */

describe('table patterns', () => {
  it.each([
    ['order*', 'order_lines', true],
    ['order*', 'order', true],
    ['order*', 'reorder', false],
    ['*_lines', 'order_lines', true],
    ['ta?', 'tag', true],
    ['ta?', 'ta', false],
    ['ta?', 'tags', false],
    ['customer', 'Customer', true],
    ['a.b', 'axb', false],
    ['a.b', 'a.b', true],
    ['zip code', 'zip code', true],
    ['(x)|y', '(x)|y', true],
    ['(x)|y', 'y', false],
  ])('%s against %s: %s', (pattern, name, expected) => {
    expect(tablePattern(pattern).test(name)).toBe(expected);
  });

  it('a name with no wildcard matches itself and nothing longer, whatever its characters', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }).filter((s) => !/[*?]/.test(s)), fc.string({ minLength: 1 }), (name, extra) => {
        expect(tablePattern(name).test(name)).toBe(true);
        expect(tablePattern(name).test(name + extra)).toBe(false);
      }),
    );
  });

  it('exclude wins over include, and corral_ tables never pass', () => {
    const wanted = catalogueFilter({ include: ['*'], exclude: ['secret*'] });
    expect(['orders', 'secret_x', 'corral_meta', 'CORRAL_CHANGES'].map(wanted)).toEqual([true, false, false, false]);
    expect(catalogueFilter({ include: ['corral_*'] })('corral_meta')).toBe(false);
  });
});

describe('SQLite checks from CREATE TABLE', () => {
  it('finds named and unnamed checks with nested parentheses', () => {
    const text = `CREATE TABLE t (
      a INT CONSTRAINT a_pos CHECK (a > 0),
      b TEXT CHECK (length(b) <= (10)) -- a comment with check (x)
      , "c" TEXT DEFAULT 'check (no)' /* check (nor this) */,
      CONSTRAINT "both ok" CHECK ((a < 100) AND b <> ')'),
      check(c IN ('x', 'y'))
    )`;
    expect(sqliteChecks(text)).toEqual([
      { name: 'a_pos', expression: 'a > 0' },
      { expression: 'length(b) <= (10)' },
      { name: 'both ok', expression: "(a < 100) AND b <> ')'" },
      { expression: "c IN ('x', 'y')" },
    ]);
  });

  it('finds none where there are none', () => {
    expect(sqliteChecks('CREATE TABLE checks (checked INTEGER, "check" TEXT)')).toEqual([]);
  });
});

describe('catalogue text', () => {
  it.each([
    ["enum('new','paid')", ['new', 'paid']],
    ["set('S','M','L')", ['S', 'M', 'L']],
    ["enum('it''s','a,b','x\\\\y','')", ["it's", 'a,b', 'x\\y', '']],
  ])('members of %s', (type, members) => {
    expect(quotedMembers(type)).toEqual(members);
  });

  it.each([
    ['CHECK ((price >= (0)::numeric))', 'price >= (0)::numeric'],
    ['CHECK ((a > 0) AND (b > 0))', '(a > 0) AND (b > 0)'],
    ['CHECK ((a > 0)) NOT VALID', 'a > 0'],
    ['`quantity` > 0', '`quantity` > 0'],
    ["(`s` in ('(',')'))", "`s` in ('(',')')"],
  ])('condition of %s', (text, condition) => {
    expect(checkCondition(text)).toBe(condition);
  });

  it.each([
    ['numeric', 'numeric(12,2)', { precision: 12, scale: 2 }],
    ['numeric', 'numeric(12)', { precision: 12, scale: 0 }],
    ['numeric', 'numeric', {}],
    ['character varying', 'character varying(80)', { length: 80 }],
    ['timestamp with time zone', 'timestamp(3) with time zone', { precision: 3 }],
    ['datetime', 'datetime(6)', { precision: 6 }],
    ['int', 'int(11)', {}],
    ['tinyint', 'tinyint(1)', {}],
    ['varbinary', 'varbinary(16)', { length: 16 }],
  ])('arguments of %s %s', (base, raw, expected) => {
    expect(typeArguments(base, raw)).toEqual(expected);
  });
});
