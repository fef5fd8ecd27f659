import { describe, expect, it } from 'vitest';
import type { Collection } from '../../src/schema/collection.js';
import { SchemaSnapshot } from '../../src/schema/schema-snapshot.js';
import { DIALECT_TRAITS } from '../../src/db/dialects/dialect-traits.js';
import type { WriteFastPath } from '../../src/store/write-fast-path.js';
import { chooseWriteMode, GENERAL_WRITE, SINGLE_STATEMENT, TRANSACTION, writePlan, type PostgresFusedMode, type WriteFacts } from '../../src/store/write-mode.js';
import { everyFieldTypeDef } from '../fixtures/every-field-type.js';

const collection = new SchemaSnapshot(1, [everyFieldTypeDef], 'postgres').get('every_type')!;
const noReferences = () => [];
const referenced = () => [{}] as never;

const CREATE: WriteFacts = { action: 'create', items: 1, associations: false, sortFields: false };
const UPDATE: WriteFacts = { action: 'update', oneKey: true, associations: false, values: true, ifMatch: false };
const DESTROY: WriteFacts = { action: 'destroy', oneKey: true, ifMatch: false };

describe('the write plan: one statement, atomic by itself, or not', () => {
  it.each([
    ['a flat one-row create', CREATE, true],
    ['a bulk create', { ...CREATE, items: 2 }, false],
    ['a create with association values', { ...CREATE, associations: true }, false],
    ['a create filling a sort field', { ...CREATE, sortFields: true }, false],
    ['an update of one key with flat values', UPDATE, true],
    ['an update of many rows', { ...UPDATE, oneKey: false }, false],
    ['an update with association values', { ...UPDATE, associations: true }, false],
    ['an update setting no column', { ...UPDATE, values: false }, false],
    ['an update under If-Match', { ...UPDATE, ifMatch: true }, false],
    ['a destroy of one key', DESTROY, true],
    ['a destroy of many rows', { ...DESTROY, oneKey: false }, false],
    ['a destroy under If-Match', { ...DESTROY, ifMatch: true }, false],
  ] as [string, WriteFacts, boolean][])('%s: %s where the dialect has RETURNING', (_what, facts, one) => {
    expect(writePlan(facts, DIALECT_TRAITS.postgres, collection, noReferences).oneStatement).toBe(one);
    expect(writePlan(facts, DIALECT_TRAITS.sqlite, collection, undefined).oneStatement).toBe(one);
    expect(writePlan(facts, DIALECT_TRAITS.mysql, collection, noReferences).oneStatement).toBe(false);
  });

  it('a destroy of a collection a reference points at may cascade: never one statement', () => {
    expect(writePlan(DESTROY, DIALECT_TRAITS.postgres, collection, referenced).oneStatement).toBe(false);
    expect(writePlan(CREATE, DIALECT_TRAITS.postgres, collection, referenced).oneStatement).toBe(true);
  });
});

describe('the write mode the store picks', () => {
  const ONE = writePlan(CREATE, DIALECT_TRAITS.postgres, collection, undefined);
  const outbox = () => undefined;
  const fused: PostgresFusedMode = { kind: 'postgres-fused', events: 0, statement: () => undefined };
  const fast: WriteFastPath = { unit: () => fused };
  const refusing: WriteFastPath = { unit: () => undefined };
  // isSearchable reads only the fields' definitions.
  const searchable = { fieldList: [{ def: { searchable: true } }] } as unknown as Collection;

  it('runs a general write in a transaction, whatever the hooks', () => {
    expect(chooseWriteMode(GENERAL_WRITE, collection, [], undefined)).toBe(TRANSACTION);
    expect(chooseWriteMode(GENERAL_WRITE, collection, [outbox], { hook: outbox, fast })).toBe(TRANSACTION);
  });

  it('autocommits a one-statement write when no beforeCommit hook is registered', () => {
    expect(chooseWriteMode(ONE, collection, [], undefined)).toBe(SINGLE_STATEMENT);
  });

  it('takes the fast path while the outbox is the only hook and the fast path takes the collection', () => {
    expect(chooseWriteMode(ONE, collection, [outbox], { hook: outbox, fast })).toBe(fused);
    expect(chooseWriteMode(ONE, collection, [outbox], { hook: outbox, fast: refusing })).toBe(TRANSACTION);
    expect(chooseWriteMode(ONE, collection, [outbox], { hook: outbox, fast: undefined })).toBe(TRANSACTION);
    expect(chooseWriteMode(ONE, collection, [outbox, () => undefined], { hook: outbox, fast })).toBe(TRANSACTION);
  });

  it('keeps a transaction for a collection with a $search index (the store writes it there)', () => {
    expect(chooseWriteMode(ONE, searchable, [], undefined)).toBe(TRANSACTION);
    expect(chooseWriteMode(ONE, searchable, [outbox], { hook: outbox, fast })).toBe(TRANSACTION);
  });
});
