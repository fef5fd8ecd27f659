/**
 * What a database's own catalogue says about its tables, in one shape for every dialect
 * (issue 30, docs/existing-databases.md). Readers in this folder fill it from
 * information_schema / pg_catalog / sqlite_master; schema/introspect-* turns it into collections.
 * Names are exactly as the database spells them (case and spaces kept).
 */
export interface Catalogue {
  /** PostgreSQL schema, MySQL database, or `main` for SQLite. */
  schema: string;
  tables: CatalogueTable[];
}

export interface CatalogueTable {
  name: string;
  /** `table`; `view` and `materializedView` are read-only. */
  kind: 'table' | 'view' | 'materializedView';
  columns: CatalogueColumn[];
  /** Column names of the primary key in key order; empty when the table has none (views). */
  primaryKey: string[];
  /** Unique constraints and unique indexes (the primary key not repeated), each a column list. */
  uniques: string[][];
  /** Non-unique indexes over plain columns (expression indexes left out). */
  indexes: { name: string; columns: string[] }[];
  foreignKeys: CatalogueForeignKey[];
  comment?: string;
}

export interface CatalogueColumn {
  name: string;
  /** The type as the catalogue spells it, lower case, with its arguments: `numeric(12,2)`, `enum('a','b')`, `integer[]`, `tinyint(1)`. */
  rawType: string;
  /** The base type without arguments, lower case: `numeric`, `enum`, `integer` (arrays: `elementType` set). */
  baseType: string;
  nullable: boolean;
  /** Default expression as the catalogue spells it; undefined when none. */
  defaultSql?: string;
  /** Auto-numbered: serial / identity / AUTO_INCREMENT / SQLite INTEGER PRIMARY KEY. */
  autoIncrement: boolean;
  /** GENERATED ALWAYS AS (…) (stored or virtual) or GENERATED ALWAYS AS IDENTITY: never written by clients. */
  generated: boolean;
  /** varchar(n) / char(n) length. */
  length?: number;
  precision?: number;
  scale?: number;
  /** MySQL enum/set members, PostgreSQL enum type labels. */
  enumValues?: string[];
  /** Array columns (PostgreSQL): the element's base type. */
  elementType?: string;
  comment?: string;
}

export interface CatalogueForeignKey {
  name?: string;
  /** Columns of this table, in order. */
  columns: string[];
  /** The referenced table (same schema) and its columns, in the same order. */
  referencedTable: string;
  referencedColumns: string[];
  onDelete: 'CASCADE' | 'SET NULL' | 'RESTRICT' | 'NO ACTION' | 'SET DEFAULT';
}
