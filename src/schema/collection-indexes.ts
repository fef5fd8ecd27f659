import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import { FIELD_TYPES } from './field-types/index.js';
import { indexName } from './index-name.js';
import { invalid } from './normalize-field.js';
import { tableOf } from './table-of.js';
import { NAME_PATTERN, type CollectionDef, type IndexDef } from './types.js';

/** At most this many `indexes` per collection, each over at most this many fields (MySQL takes 16 columns, PostgreSQL 32). */
export const MAX_INDEXES_PER_COLLECTION = 16;
export const MAX_FIELDS_PER_INDEX = 8;

const INDEX_OPTIONS = new Set(['name', 'fields', 'unique']);

const where = (position: number): string => `indexes[${position}]`;

/** The name an index gets when none is given: `idx_<collection>_<fields>` (`uidx_` when unique), hashed past 63 characters. */
export function defaultIndexName(collection: string, fields: readonly string[], unique: boolean): string {
  return indexName(unique ? 'uidx' : 'idx', collection, fields.join('_'));
}

/** Every index name a collection's table uses besides its `indexes`: per-field, pair-unique and foreign key names. */
function otherNames(def: CollectionDef): string[] {
  const names: string[] = [];
  const table = tableOf(def);
  for (const field of def.fields) {
    if (field.unique) names.push(indexName('uq', table, field.name));
    if (field.index && !field.unique) names.push(indexName('ix', table, field.name));
    if (field.references !== undefined) names.push(indexName('fk', table, field.name));
  }
  for (const columns of def.uniques ?? []) names.push(indexName('uq', table, columns.join('_')));
  return names;
}

/**
 * Reads an `indexes` option (`[{fields: ['status', 'views'], unique?: boolean, name?: string}]`,
 * NocoBase's shape) against the collection's fields into its stored form. Throws SCHEMA_INVALID
 * for an unknown or unindexable field, a repeated field list or name, a name another index of
 * the schema uses, or more than the limits.
 */
export function normalizeIndexes(input: unknown, def: CollectionDef, all: readonly CollectionDef[]): IndexDef[] {
  if (input === null || input === undefined) return [];
  if (!Array.isArray(input)) throw invalid('indexes must be an array of {fields, unique?, name?}', 'indexes');
  if (input.length > MAX_INDEXES_PER_COLLECTION) throw invalid(`a collection has at most ${MAX_INDEXES_PER_COLLECTION} indexes`, 'indexes');
  const taken = new Set(all.filter((other) => other.name !== def.name).flatMap((other) => [...otherNames(other), ...(other.indexes ?? []).map((index) => index.name)]).map((name) => name.toLowerCase()));
  for (const name of otherNames(def)) taken.add(name.toLowerCase());
  const out: IndexDef[] = [];
  for (const [position, entry] of input.entries()) {
    const at = where(position);
    if (!isRecord(entry)) throw invalid(`${at} must be an object {fields, unique?, name?}`, 'indexes');
    for (const key of Object.keys(entry)) if (!INDEX_OPTIONS.has(key)) throw invalid(`${at}: unknown index option ${key} (fields, unique, name)`, 'indexes');
    const fields = entry.fields;
    if (!Array.isArray(fields) || fields.length === 0 || !fields.every((name) => typeof name === 'string')) throw invalid(`${at}.fields must be a non-empty array of field names`, 'indexes');
    if (fields.length > MAX_FIELDS_PER_INDEX) throw invalid(`${at}: an index covers at most ${MAX_FIELDS_PER_INDEX} fields`, 'indexes');
    if (new Set(fields).size !== fields.length) throw invalid(`${at}.fields names a field twice`, 'indexes');
    for (const name of fields as string[]) {
      const field = def.fields.find((candidate) => candidate.name === name);
      if (field === undefined) throw invalid(`${at}: ${def.name} has no field ${name} (relations are indexed by their key column, e.g. authorId)`, 'indexes');
      if (!FIELD_TYPES[field.type].indexable) throw invalid(`${at}: ${name} of type ${field.type} cannot be indexed`, 'indexes');
    }
    if (entry.unique !== undefined && entry.unique !== null && typeof entry.unique !== 'boolean') throw invalid(`${at}.unique must be true or false`, 'indexes');
    const unique = entry.unique === true;
    if (entry.name !== undefined && entry.name !== null && (typeof entry.name !== 'string' || !NAME_PATTERN.test(entry.name))) throw invalid(`${at}.name must match ${NAME_PATTERN.source}`, 'indexes');
    const name = typeof entry.name === 'string' ? entry.name : defaultIndexName(def.name, fields as string[], unique);
    if (out.some((other) => other.fields.join('\0') === fields.join('\0'))) throw invalid(`${at}: another index has the same fields (${fields.join(', ')})`, 'indexes');
    if (taken.has(name.toLowerCase()) || out.some((other) => other.name.toLowerCase() === name.toLowerCase())) throw invalid(`${at}: the index name ${name} is taken; give the index another name`, 'indexes');
    out.push({ name, fields: [...(fields as string[])], unique });
  }
  return out;
}

/** What replacing a collection's indexes does: indexes to drop (changed or gone), then to create. */
export function indexChanges(before: readonly IndexDef[], after: readonly IndexDef[]): { drop: IndexDef[]; create: IndexDef[] } {
  const same = (a: IndexDef, b: IndexDef): boolean => a.name === b.name && a.unique === b.unique && a.fields.join('\0') === b.fields.join('\0');
  return { drop: before.filter((old) => !after.some((next) => same(old, next))), create: after.filter((next) => !before.some((old) => same(old, next))) };
}

/** The indexes of `def` that cover a field (a field drop or rename is refused while any does). */
export function indexesUsing(def: CollectionDef, field: string): IndexDef[] {
  return (def.indexes ?? []).filter((index) => index.fields.includes(field));
}

/** SCHEMA_INVALID for changing a field that indexes cover, naming them. */
export function fieldInIndexes(def: CollectionDef, field: string, change: string): ApiError | undefined {
  const using = indexesUsing(def, field);
  if (using.length === 0) return undefined;
  const names = using.map((index) => index.name);
  const message = `${field} is covered by the index${names.length > 1 ? 'es' : ''} ${names.join(', ')} of ${def.name}; ${change} after removing ${names.length > 1 ? 'them' : 'it'} with collections:setIndexes`;
  return new ApiError('SCHEMA_INVALID', message, { field, details: { indexes: names } });
}
