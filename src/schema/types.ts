/** Closed vocabularies and the stored (normalized) shape of collections and fields. */

export const SCALAR_TYPES = [
  'string', 'text', 'integer', 'bigInt', 'float', 'double', 'decimal', 'boolean', 'date', 'dateOnly',
  'time', 'json', 'array', 'uuid', 'nanoid', 'password', 'sort',
] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];

export const RELATION_TYPES = ['belongsTo', 'hasOne', 'hasMany', 'belongsToMany'] as const;
export type RelationType = (typeof RELATION_TYPES)[number];

export type FieldTypeName = ScalarType | RelationType;

export const ID_TYPES = ['integer', 'bigInt', 'uuid', 'nanoid'] as const;
export type IdType = (typeof ID_TYPES)[number];

import type { JsonValue } from '../json-value.js';
export type { Dialect } from '../db/dialect.js';

export type { JsonValue } from '../json-value.js';

/**
 * What NocoBase's admin UI keeps on a field besides its definition (see ui-options.ts):
 * stored and returned as sent, no effect on columns, values or validation.
 */
export interface FieldUi {
  interface?: string;
  uiSchema?: JsonValue;
  translation?: JsonValue;
  isForeignKey?: JsonValue;
  deletable?: JsonValue;
}

/** A scalar field as stored in the system table, every option resolved. */
export interface FieldDef extends FieldUi {
  name: string;
  type: ScalarType;
  title?: string;
  description?: string;
  allowNull: boolean;
  unique: boolean;
  index: boolean;
  defaultValue?: JsonValue;
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: JsonValue[];
  /** string: varchar length. */
  length?: number;
  /** decimal */
  precision?: number;
  scale?: number;
  /** string, text: words are indexed for `$search` and `?q=`. */
  searchable?: boolean;
  /** Set by the system for id, createdAt, updatedAt. */
  primaryKey?: boolean;
  autoIncrement?: boolean;
  system?: 'id' | 'createdAt' | 'updatedAt';
  /** Set on a foreign key column that a relation created (see RelationDef). */
  references?: { collection: string; key: string; onDelete: OnDelete };
  /**
   * Unmanaged collections (issue 30): the real column when its name is not the field name
   * (spaces, mixed case, reserved words). Absent: the column is named like the field.
   */
  columnName?: string;
  /**
   * Never written by clients: generated and identity columns, columns of unknown type, every
   * column of a view. A value sent for it is ignored, as for the automatic fields
   * (docs/existing-databases.md).
   */
  readOnly?: true;
  /** The column's type as the database's catalogue spells it, kept for unknown types (`inet`, `set('a','b')`). */
  rawType?: string;
  /**
   * Unmanaged: the column's default expression as the catalogue spells it (`now()`,
   * `nextval(…)`): the database fills the column when a create leaves it out, so it is not
   * required even when `allowNull` is false. Shown, never evaluated by Corral.
   */
  defaultSql?: string;
}

export const ON_DELETE = ['SET NULL', 'CASCADE', 'RESTRICT'] as const;
export type OnDelete = (typeof ON_DELETE)[number];

/**
 * A relation field with every key resolved. Which keys apply depends on the type:
 * - belongsTo: `foreignKey` is a column of the source, pointing at the target's `targetKey`.
 * - hasOne / hasMany: `foreignKey` is a column of the target, pointing at the source's `sourceKey`.
 * - belongsToMany: the `through` collection holds `foreignKey` (→ source `sourceKey`) and
 *   `otherKey` (→ target `targetKey`).
 */
export interface RelationDef extends FieldUi {
  name: string;
  type: RelationType;
  title?: string;
  description?: string;
  target: string;
  foreignKey: string;
  sourceKey?: string;
  targetKey?: string;
  through?: string;
  otherKey?: string;
  onDelete: OnDelete;
  /** hasMany: a `sort` field of the target (`<foreignKey>Sort`) orders the associated rows. */
  sortable?: boolean;
  /** hasMany / belongsToMany: the target field(s) the association is ordered by. */
  sortBy?: string | string[];
  /** An attachment field (a belongsToMany to `attachments`, schema/attachment-field.ts): one file or many, and the MIME types it takes. */
  attachment?: { multiple: boolean; accept?: string[] };
}

export interface CollectionDef {
  name: string;
  /**
   * `false`: a table Corral did not create (issue 30). Corral never runs DDL on it: schema
   * changes answer 409 SCHEMA_NOT_MANAGED (relation metadata over existing key columns
   * excepted) and destroying the collection only forgets its definition. Absent: managed.
   */
  managed?: false;
  /** The real table (or view) name when it is not `name`; may hold spaces and mixed case. Unmanaged only. */
  tableName?: string;
  /** PostgreSQL: the schema holding the table, when not the connection's default. Unmanaged only. */
  schema?: string;
  /** A view or materialized view: read-only (every write answers 405 COLLECTION_READ_ONLY). Unmanaged only. */
  view?: true;
  title?: string;
  description?: string;
  timestamps: boolean;
  /** `createdBy: true`: a belongsTo `createdBy` to users (`createdById`), stamped on create (stamp-options.ts). */
  createdBy?: true;
  /** `updatedBy: true`: a belongsTo `updatedBy` to users (`updatedById`), stamped on every write. */
  updatedBy?: true;
  autoGenId: boolean;
  idType: IdType;
  /**
   * The field keys in paths and filterByTk match. `''` only for a view (or unmanaged table)
   * with no key: lists work, reads and writes by key answer 400 COLLECTION_HAS_NO_KEY. A list of
   * two or more fields only for an unmanaged table with a composite primary key: filterByTk is then
   * an object of every key field (`filterByTk[a]=1&filterByTk[b]=2`, NocoBase's multi filter target key).
   */
  filterTargetKey: string | string[];
  fields: FieldDef[];
  /** Relation fields; absent in definitions stored before relations existed. */
  relations?: RelationDef[];
  /** Multi-column unique constraints (a through collection's pair of keys). */
  uniques?: string[][];
  /** Indexes over one or more fields (`indexes` option, collections:setIndexes): stored with the definition. */
  indexes?: IndexDef[];
  /** `sortable` as sent: the `sort` field it made is among `fields`. */
  sortable?: JsonValue;
  /** NocoBase options that only steer its UI (logging, hidden, category…): stored and returned. */
  options?: Record<string, JsonValue>;
}

/** One entry of a collection's `indexes`, every option resolved (collection-indexes.ts). */
export interface IndexDef {
  name: string;
  fields: string[];
  unique: boolean;
}

export const NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
