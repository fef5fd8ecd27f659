import type { FieldType } from './field-type.js';
import { FIELD_TYPES } from './field-types/index.js';
import { compileFieldValidator, type FieldValidator } from './field-validator.js';
import type { CollectionDef, Dialect, FieldDef, JsonValue, RelationDef, RelationType } from './types.js';

/** A field ready for requests: its definition with its type and validator resolved once. */
export interface Field {
  readonly name: string;
  readonly def: FieldDef;
  readonly type: FieldType;
  readonly validate: FieldValidator;
  /** Never returned (password). */
  readonly hidden: boolean;
  /** Written by the system, ignored when a client sends it. */
  readonly system: boolean;
  /** May hold NULL: sorts need the NULLS LAST treatment only then. */
  readonly nullable: boolean;
}

export type Row = Record<string, unknown>;

/** A relation with both ends (and the through collection) resolved to compiled collections. */
export interface Relation {
  readonly name: string;
  readonly def: RelationDef;
  readonly type: RelationType;
  readonly toMany: boolean;
  readonly source: Collection;
  readonly target: Collection;
  readonly through?: Collection;
  /** belongsTo: a field of the source; hasOne/hasMany: of the target; belongsToMany: of the through. */
  readonly foreignKey: Field;
  /** The source field the foreign key copies (hasOne, hasMany, belongsToMany). */
  readonly sourceKey?: Field;
  /** The target field the foreign key (belongsTo) or otherKey (belongsToMany) copies. */
  readonly targetKey?: Field;
  /** belongsToMany: the through field pointing at the target. */
  readonly otherKey?: Field;
}
export type Item = Record<string, JsonValue>;

/** A collection ready for requests, compiled from its definition at schema load. */
export interface Collection {
  readonly name: string;
  readonly def: CollectionDef;
  readonly fields: ReadonlyMap<string, Field>;
  readonly fieldList: readonly Field[];
  /** The primary key field. */
  readonly primaryKey: Field;
  /** The field keys in paths and filterByTk match (filterTargetKey). */
  readonly key: Field;
  /** Fields returned when the request does not choose. */
  readonly visible: readonly Field[];
  /** Relation fields by name; linked once every collection of the snapshot is compiled. */
  readonly relations: ReadonlyMap<string, Relation>;
  /** Driver row to wire item, for the given fields. */
  decode(row: Row, fields: readonly Field[]): Item;
}

export function compileCollection(def: CollectionDef, dialect: Dialect): Collection {
  const fieldList: Field[] = def.fields.map((fieldDef) => {
    const type = FIELD_TYPES[fieldDef.type];
    return {
      name: fieldDef.name,
      def: fieldDef,
      type,
      validate: compileFieldValidator(fieldDef),
      hidden: type.hidden === true,
      system: fieldDef.system !== undefined,
      nullable: fieldDef.allowNull && fieldDef.primaryKey !== true,
    };
  });
  const fields = new Map(fieldList.map((field) => [field.name, field]));
  const primaryKey = fieldList.find((field) => field.def.primaryKey === true);
  const key = fields.get(def.filterTargetKey);
  if (primaryKey === undefined || key === undefined) throw new Error(`collection ${def.name} has no usable key`);
  return {
    name: def.name,
    def,
    fields,
    fieldList,
    primaryKey,
    key,
    visible: fieldList.filter((field) => !field.hidden),
    relations: new Map<string, Relation>(),
    decode(row, selected) {
      const item: Item = {};
      for (const field of selected) {
        const raw = row[field.name];
        item[field.name] = raw === null || raw === undefined ? null : field.type.fromDb(raw, dialect, field.def);
      }
      return item;
    },
  };
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
      const owner = def.type === 'belongsTo' ? source : def.type === 'belongsToMany' ? through! : target;
      const field = (collection: Collection, name: string | undefined): Field | undefined =>
        name === undefined ? undefined : collection.fields.get(name);
      const foreignKey = field(owner, def.foreignKey);
      if (foreignKey === undefined) throw new Error(`relation ${source.name}.${def.name} has no key column ${def.foreignKey}`);
      const relation: Relation = {
        name: def.name,
        def,
        type: def.type,
        toMany: def.type === 'hasMany' || def.type === 'belongsToMany',
        source,
        target,
        foreignKey,
        ...(through === undefined ? {} : { through }),
        ...(def.sourceKey === undefined ? {} : { sourceKey: field(source, def.sourceKey)! }),
        ...(def.targetKey === undefined ? {} : { targetKey: field(target, def.targetKey)! }),
        ...(def.otherKey === undefined ? {} : { otherKey: field(through!, def.otherKey)! }),
      };
      relations.set(def.name, relation);
    }
  }
}
