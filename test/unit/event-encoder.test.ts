import { DummyDriver, Kysely, sql, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ENCODING_OF, eventEncoder, SQL_OF, type MemberEncoding } from '../../src/changes/event-encoder.js';
import type { Row } from '../../src/schema/collection.js';
import { SchemaSnapshot } from '../../src/schema/schema-snapshot.js';
import type { Dialect } from '../../src/schema/types.js';
import { EVERY_FIELD_TYPE, everyFieldTypeDef, fieldNameOf } from '../fixtures/every-field-type.js';

/** Compiles PostgreSQL SQL without a database. */
const postgres = new Kysely<Record<string, never>>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** A driver row of the fixture: one value of each type, as the dialect's driver hands it. */
const DRIVER_VALUES: Record<Dialect, Record<string, unknown>> = {
  sqlite: { string: 'a"b', text: 'ünï 😀', integer: 7n, bigInt: 9007199254740993n, float: 1.5, double: -0.25, decimal: '12.50', boolean: 1n, date: '2026-01-02T03:04:05.678Z', dateOnly: '2026-01-02', time: '10:11:12', json: '{"a":[1,null]}', array: '[1,"two"]', uuid: '0b6c3a9e-5f0e-4c8e-9d5b-7a1f2e3d4c5b', nanoid: 'V1StGXR8_Z5jdHi6B-myT', sort: 3n },
  postgres: { string: 'a"b', text: 'ünï 😀', integer: 7, bigInt: '9007199254740993', float: 1.5, double: -0.25, decimal: '12.50', boolean: true, date: '2026-01-02T03:04:05.678Z', dateOnly: '2026-01-02', time: '10:11:12', json: { a: [1, null] }, array: [1, 'two'], uuid: '0b6c3a9e-5f0e-4c8e-9d5b-7a1f2e3d4c5b', nanoid: 'V1StGXR8_Z5jdHi6B-myT', sort: 3 },
  mysql: { string: 'a"b', text: 'ünï 😀', integer: 7, bigInt: '9007199254740993', float: 1.5, double: -0.25, decimal: '12.50', boolean: 1, date: '2026-01-02 03:04:05.678', dateOnly: '2026-01-02', time: '10:11:12', json: '{"a":[1,null]}', array: '[1,"two"]', uuid: '0b6c3a9e-5f0e-4c8e-9d5b-7a1f2e3d4c5b', nanoid: 'V1StGXR8_Z5jdHi6B-myT', sort: 3 },
};

/** What each encoding's SQL must contain: the conversion the JS back end's `fromDb` does, in PostgreSQL. */
const SQL_MARK: Record<MemberEncoding, string> = {
  text: 'to_json("w"."#")',
  integer: 'to_json("w"."#")',
  bigInt: 'between -9007199254740991 and 9007199254740991',
  float: '+ 0::float8',
  decimal: 'to_json("w"."#"::text)',
  boolean: 'to_json("w"."#")',
  instant: `at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`,
  dateOnly: `to_char("w"."#", 'YYYY-MM-DD')`,
  time: 'left("w"."#"::text, 8)',
  json: '"w"."#"::json',
};

describe('the event encoder of a collection holding every field type', () => {
  for (const dialect of ['sqlite', 'postgres', 'mysql'] as const) {
    const collection = new SchemaSnapshot(1, [everyFieldTypeDef], dialect).get('every_type')!;
    const encoder = eventEncoder(collection);
    const row: Row = { id: dialect === 'sqlite' ? 1n : 1, createdAt: DRIVER_VALUES[dialect].date, updatedAt: DRIVER_VALUES[dialect].date };
    for (const type of EVERY_FIELD_TYPE) row[fieldNameOf(type)] = type === 'password' ? 'hash' : DRIVER_VALUES[dialect][type];

    it(`encodes a ${dialect} row in JS exactly as the outbox hook does (decode, then JSON.stringify)`, () => {
      const texts = encoder.js(row, dialect)!;
      expect(texts).toBeDefined();
      expect(texts.data).toBe(JSON.stringify(collection.decode(row, collection.visible)));
      expect(texts.key).toBe(JSON.stringify(collection.decode(row, [collection.key])[collection.key.name]));
      const nulls: Row = Object.fromEntries(Object.keys(row).map((name) => [name, null]));
      nulls.id = row.id;
      expect(encoder.js(nulls, dialect)!.data).toBe(JSON.stringify(collection.decode(nulls, collection.visible)));
    });

    it(`leaves a ${dialect} row without every visible column, or without a key, to the hook`, () => {
      const { [fieldNameOf('text')]: _left, ...partial } = row;
      expect(encoder.js(partial, dialect)).toBeUndefined();
      expect(encoder.js({ ...row, id: null }, dialect)).toBeUndefined();
    });
  }

  it('covers every visible field with a member, in the collection order, and never the hidden one', () => {
    const collection = new SchemaSnapshot(1, [everyFieldTypeDef], 'postgres').get('every_type')!;
    const { members } = eventEncoder(collection);
    expect(members.map((member) => member.field.name)).toEqual(collection.visible.map((field) => field.name));
    for (const type of EVERY_FIELD_TYPE) {
      const member = members.find((entry) => entry.field.name === fieldNameOf(type));
      if (type === 'password') expect(member).toBeUndefined();
      else expect(member?.encoding, type).toBe(ENCODING_OF[type]);
    }
  });

  it('builds the SQL expression with the same members, in the same order, each with its type’s conversion', () => {
    const collection = new SchemaSnapshot(1, [everyFieldTypeDef], 'postgres').get('every_type')!;
    const encoder = eventEncoder(collection);
    const sqlBackEnd = encoder.sql!;
    expect(sqlBackEnd).toBeDefined();
    const text = sqlBackEnd.data.compile(postgres).sql;
    // Every member's name literal, in the JS back end's order (each prefix is one literal).
    const jsKeys = Object.keys(JSON.parse(encoder.js({ ...Object.fromEntries(collection.visible.map((field) => [field.name, null])), id: 1 }, 'postgres')!.data));
    const sqlKeys = [...text.matchAll(/'[{,]"(\w+)":'/g)].map((match) => match[1]);
    expect(sqlKeys).toEqual(jsKeys);
    // Each member's segment (from its name to the next) holds its encoding's conversion.
    const segments = text.split(/'[{,]"\w+":'/).slice(1);
    for (const [index, member] of encoder.members.entries()) {
      const mark = SQL_MARK[member.encoding!].replaceAll('#', member.field.name);
      expect(segments[index], member.field.name).toContain(mark);
      expect(segments[index]).toContain(`coalesce(`);
    }
    // The key is the key's member (an integer id here).
    expect(sqlBackEnd.key.compile(postgres).sql).toBe(`${SQL_OF.integer(sql.ref('w.id')).compile(postgres).sql}::text`);
    expect(sqlBackEnd.key.compile(postgres).sql).toBe('to_json("w"."id")::text');
  });
});

