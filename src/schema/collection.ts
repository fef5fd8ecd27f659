import type { FieldType } from './field-type.js';
import { FIELD_TYPES } from './field-types/index.js';
import { compileFieldValidator, type FieldValidator } from './field-validator.js';
import type { CollectionDef, Dialect, FieldDef, JsonValue } from './types.js';

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
