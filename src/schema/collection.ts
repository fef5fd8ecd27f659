import type { FieldType } from './field-type.js';
import { FIELD_TYPES } from './field-types/index.js';
import { nativeFieldType } from './native-type.js';
import { isBuiltInField, isSystemCollection } from './protected.js';
import { compileFieldValidator, type FieldValidator } from './field-validator.js';
import { decoderOf } from './row-decoder.js';
import { placeLinkColumns } from './link-columns.js';
import { systemRule } from './system-rules.js';
import { carriesGrants } from './system-collection-tables.js';
import { tableOf } from './table-of.js';
import type { CollectionDef, Dialect, FieldDef, JsonValue, RelationDef } from './types.js';

/** A field ready for requests: its definition with its type and validator resolved once. */
export interface Field {
  readonly name: string;
  /** The real column (`def.columnName`, else the name): every SQL identifier of this field is this. */
  readonly column: string;
  readonly def: FieldDef;
  readonly type: FieldType;
  readonly validate: FieldValidator;
  /** Never returned (password). */
  readonly hidden: boolean;
  /** Written by the system (or read-only: `def.readOnly`), ignored when a client sends it. */
  readonly system: boolean;
  /** May hold NULL: sorts need the NULLS LAST treatment only then. */
  readonly nullable: boolean;
  /** Written by the server only (an attachment's storage key, hash, size, type: schema/system-rules.ts); never by a client body. */
  readonly serverManaged: boolean;
  /** A field a system collection is made with: the collections API never drops or reshapes it (protected.ts). */
  readonly builtIn: boolean;
}

export type Row = Record<string, unknown>;

interface RelationBase {
  readonly name: string;
  readonly def: RelationDef;
  readonly source: Collection;
  readonly target: Collection;
  /**
   * The join column pair: a source row relates to the target rows whose `targetColumn`
   * equals its `sourceColumn` (through the junction for belongsToMany). The source column's
   * value is the association's anchor.
   */
  readonly sourceColumn: Field;
  readonly targetColumn: Field;
}

/** The key column is on the source: `source.foreignKey = target.targetKey`. */
export interface BelongsTo extends RelationBase {
  readonly type: 'belongsTo';
  readonly toMany: false;
  /** A field of the source (= sourceColumn). */
  readonly foreignKey: Field;
  /** The target field it copies (= targetColumn). */
  readonly targetKey: Field;
}

/** The key column is on the target: `target.foreignKey = source.sourceKey`. */
export interface HasOne extends RelationBase {
  readonly type: 'hasOne';
  readonly toMany: false;
  /** A field of the target (= targetColumn). */
  readonly foreignKey: Field;
  /** The source field it copies (= sourceColumn). */
  readonly sourceKey: Field;
}

export interface HasMany extends Omit<HasOne, 'type' | 'toMany'> {
  readonly type: 'hasMany';
  readonly toMany: true;
}

/** Rows of the junction pair them: `through.foreignKey = source.sourceKey`, `through.otherKey = target.targetKey`. */
export interface BelongsToMany extends RelationBase {
  readonly type: 'belongsToMany';
  readonly toMany: true;
  readonly through: Collection;
  /** The junction field pointing at the source. */
  readonly foreignKey: Field;
  /** The junction field pointing at the target. */
  readonly otherKey: Field;
  /** = sourceColumn */
  readonly sourceKey: Field;
  /** = targetColumn */
  readonly targetKey: Field;
}

/** A relation with both ends (and the junction) resolved to compiled collections and fields. */
export type Relation = BelongsTo | HasOne | HasMany | BelongsToMany;

/** The rows a link column's value names: those of `collection` whose `field` holds it. */
export interface LinkTarget {
  readonly collection: Collection;
  readonly field: Field;
}

export type Item = Record<string, JsonValue>;

/** A collection ready for requests, compiled from its definition at schema load. */
export interface Collection {
  readonly name: string;
  /** The real table (`def.tableName`, else the name; `schema.table` with a schema): every SQL identifier of this collection's table is this. */
  readonly table: string;
  readonly def: CollectionDef;
  /** `def.managed !== false`: Corral made the table and may change it. */
  readonly managed: boolean;
  /** One of Corral's own collections (users, roles…): the collections API never drops or renames it (protected.ts). */
  readonly system: boolean;
  /**
   * Its rows carry grants (users, roles, API keys, named scopes: GRANT_COLLECTIONS): the store
   * writes them one row at a time through their own actions and refuses a bulk write (an
   * import) into them; a role's strategy never covers them (auth/permissions.ts).
   */
  readonly carriesGrants: boolean;
  /** `def.view === true`: rows are read, never written. */
  readonly view: boolean;
  /** `def.filterTargetKey !== ''`: keys in paths and filterByTk have a field to match. */
  readonly keyed: boolean;
  /** Some field's column is not named like the field: selects alias it, writes map it (`selection`, `toColumns`). */
  readonly renamed: boolean;
  readonly fields: ReadonlyMap<string, Field>;
  readonly fieldList: readonly Field[];
  /** The primary key field. */
  readonly primaryKey: Field;
  /** The field keys in paths and filterByTk match (filterTargetKey); the first key field of a composite key. */
  readonly key: Field;
  /**
   * Every key field of a composite key (filterTargetKey a list: an unmanaged table's composite
   * primary key); undefined for one key field. filterByTk is then an object (bind-keys.ts).
   */
  readonly compositeKey: readonly Field[] | undefined;
  /** Fields returned when the request does not choose. */
  readonly visible: readonly Field[];
  /** Relation fields by name; linked once every collection of the snapshot is compiled. */
  readonly relations: ReadonlyMap<string, Relation>;
  /** Relations of the snapshot (any collection's) that point at this one as their target: who owns its rows (store/owned-rows.ts). */
  readonly inbound: readonly Relation[];
  /**
   * Every column of this collection that holds another row's key, with the rows it names
   * (schema/link-columns.ts): a belongsTo key, the key column of a hasMany/hasOne pointing here,
   * the two columns of a junction. A write of one needs the named row visible (the link rule).
   */
  readonly linkColumns: ReadonlyMap<string, readonly LinkTarget[]>;
  /** Driver row to wire item, for the given fields. */
  decode(row: Row, fields: readonly Field[]): Item;
}

export function compileCollection(def: CollectionDef, dialect: Dialect): Collection {
  const serverManaged = systemRule(def.name)?.serverManaged;
  const fieldList: Field[] = def.fields.map((fieldDef) => {
    const type = nativeFieldType(FIELD_TYPES[fieldDef.type], fieldDef, dialect);
    return {
      name: fieldDef.name,
      column: fieldDef.columnName ?? fieldDef.name,
      def: fieldDef,
      type,
      validate: compileFieldValidator(fieldDef),
      hidden: type.hidden === true,
      system: fieldDef.system !== undefined || fieldDef.readOnly === true,
      nullable: fieldDef.allowNull && fieldDef.primaryKey !== true,
      serverManaged: serverManaged?.has(fieldDef.name) === true,
      builtIn: isBuiltInField(def.name, fieldDef),
    };
  });
  const fields = new Map(fieldList.map((field) => [field.name, field]));
  const keyed = def.filterTargetKey !== '' && def.filterTargetKey.length !== 0;
  const compositeKey = Array.isArray(def.filterTargetKey) ? def.filterTargetKey.map((name) => fields.get(name)) : undefined;
  if (compositeKey !== undefined && (compositeKey.length < 2 || compositeKey.includes(undefined))) throw new Error(`collection ${def.name} has a composite key on missing fields`);
  // A keyless view orders and tells rows apart by its first field (best effort: docs/existing-databases.md).
  const key = compositeKey !== undefined ? compositeKey[0] : keyed ? fields.get(def.filterTargetKey as string) : fieldList[0];
  const primaryKey = fieldList.find((field) => field.def.primaryKey === true) ?? (keyed && def.managed !== false ? undefined : key);
  if (primaryKey === undefined || key === undefined) throw new Error(`collection ${def.name} has no usable key`);
  return {
    name: def.name,
    table: tableOf(def),
    def,
    managed: def.managed !== false,
    system: isSystemCollection(def.name),
    carriesGrants: carriesGrants(def.name),
    view: def.view === true,
    keyed,
    renamed: fieldList.some((field) => field.column !== field.name),
    fields,
    fieldList,
    primaryKey,
    key,
    // Always present (undefined for one key field): every collection object has one shape.
    compositeKey: compositeKey as Field[] | undefined,
    visible: fieldList.filter((field) => !field.hidden),
    relations: new Map<string, Relation>(),
    inbound: [],
    linkColumns: new Map(),
    decode(row, selected) {
      const compiled = decoderOf(selected, dialect);
      if (compiled !== undefined) return compiled(row);
      const item: Item = {};
      // An indexed loop: the whole shape's list is frozen (and decoded here when it is too wide to
      // compile), and V8 does not inline for-of over a frozen array.
      for (let i = 0; i < selected.length; i++) {
        const field = selected[i]!;
        const raw = row[field.name];
        item[field.name] = raw === null || raw === undefined ? null : field.type.fromDb(raw, dialect, field.def);
      }
      return item;
    },
  };
}

/**
 * A field in a select list, the result keyed by the field name: `t.title`, or
 * `t.Customer Name as customerName` when the column is named otherwise. Kysely parses the
 * string (names hold no `.`: normalize-collection.ts refuses them).
 */
export function selection(field: Field, qualifier?: string): string {
  const ref = qualifier === undefined ? field.column : `${qualifier}.${field.column}`;
  return field.column === field.name ? ref : `${ref} as ${field.name}`;
}

/** A row keyed by field names, keyed by column names instead (the same object when nothing is renamed). */
export function toColumns(collection: Collection, row: Record<string, unknown>): Record<string, unknown> {
  if (!collection.renamed) return row;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(row)) out[collection.fields.get(name)?.column ?? name] = row[name];
  return out;
}

/** Links the relations of every collection; run once all of them are compiled. */
export function linkRelations(collections: ReadonlyMap<string, Collection>): void {
  for (const source of collections.values()) {
    const relations = source.relations as Map<string, Relation>;
    for (const def of source.def.relations ?? []) {
      const target = collections.get(def.target);
      const through = def.through === undefined ? undefined : collections.get(def.through);
      if (target === undefined || (def.through !== undefined && through === undefined)) {
        throw new Error(`relation ${source.name}.${def.name} points at a missing collection`);
      }
      const relation = linkRelation(source, target, through, def);
      relations.set(def.name, relation);
      (target.inbound as Relation[]).push(relation);
    }
  }
  placeLinkColumns([...collections.values()].flatMap((collection) => [...collection.relations.values()]));
}

function linkRelation(source: Collection, target: Collection, through: Collection | undefined, def: RelationDef): Relation {
  const field = (collection: Collection, name: string | undefined, role: string): Field => {
    const found = name === undefined ? undefined : collection.fields.get(name);
    if (found === undefined) throw new Error(`relation ${source.name}.${def.name} has no ${role} column ${name ?? '(unset)'} in ${collection.name}`);
    return found;
  };
  const base = { name: def.name, def, source, target };
  switch (def.type) {
    case 'belongsTo': {
      const foreignKey = field(source, def.foreignKey, 'foreign key');
      const targetKey = field(target, def.targetKey, 'target key');
      return { ...base, type: 'belongsTo', toMany: false, foreignKey, targetKey, sourceColumn: foreignKey, targetColumn: targetKey };
    }
    case 'hasOne':
    case 'hasMany': {
      const foreignKey = field(target, def.foreignKey, 'foreign key');
      const sourceKey = field(source, def.sourceKey, 'source key');
      const ends = { ...base, foreignKey, sourceKey, sourceColumn: sourceKey, targetColumn: foreignKey };
      return def.type === 'hasOne' ? { ...ends, type: 'hasOne', toMany: false } : { ...ends, type: 'hasMany', toMany: true };
    }
    case 'belongsToMany': {
      if (through === undefined) throw new Error(`relation ${source.name}.${def.name} has no through collection`);
      const sourceKey = field(source, def.sourceKey, 'source key');
      const targetKey = field(target, def.targetKey, 'target key');
      return {
        ...base,
        type: 'belongsToMany',
        toMany: true,
        through,
        foreignKey: field(through, def.foreignKey, 'foreign key'),
        otherKey: field(through, def.otherKey, 'other key'),
        sourceKey,
        targetKey,
        sourceColumn: sourceKey,
        targetColumn: targetKey,
      };
    }
  }
}
