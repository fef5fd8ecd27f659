import { sql, type Transaction } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { DialectAdapter } from '../db/dialects/dialect-adapter.js';
import { ApiError } from '../errors/api-error.js';
import { fieldInIndexes } from './collection-indexes.js';
import { alterColumn, createIndexes, dropIndex, renameColumn, setColumnDefault } from './ddl.js';
import { FIELD_TYPES } from './field-types/index.js';
import { checkDefault, findField } from './normalize-collection.js';
import { invalid, normalizeField } from './normalize-field.js';
import { updateDefinition } from './schema-store.js';
import { tableOf, tablesOf } from './table-of.js';
import { SCALAR_TYPES, type CollectionDef, type FieldDef, type ScalarType } from './types.js';
import { FIELD_UI_OPTIONS } from './ui-options.js';
import { columnChanges, typeChangeProblem, wideningProblem } from './widening.js';

type Trx = Transaction<DynamicDb>;

/** Options of a field that only change validation or display: no DDL. */
const METADATA_OPTIONS = ['title', 'description', 'defaultValue', 'min', 'max', 'minLength', 'maxLength', 'pattern', 'enum', ...FIELD_UI_OPTIONS] as const;
/** Size options that belong to one type; a type change resets the ones not sent. */
const TYPE_OPTIONS = ['length', 'precision', 'scale'] as const;
const VALIDATION_OPTIONS = ['min', 'max', 'minLength', 'maxLength', 'pattern'] as const;

export function requireCollection(defs: readonly CollectionDef[], name: string): CollectionDef {
  const def = defs.find((candidate) => candidate.name === name);
  if (def === undefined) throw new ApiError('COLLECTION_NOT_FOUND', `collection ${name} does not exist`);
  return def;
}

export function requireField(def: CollectionDef, name: string): FieldDef {
  const field = def.fields.find((candidate) => candidate.name === name);
  if (field === undefined) throw new ApiError('FIELD_NOT_FOUND', `field ${name} does not exist in ${def.name}`);
  return field;
}

/** Where a schema change runs its DDL (turning refusals into client errors). */
export type RunDdl = (run: () => Promise<void>, undo?: () => Promise<void>) => Promise<void>;

/**
 * `fields:update` of a scalar field's column, inside a schema change: checks that no stored
 * value is lost (type widening, NULLs before NOT NULL, keys relations point at), then
 * renames, re-indexes, alters the column and restates its DEFAULT as needed.
 */
export async function updateField(trx: Trx, defs: readonly CollectionDef[], collectionName: string, fieldName: string, patch: Record<string, unknown>, adapter: DialectAdapter, ddl: RunDdl): Promise<FieldDef> {
  const def = requireCollection(defs, collectionName);
  const current = requireField(def, fieldName);
  if (current.system !== undefined) throw invalid(`${fieldName} is automatic and cannot be changed`, fieldName);
  if (current.references !== undefined) throw invalid(`${fieldName} is the key column of a relation`, fieldName);
  if (patch.primaryKey !== undefined && patch.primaryKey !== (current.primaryKey === true)) {
    throw new ApiError('SCHEMA_CHANGE_UNSAFE', `${fieldName}: the primary key is chosen when the collection is created`, { field: fieldName });
  }
  const merged: Record<string, unknown> = { ...current, ...patch };
  for (const key of METADATA_OPTIONS) if (patch[key] === null) delete merged[key];
  if (typeof patch.type === 'string' && patch.type !== current.type && (SCALAR_TYPES as readonly string[]).includes(patch.type)) {
    const to = patch.type as ScalarType;
    const problem = typeChangeProblem(current.type, to);
    if (problem !== undefined) throw new ApiError('SCHEMA_CHANGE_UNSAFE', `${fieldName}: ${problem}; add a new field and copy the values`, { field: fieldName });
    // The new type starts from its own defaults for size options, and keeps only the options it takes.
    for (const key of TYPE_OPTIONS) if (patch[key] === undefined) delete merged[key];
    for (const key of VALIDATION_OPTIONS) if (!FIELD_TYPES[to].options.includes(key) && patch[key] === undefined) delete merged[key];
  }
  delete merged.system;
  delete merged.autoIncrement;
  const next = normalizeField(merged);
  if (next.primaryKey === true) next.primaryKey = current.primaryKey;
  checkDefault(next);
  const structural = columnChanges(current, next);
  if (structural) {
    const problem = wideningProblem(current, next);
    if (problem !== undefined) throw new ApiError('SCHEMA_CHANGE_UNSAFE', `${fieldName}: ${problem}; add a new field and copy the values`, { field: fieldName });
    const referenced = defs.some((other) => other.fields.some((f) => f.references?.collection === def.name && f.references.key === current.name));
    if (referenced && current.type !== next.type) throw invalid(`${fieldName} is the key relations point at; its type cannot change`, fieldName);
    if (current.allowNull && !next.allowNull) {
      const nulls = await trx.selectFrom(tableOf(def)).select(sql<unknown>`count(*)`.as('n')).where(current.name, 'is', null).executeTakeFirst();
      if (Number(nulls?.n ?? 0) > 0) {
        throw new ApiError('SCHEMA_CHANGE_UNSAFE', `${fieldName}: ${Number(nulls?.n)} stored rows hold NULL; fill them before making the field required`, { field: fieldName });
      }
    }
  }
  if (next.name !== current.name) {
    const covered = fieldInIndexes(def, current.name, 'rename it');
    if (covered !== undefined) throw covered;
    if (current.primaryKey === true || def.filterTargetKey === current.name) throw invalid('the key field cannot be renamed', fieldName);
    const clash = findField(def.fields, next.name);
    if (clash !== undefined && clash !== current) throw new ApiError('FIELD_EXISTS', `field ${next.name} already exists`, { field: next.name });
  }
  const nextDef = { ...def, fields: def.fields.map((field) => (field === current ? next : field)) };
  const table = tableOf(def);
  const tables = tablesOf(defs);
  await ddl(async () => {
    if (next.name !== current.name) await renameColumn(trx, table, current, next, adapter);
    if (current.unique && !next.unique) await dropIndex(trx, table, 'uq', next.name, adapter);
    if (current.index && !current.unique && (!next.index || next.unique)) await dropIndex(trx, table, 'ix', next.name, adapter);
    const added = { ...next, unique: next.unique && !current.unique, index: next.index && !next.unique && !(current.index && !current.unique) };
    await createIndexes(trx, table, added);
    if (structural) await alterColumn(trx, nextDef, current, next, adapter, tables);
    // A stale database DEFAULT would fill rows the client leaves the field out of (a table rebuild restated it).
    const rebuilt = structural && adapter.ddl.columnChange === 'rebuildTable';
    if (JSON.stringify(current.defaultValue) !== JSON.stringify(next.defaultValue) && !rebuilt) await setColumnDefault(trx, nextDef, next, adapter, tables);
  });
  await updateDefinition(trx, nextDef);
  return next;
}
