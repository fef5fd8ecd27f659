import type { CatalogueColumn } from '../db/catalogue/catalogue.js';
import { MAX_DECIMAL_PRECISION, MAX_DECIMAL_SCALE, MAX_STRING_LENGTH } from './normalize-field.js';
import type { Dialect, ScalarType } from './types.js';

/**
 * Which Corral type serves a column of an existing table, per dialect (the table in
 * docs/existing-databases.md#types). A column is mapped to a type only where the type reads and
 * writes the column's own storage exactly as the dialect adapter does for Corral's columns;
 * otherwise it is served read-only as text, or left out (binary and spatial values, which no
 * Corral type decodes).
 */
export interface MappedType {
  readonly type: ScalarType;
  /** Served, never written: the value as the driver reads it, as text (or JSON). */
  readonly readOnly?: true;
  readonly length?: number;
  readonly precision?: number;
  readonly scale?: number;
  readonly enum?: string[];
}

/** Left out of the collection, with the reason the sync report and the docs give. */
export interface SkippedColumn {
  readonly skip: string;
}

export type ColumnMapping = MappedType | SkippedColumn;

export const isSkipped = (mapping: ColumnMapping): mapping is SkippedColumn => 'skip' in mapping;

const BINARY: SkippedColumn = { skip: 'binary values are not served' };
const SPATIAL: SkippedColumn = { skip: 'spatial values are not served' };
const readOnlyText: MappedType = { type: 'string', readOnly: true, length: MAX_STRING_LENGTH };

/** varchar(n) / char(n): a `string` of that length; without one, or longer than a string may be, `text`. */
function characters(column: CatalogueColumn): MappedType {
  const length = column.length;
  if (length === undefined || length < 1 || length > MAX_STRING_LENGTH) return { type: 'text' };
  return { type: 'string', length };
}

/** numeric(p,s): a `decimal` of that precision and scale; unconstrained, the widest one Corral allows. */
function decimal(column: CatalogueColumn): MappedType {
  const precision = Math.min(column.precision ?? MAX_DECIMAL_PRECISION, MAX_DECIMAL_PRECISION);
  const scale = Math.min(column.scale ?? (column.precision === undefined ? MAX_DECIMAL_SCALE : 0), MAX_DECIMAL_SCALE, precision);
  return { type: 'decimal', precision, scale };
}

function enumeration(column: CatalogueColumn): MappedType {
  const values = column.enumValues ?? [];
  if (values.length === 0) return readOnlyText;
  const length = Math.max(1, ...values.map((value) => [...value].length));
  return { type: 'string', length: Math.min(length, MAX_STRING_LENGTH), enum: values };
}

const fixed = (type: ScalarType): ((column: CatalogueColumn) => MappedType) => () => ({ type });

type Mapper = (column: CatalogueColumn) => ColumnMapping;

const POSTGRES: Readonly<Record<string, Mapper>> = {
  smallint: fixed('integer'), int2: fixed('integer'), integer: fixed('integer'), int: fixed('integer'), int4: fixed('integer'),
  serial: fixed('integer'), serial4: fixed('integer'), smallserial: fixed('integer'), serial2: fixed('integer'),
  bigint: fixed('bigInt'), int8: fixed('bigInt'), bigserial: fixed('bigInt'), serial8: fixed('bigInt'),
  boolean: fixed('boolean'), bool: fixed('boolean'),
  'character varying': characters, varchar: characters, character: characters, char: characters, bpchar: characters,
  text: fixed('text'), citext: fixed('text'), name: fixed('text'),
  numeric: decimal, decimal,
  real: fixed('float'), float4: fixed('float'), 'double precision': fixed('double'), float8: fixed('double'),
  date: fixed('dateOnly'),
  time: fixed('time'), 'time without time zone': fixed('time'),
  // `timestamp` without a zone is read as UTC: Corral's sessions and the docs say so.
  timestamp: fixed('date'), 'timestamp without time zone': fixed('date'), timestamptz: fixed('date'), 'timestamp with time zone': fixed('date'),
  json: fixed('json'), jsonb: fixed('json'),
  uuid: fixed('uuid'),
  enum: enumeration,
  bytea: () => BINARY,
  geometry: () => SPATIAL, geography: () => SPATIAL, point: () => SPATIAL, line: () => SPATIAL, lseg: () => SPATIAL,
  box: () => SPATIAL, path: () => SPATIAL, polygon: () => SPATIAL, circle: () => SPATIAL,
};

const MYSQL: Readonly<Record<string, Mapper>> = {
  // tinyint(1) is MySQL's boolean (BOOLEAN is a synonym the catalogue spells so).
  tinyint: (column) => (/^tinyint\(1\)/.test(column.rawType) ? { type: 'boolean' } : { type: 'integer' }),
  boolean: fixed('boolean'), bool: fixed('boolean'),
  smallint: fixed('integer'), mediumint: fixed('integer'), year: fixed('integer'),
  // An unsigned int reaches 4294967295, past a 32-bit integer.
  int: (column) => ({ type: /unsigned/.test(column.rawType) ? 'bigInt' : 'integer' }),
  integer: (column) => ({ type: /unsigned/.test(column.rawType) ? 'bigInt' : 'integer' }),
  bigint: fixed('bigInt'),
  decimal, numeric: decimal, dec: decimal, fixed: decimal,
  float: fixed('float'), double: fixed('double'), 'double precision': fixed('double'), real: fixed('double'),
  char: characters, varchar: characters,
  tinytext: fixed('text'), text: fixed('text'), mediumtext: fixed('text'), longtext: fixed('text'),
  json: fixed('json'),
  date: fixed('dateOnly'), time: fixed('time'), datetime: fixed('date'), timestamp: fixed('date'),
  enum: enumeration,
  // A set holds several members as one comma list: served as that text, read-only.
  set: () => readOnlyText,
  uuid: fixed('uuid'),
  binary: () => BINARY, varbinary: () => BINARY, tinyblob: () => BINARY, blob: () => BINARY, mediumblob: () => BINARY, longblob: () => BINARY, bit: () => BINARY,
  geometry: () => SPATIAL, point: () => SPATIAL, linestring: () => SPATIAL, polygon: () => SPATIAL, multipoint: () => SPATIAL,
  multilinestring: () => SPATIAL, multipolygon: () => SPATIAL, geometrycollection: () => SPATIAL,
};

const SQLITE: Readonly<Record<string, Mapper>> = {
  integer: fixed('integer'), int: fixed('integer'), smallint: fixed('integer'), tinyint: fixed('integer'), mediumint: fixed('integer'),
  bigint: fixed('bigInt'), int8: fixed('bigInt'),
  boolean: fixed('boolean'), bool: fixed('boolean'),
  varchar: characters, 'character varying': characters, nvarchar: characters, char: characters, nchar: characters,
  character: characters, 'varying character': characters, 'native character': characters,
  text: fixed('text'), clob: fixed('text'),
  real: fixed('double'), double: fixed('double'), 'double precision': fixed('double'), float: fixed('double'),
  // Without precision a NUMERIC column holds any number SQLite likes: served as a double.
  numeric: (column) => (column.precision === undefined ? { type: 'double' } : decimal(column)),
  decimal: (column) => (column.precision === undefined ? { type: 'double' } : decimal(column)),
  date: fixed('dateOnly'), time: fixed('time'),
  // SQLite has no date-time type: such a column holds whatever text its writers chose, served as that text.
  datetime: (column) => characters({ ...column, length: column.length ?? 64 }),
  timestamp: (column) => characters({ ...column, length: column.length ?? 64 }),
  json: fixed('json'), uuid: fixed('uuid'),
  blob: () => BINARY,
};

/** SQLite's own rule for a declared type it does not know (https://sqlite.org/datatype3.html#determination_of_column_affinity). */
function sqliteAffinity(column: CatalogueColumn): ColumnMapping {
  const type = column.baseType;
  if (type.includes('int')) return { type: 'integer' };
  if (type.includes('char') || type.includes('clob') || type.includes('text')) return { type: 'text' };
  if (type === '' ) return readOnlyText;
  if (type.includes('blob')) return BINARY;
  if (type.includes('real') || type.includes('floa') || type.includes('doub')) return { type: 'double' };
  return readOnlyText;
}

const TABLES: Record<Dialect, Readonly<Record<string, Mapper>>> = { postgres: POSTGRES, mysql: MYSQL, sqlite: SQLITE };

/** What an unknown type becomes on each dialect. */
const FALLBACK: Record<Dialect, Mapper> = {
  // PostgreSQL enum types: their labels; arrays: the driver's JS array, read-only (Corral's `array` is a JSON array in jsonb).
  postgres: (column) => (column.enumValues !== undefined && column.enumValues.length > 0 ? enumeration(column) : column.elementType !== undefined ? { type: 'json', readOnly: true } : readOnlyText),
  mysql: () => readOnlyText,
  sqlite: sqliteAffinity,
};

/** The Corral type of a column on `dialect`, or why it is left out. */
export function mapColumnType(dialect: Dialect, column: CatalogueColumn): ColumnMapping {
  const table = TABLES[dialect];
  const base = column.baseType.toLowerCase().replace(/( unsigned| zerofill)+$/, '');
  if (column.elementType !== undefined) return FALLBACK[dialect](column);
  const mapper = Object.hasOwn(table, base) ? table[base] : undefined;
  return (mapper ?? FALLBACK[dialect])(column);
}
