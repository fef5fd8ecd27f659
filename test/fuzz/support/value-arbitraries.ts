/** Building blocks the fuzz generators share: names, odd text, keys and scalar values. */
import fc from 'fast-check';
import { RELATIONS, SCALAR_FIELDS } from './fuzz-schema.js';

export const SEED_NAMES = ['people', 'teams', 'tags', 'notes', 'profiles', 'people_tags'];
export const FIELD_NAMES = [...SCALAR_FIELDS.map((f) => f.name), 'id', 'createdAt', 'updatedAt', 'teamId', 'name', 'label', 'text', 'bio'];
export const RELATION_NAMES = RELATIONS.map((r) => r.name);
export const ACTIONS = ['list', 'get', 'count', 'create', 'update', 'destroy', 'add', 'set', 'remove', 'toggle', 'getInfo'];
export const OPERATORS = ['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$notIn', '$exists', '$notExists', '$like', '$foo', 'eq'];

/** Names a hostile client tries: catalogue tables, prototype keys, too long, odd case. */
export const RESERVED_NAMES = ['pg_shadow', 'pg_description', 'sqlite_master', 'information_schema', 'mysql', 'sys', 'corral_x', 'ctid', 'xmin', 'oid', 'rowid', '__proto__', 'constructor', 'prototype'];

export const oddText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('', ' ', '%', '%zz', '%3A', ':', '::', '..', '.', '-', '\u0000', '\u202e', '😀', 'a b', 'a/b', 'a?b', 'a#b', 'NULL', 'null', 'undefined', 'true', '1e309', '-0', '0x10'),
);

/** Percent-encodes some characters (always those that would break the URL), leaving others raw. */
export const encodeSegment = (text: string, raw: boolean): string =>
  raw ? text.replace(/[^A-Za-z0-9_:%.~-]/gu, (c) => encodeURIComponent(c)) : encodeURIComponent(text);

export const segment = fc.tuple(oddText, fc.boolean()).map(([text, raw]) => encodeSegment(text, raw));

export const keyText = fc.oneof(
  fc.integer({ min: -2, max: 12 }).map(String),
  fc.constantFrom('00000000-0000-4000-8000-000000000001', '1.5', '99999999999999999999', 'code1', '1,2', ' 1'),
  oddText,
);

export const keySegment = fc.tuple(keyText, fc.boolean()).map(([text, raw]) => encodeSegment(text, raw));

/** Field names of each seed collection (and what a filter may reach through relations). */
export const COLLECTION_FIELDS: Record<string, string[]> = {
  people: [...SCALAR_FIELDS.map((f) => f.name), 'id', 'createdAt', 'updatedAt', 'teamId'],
  teams: ['id', 'name', 'createdAt'],
  tags: ['id', 'label', 'updatedAt'],
  notes: ['id', 'text', 'peopleId', 'personId'],
  profiles: ['id', 'bio', 'peopleId'],
  people_tags: ['peopleId', 'tagId', 'personId'],
};

/** Scalar values of every wire type, odd ones included. */
export const scalarValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: -5, max: 10 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.constantFrom(1e308, -1e308, 5e-324, 2147483648, -2147483649, 9007199254740993, -0, 0.1, 1.005),
  fc.constantFrom('9223372036854775807', '-9223372036854775809', '0000-01-01', '9999-12-31T23:59:59.999Z', '10000-01-01', '24:00:00', '23:59:60', 'Infinity', '+1', ' 1 ', '1_000', '١٢٣', '𝟙', '0.000', '-0.00', '1e-7', 'T', 'Z'),
  fc.constantFrom('2026-01-02T03:04:05Z', '2026-02-30', '12:00', '25:00', '00000000-0000-4000-8000-000000000001', '1e3', '9223372036854775808', '-0', 'NaN', '%', "' or 1=1 --", '"', '\\', '\u0000', 'draft', 'person 1'),
);

export const jsonValue = (depth: number): fc.Arbitrary<unknown> => fc.jsonValue({ maxDepth: depth });

