import type { Catalogue, CatalogueColumn, CatalogueTable } from '../db/catalogue/catalogue.js';
import { isCorralTable } from '../db/catalogue/catalogue-filter.js';
import { literalDefault } from './introspect-defaults.js';
import { collectionBaseName, fieldBaseName, NameRegistry } from './introspect-names.js';
import { planRelations } from './introspect-relations.js';
import { isSkipped, mapColumnType } from './introspect-types.js';
import { NAME_PATTERN, ID_TYPES, type CollectionDef, type Dialect, type FieldDef, type IdType, type IndexDef } from './types.js';

/**
 * Catalogue → collection definitions (issue 30, docs/existing-databases.md): pure, so the
 * same catalogue always gives the same definitions, and a sync keeps every name it gave before.
 */

export interface IntrospectOptions {
  readonly dialect: Dialect;
  /**
   * Unmanaged definitions registered before (a previous sync, or a schema file's renames):
   * their collection, field and relation names are kept for the same tables and columns.
   */
  readonly previous?: readonly CollectionDef[];
  /** Names the result may not take: the managed collections (their tables are left out too). */
  readonly taken?: readonly string[];
  /** Tables never offered (Corral's own); by default those starting with `corral_`. */
  readonly isSystemTable?: (table: string) => boolean;
  /** PostgreSQL: the schema read, when it is not the connection's own (set on every definition). */
  readonly schema?: string;
}

/** What was not offered, and why (a table Corral made, a column of a type no field serves, a composite foreign key). */
export interface IntrospectNote {
  readonly table: string;
  readonly column?: string;
  readonly reason: string;
}

export interface Introspected {
  readonly collections: CollectionDef[];
  readonly notes: IntrospectNote[];
}


/** What the relation planner needs of each mapped table. */
export interface MappedTable {
  readonly table: CatalogueTable;
  readonly def: CollectionDef;
  /** column name → field name (mapped columns only). */
  readonly fieldOf: ReadonlyMap<string, string>;
  readonly names: NameRegistry;
}

export function introspectCollections(catalogue: Catalogue, options: IntrospectOptions): Introspected {
  const notes: IntrospectNote[] = [];
  const previous = new Map((options.previous ?? []).filter((def) => def.managed === false).map((def) => [def.tableName ?? def.name, def]));
  const managed = new Set((options.taken ?? []).map((name) => name.toLowerCase()));
  const system = options.isSystemTable ?? isCorralTable;
  const tables = catalogue.tables.filter((table) => {
    if (system(table.name)) return false;
    // A managed collection's own table (users, roles, what collections:create made): served already.
    return !managed.has(table.name.toLowerCase()) || previous.has(table.name);
  });
  const collectionNames = new NameRegistry(options.taken ?? []);
  const nameOf = assignNames(tables.map((table) => table.name), (table) => previous.get(table)?.name, collectionBaseName, collectionNames);
  const mapped: MappedTable[] = [];
  for (const table of [...tables].sort((a, b) => compare(nameOf.get(a.name)!, nameOf.get(b.name)!))) {
    const result = mapTable(table, nameOf.get(table.name)!, options.dialect, options.schema, previous.get(table.name), notes);
    if (result !== undefined) mapped.push(result);
  }
  planRelations(mapped, previous, notes);
  return { collections: mapped.map((entry) => entry.def), notes };
}

export const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Names for originals: first the ones kept from before, then the originals that are valid
 * names as they are, then the rest made valid, each group in code-point order, so what a
 * name becomes does not depend on the order the catalogue listed them.
 */
export function assignNames(
  originals: readonly string[],
  kept: (original: string) => string | undefined,
  base: (original: string) => string,
  registry: NameRegistry,
): Map<string, string> {
  const names = new Map<string, string>();
  const sorted = [...originals].sort(compare);
  for (const original of sorted) {
    const name = kept(original);
    if (name !== undefined && NAME_PATTERN.test(name) && registry.claim(name)) names.set(original, name);
  }
  const asIs = sorted.filter((original) => !names.has(original) && base(original) === original);
  const changed = sorted.filter((original) => !names.has(original) && base(original) !== original);
  for (const original of [...asIs, ...changed]) names.set(original, registry.take(base(original)));
  return names;
}

function mapTable(table: CatalogueTable, name: string, dialect: Dialect, schema: string | undefined, before: CollectionDef | undefined, notes: IntrospectNote[]): MappedTable | undefined {
  const isView = table.kind !== 'table';
  const singleKey = table.primaryKey.length === 1 ? table.primaryKey[0] : undefined;
  const uniqueColumns = new Set(table.uniques.filter((columns) => columns.length === 1).map((columns) => columns[0]!));
  const indexColumns = new Set(table.indexes.filter((index) => index.columns.length === 1).map((index) => index.columns[0]!));
  const names = new NameRegistry();
  const previousField = new Map((before?.fields ?? []).map((field) => [field.columnName ?? field.name, field.name]));
  const kept = table.columns.filter((column) => {
    const mapping = mapColumnType(dialect, column);
    if (!isSkipped(mapping)) return true;
    notes.push({ table: table.name, column: column.name, reason: `${column.rawType}: ${mapping.skip}` });
    return false;
  });
  if (kept.length === 0) {
    notes.push({ table: table.name, reason: 'no column of a type Corral serves' });
    return undefined;
  }
  const fieldOf = assignNames(kept.map((column) => column.name), (column) => previousField.get(column), fieldBaseName, names);
  const fields = kept.map((column) => mapColumn(column, fieldOf.get(column.name)!, dialect, {
    view: isView,
    primaryKey: table.primaryKey.includes(column.name),
    unique: uniqueColumns.has(column.name) || singleKey === column.name,
    index: indexColumns.has(column.name),
  }));
  const keyColumn = isView ? undefined : singleKey ?? keyFromUniques(table, kept);
  // A composite primary key whose every column is served: filterByTk is an object of its fields (bind-keys.ts).
  const compositeKey = !isView && table.primaryKey.length > 1 && table.primaryKey.every((column) => fieldOf.has(column)) ? table.primaryKey.map((column) => fieldOf.get(column)!) : undefined;
  if (table.primaryKey.length > 1 && compositeKey === undefined) notes.push({ table: table.name, reason: `composite primary key (${table.primaryKey.join(', ')}) with a column not served: served without a key (lists and filters; not by key)` });
  else if (table.primaryKey.length <= 1 && !isView && keyColumn === undefined) notes.push({ table: table.name, reason: 'no primary key: served without a key (lists and filters; not by key)' });
  const keyField = keyColumn === undefined ? undefined : fieldOf.get(keyColumn);
  const keyDef = fields.find((field) => field.name === keyField);
  const idType: IdType = keyDef !== undefined && (ID_TYPES as readonly string[]).includes(keyDef.type) ? (keyDef.type as IdType) : 'integer';
  const def: CollectionDef = {
    name,
    managed: false,
    timestamps: false,
    autoGenId: false,
    idType,
    // A single not-null unique column stays the key (as before); else the composite primary key.
    filterTargetKey: keyField ?? compositeKey ?? '',
    fields,
    relations: [],
  };
  if (name !== table.name) def.tableName = table.name;
  if (schema !== undefined) def.schema = schema;
  if (isView) def.view = true;
  if (table.comment !== undefined && table.comment !== '') def.description = table.comment;
  const field = (column: string): string | undefined => fieldOf.get(column);
  const uniques = table.uniques.filter((columns) => columns.length > 1 && columns.every((column) => field(column) !== undefined)).map((columns) => columns.map((column) => field(column)!));
  if (uniques.length > 0) def.uniques = uniques;
  const indexes: IndexDef[] = table.indexes
    .filter((index) => index.columns.length > 1 && index.columns.every((column) => field(column) !== undefined))
    .map((index) => ({ name: index.name, fields: index.columns.map((column) => field(column)!), unique: false }));
  if (indexes.length > 0) def.indexes = indexes;
  return { table, def, fieldOf, names };
}

/** A table without a primary key is keyed by a unique column that holds no NULL, when it has one. */
function keyFromUniques(table: CatalogueTable, columns: readonly CatalogueColumn[]): string | undefined {
  const required = new Set(columns.filter((column) => !column.nullable).map((column) => column.name));
  return table.uniques.find((unique) => unique.length === 1 && required.has(unique[0]!))?.[0];
}

interface ColumnRole {
  view: boolean;
  primaryKey: boolean;
  unique: boolean;
  index: boolean;
}

function mapColumn(column: CatalogueColumn, name: string, dialect: Dialect, role: ColumnRole): FieldDef {
  const mapping = mapColumnType(dialect, column);
  if (isSkipped(mapping)) throw new Error(`column ${column.name} is left out`);
  const field: FieldDef = { name, type: mapping.type, allowNull: column.nullable, unique: false, index: false, rawType: column.rawType };
  if (name !== column.name) field.columnName = column.name;
  // What the database has, whatever the type: no DDL is made from these.
  if (role.primaryKey) {
    field.primaryKey = true;
    field.allowNull = false;
  } else if (role.unique) field.unique = true;
  else if (role.index) field.index = true;
  if (mapping.length !== undefined) field.length = mapping.length;
  if (mapping.precision !== undefined) field.precision = mapping.precision;
  if (mapping.scale !== undefined) field.scale = mapping.scale;
  if (mapping.enum !== undefined) field.enum = mapping.enum;
  if (column.autoIncrement && !column.generated) field.autoIncrement = true;
  if (column.generated || mapping.readOnly === true || role.view) field.readOnly = true;
  if (column.comment !== undefined && column.comment !== '') field.description = column.comment;
  const fallback = literalDefault(column.defaultSql, field);
  if (fallback !== undefined) field.defaultValue = fallback;
  // An expression (`now()`, `gen_random_uuid()`): the database fills the column when a create leaves it out.
  else if (column.defaultSql !== undefined && !/^null$/i.test(column.defaultSql.trim())) field.defaultSql = column.defaultSql;
  return field;
}
