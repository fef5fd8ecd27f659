import { RESERVED_COLLECTION_NAMES } from './reserved-names.js';
import { FIELD_UI_OPTIONS } from './ui-options.js';
import type { CollectionDef, FieldDef, RelationDef } from './types.js';

/** The schema file form: what CORRAL_SCHEMA / --schema applies (`{"collections": [...]}`). */
export interface SchemaFile {
  collections: Record<string, unknown>[];
}

/** A field as a client defines it: automatic fields and relation-made foreign keys are left to the server. */
function fieldInput(field: FieldDef): Record<string, unknown> | undefined {
  // An automatic id the UI labelled is exported as NocoBase sends it (`{name: 'id', primaryKey: true, …}`), which makes it again.
  if (field.system === 'id' && FIELD_UI_OPTIONS.some((key) => field[key] !== undefined)) {
    const ui = Object.fromEntries(FIELD_UI_OPTIONS.filter((key) => field[key] !== undefined).map((key) => [key, field[key]]));
    return { name: field.name, type: field.type, primaryKey: true, ...ui };
  }
  if (field.system !== undefined || field.references !== undefined) return undefined;
  const { autoIncrement: _autoIncrement, ...input } = field;
  return input;
}

/**
 * A through collection that belongsToMany made by itself (it carries the pair's unique
 * constraint): the relation makes it again, so only fields added to it later are exported.
 */
function madeByRelation(def: CollectionDef, throughs: ReadonlySet<string>): boolean {
  return throughs.has(def.name) && (def.uniques?.length ?? 0) > 0;
}

/** An index over a relation's key column can only be made once that relation has made the column. */
const needsRelations = (def: CollectionDef): boolean =>
  (def.indexes ?? []).some((index) => index.fields.some((name) => def.fields.find((field) => field.name === name)?.references !== undefined));

/**
 * A table Corral did not create, as normalize-unmanaged.ts reads it: every column listed with
 * its mapping (`tableName`, `columnName`), the stamp fields included (marked again by
 * `timestamps`), and its relations in the same entry (they need no DDL, only the collections,
 * which the first pass registered).
 */
function unmanagedEntry(def: CollectionDef, relations: readonly RelationDef[]): Record<string, unknown> {
  const out: Record<string, unknown> = { name: def.name, managed: false };
  for (const key of ['tableName', 'schema', 'view', 'title', 'description'] as const) if (def[key] !== undefined) out[key] = def[key];
  out.timestamps = def.timestamps;
  if (def.createdBy === true) out.createdBy = true;
  if (def.updatedBy === true) out.updatedBy = true;
  out.filterTargetKey = def.filterTargetKey;
  if (def.sortable !== undefined) out.sortable = def.sortable;
  if (def.options !== undefined) Object.assign(out, def.options);
  out.fields = [...def.fields.map(({ system: _system, ...field }) => field), ...relations];
  if (def.indexes !== undefined) out.indexes = def.indexes;
  return out;
}

function entry(def: CollectionDef, relations: readonly RelationDef[], indexes: boolean): Record<string, unknown> {
  if (def.managed === false) return unmanagedEntry(def, relations);
  const out: Record<string, unknown> = { name: def.name };
  if (def.title !== undefined) out.title = def.title;
  if (def.description !== undefined) out.description = def.description;
  out.timestamps = def.timestamps;
  for (const stamp of ['createdAt', 'updatedAt'] as const) {
    const has = def.fields.some((field) => field.system === stamp);
    if (has !== def.timestamps) out[stamp] = has;
  }
  if (def.createdBy === true) out.createdBy = true;
  if (def.updatedBy === true) out.updatedBy = true;
  out.autoGenId = def.autoGenId;
  out.idType = def.idType;
  out.filterTargetKey = def.filterTargetKey;
  if (def.sortable !== undefined) out.sortable = def.sortable;
  if (def.options !== undefined) Object.assign(out, def.options);
  out.fields = [...def.fields.map(fieldInput).filter((field) => field !== undefined), ...relations];
  if (indexes && def.indexes !== undefined) out.indexes = def.indexes;
  return out;
}

/**
 * Exports the schema so that applying it to an empty database and exporting again gives the
 * same JSON. The file applies in order, so it comes in two passes: every collection with its
 * own fields, then (for collections with relations, and through collections that gained
 * fields) the same entry with the relations added, which applies to the existing collection.
 * Any order of relations, cycles included, applies that way. Collections sort by name.
 * `indexes` come with the first entry, or, when one covers a relation's key column, with a
 * last entry of the collection (its relations included), once every column exists.
 */
export function exportSchema(defs: readonly CollectionDef[]): SchemaFile {
  // The system collections (users, roles, apiKeys) are made by the server at its first start,
  // not by a schema file, whose names are refused for them (docs/auth.md).
  const sorted = defs.filter((def) => !RESERVED_COLLECTION_NAMES.has(def.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const throughs = new Set(sorted.flatMap((def) => (def.relations ?? []).flatMap((relation) => (relation.through === undefined ? [] : [relation.through]))));
  const first = sorted.filter((def) => !madeByRelation(def, throughs)).map((def) => entry(def, [], !needsRelations(def)));
  const second = sorted.filter((def) => (def.relations?.length ?? 0) > 0 && !madeByRelation(def, throughs)).map((def) => entry(def, def.relations ?? [], false));
  const laterThroughs = sorted
    .filter((def) => madeByRelation(def, throughs) && (def.fields.some((field) => fieldInput(field) !== undefined) || (def.relations?.length ?? 0) > 0) && !needsRelations(def))
    .map((def) => entry(def, def.relations ?? [], true));
  // Indexes over key columns last, when every relation (whichever collection defines it) made its column.
  const lastly = sorted.filter((def) => needsRelations(def)).map((def) => entry(def, def.relations ?? [], true));
  return { collections: [...first, ...second, ...laterThroughs, ...lastly] };
}
