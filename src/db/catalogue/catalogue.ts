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
  /** CHECK constraints (tables only; always set by the readers, optional so hand-made catalogues need not; MariaDB's own `json_valid` checks of JSON columns included). */
  checks?: CatalogueCheck[];
  comment?: string;
}

export interface CatalogueCheck {
  /** The constraint's name where the database keeps one (SQLite: only when written as `CONSTRAINT name CHECK`). */
  name?: string;
  /** The condition without the `CHECK` keyword or its outer parentheses, as the catalogue spells it. */
  expression: string;
}

export interface CatalogueColumn {
  name: string;
  /** The type as the catalogue spells it, lower case, with its arguments: `numeric(12,2)`, `enum('a','b')`, `integer[]`, `tinyint(1)`. */
  rawType: string;
  /**
   * The base type without arguments, lower case: `numeric`, `enum`, `integer`, `character varying`.
   * Arrays (PostgreSQL) are `array` with `elementType` set; PostgreSQL enum types and MySQL
   * `enum` are `enum`, MySQL `set` is `set` (both with `enumValues`); a PostgreSQL domain is its
   * base type; an untyped SQLite column is `''`. MariaDB's JSON (a longtext with a `json_valid`
   * check) is `json`, as on MySQL.
   */
  baseType: string;
  nullable: boolean;
  /**
   * Default expression as the catalogue spells it (`'retail'::text`, `now()`, `CURRENT_TIMESTAMP`,
   * `nextval('product_id_seq'::regclass)`); undefined when none. MySQL's unquoted literal defaults
   * are quoted into an expression, so `'retail'` means the string on every dialect.
   */
  defaultSql?: string;
  /** Auto-numbered: serial / identity (ALWAYS or BY DEFAULT) / AUTO_INCREMENT / SQLite INTEGER PRIMARY KEY (the rowid alias, with or without AUTOINCREMENT). */
  autoIncrement: boolean;
  /** GENERATED ALWAYS AS (…) (stored or virtual) or GENERATED ALWAYS AS IDENTITY: never written by clients (BY DEFAULT identity is writable, so not generated). */
  generated: boolean;
  /** varchar(n) / char(n) / binary(n) / bit(n) length, as declared. */
  length?: number;
  /** numeric/decimal(p, s) precision and scale (scale 0 when only p is given); time/timestamp/datetime(p) fractional digits (no scale). */
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
  /**
   * The referenced table (same schema; keys into other schemas are left out) and its columns, in
   * the same order. The table may be one that include/exclude left out of the catalogue.
   */
  referencedTable: string;
  referencedColumns: string[];
  onDelete: 'CASCADE' | 'SET NULL' | 'RESTRICT' | 'NO ACTION' | 'SET DEFAULT';
}
