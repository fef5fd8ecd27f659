import { sql, type SqlBool } from 'kysely';
import type { JsonValue } from '../../json-value.js';
import { DIALECT_TRAITS } from './dialect-traits.js';
import { classifyDriverError } from '../driver-error.js';
import type { DialectAdapter } from './dialect-adapter.js';
import { MYSQL_ESTIMATES } from './row-estimates.js';
import { toMysqlDateTime } from './driver-values.js';
import { literalTokens, regexOf } from './pattern-params.js';

/** Types whose columns cannot carry a literal DEFAULT (TEXT and BLOB columns). */
const NO_LITERAL_DEFAULT = new Set(['text', 'json', 'array']);

/** Collections' text compares by code point without padding (the database's own binary collation when known). */
const DEFAULT_COLLATION = 'utf8mb4_bin';

const collatedVarchar = (length: number, collation: string): string => `varchar(${length}) character set utf8mb4 collate ${collation}`;

/**
 * MySQL and MariaDB through mysql2: DDL commits at once, no RETURNING, DATETIME text, and
 * text matching through REGEXP (its LOWER folds all of Unicode; Corral folds ASCII only).
 */
export const mysqlAdapter = {
  name: 'mysql',
  traits: DIALECT_TRAITS.mysql,
  capabilities: { uuidType: false, notify: false, pendingOutbox: false, outboxIds: 'counterRow' },
  ddl: {
    columnTypes: {
      // The table's collation (tableOptions) makes these compare by code point.
      varchar: ({ length }) => `varchar(${length})`,
      longText: () => 'longtext',
      integer: () => 'integer',
      bigInt: () => 'bigint',
      double: () => 'double',
      decimal: ({ precision, scale }) => `decimal(${precision}, ${scale})`,
      boolean: () => 'boolean',
      instant: () => 'datetime(3)',
      date: () => 'date',
      time: () => 'time',
      json: () => 'longtext',
      uuid: () => 'char(36)',
    },
    integerKeyType: (wide) => (wide ? 'bigint' : 'integer'),
    identity: (column) => column.autoIncrement(),
    serialKey: (wide) => ({ type: wide ? 'bigint' : 'integer', define: (column) => column.primaryKey().autoIncrement() }),
    longText: 'longtext',
    binaryVarchar: (length) => collatedVarchar(length, 'utf8mb4_bin'),
    collatedVarchar,
    defaultCollation: DEFAULT_COLLATION,
    tableOptions: (collation = DEFAULT_COLLATION) => sql`engine = InnoDB default charset = utf8mb4 collate = ${sql.raw(collation)}`,
    literalDefault: (type) => !NO_LITERAL_DEFAULT.has(type),
    foreignKeys: 'constraint',
    dropForeignKeyFirst: true,
    dropIndexOnTable: true,
    indexExistsErrors: true,
    columnChange: 'modifyColumn',
    // Left to InnoDB's automatic recalculation: ANALYZE TABLE would commit the schema change's transaction halfway.
    analyze: () => [],
    estimatedRows: (table) => sql<{ n: unknown }>`select table_rows as n from information_schema.tables where table_schema = database() and table_name = ${table}`,
    restateCollation: async (db, table, column, type, collation) => {
      const found = await sql<{ collation: string | null }>`select collation_name as ${sql.id('collation')} from information_schema.columns where table_schema = database() and table_name = ${table} and column_name = ${column}`.execute(db);
      if (found.rows[0]?.collation !== collation) await sql`alter table ${sql.table(table)} modify ${sql.ref(column)} ${sql.raw(type)}`.execute(db);
    },
    schemaTransaction: (executor, body) => executor.kysely.transaction().execute(body),
    foreignKeysBroken: async () => false,
    commitsDdl: true,
  },
  operators: {
    asText: (column) => column,
    substringParam: (term, anchorStart, anchorEnd) => regexOf(literalTokens(term), true, anchorStart, anchorEnd),
    substringTest: (column, param) => sql<SqlBool>`${column} regexp ${param}`,
    likeParam: (tokens, foldCase) => regexOf(tokens, foldCase, true, true),
    likeTest: (column, param) => sql<SqlBool>`${column} regexp ${param}`,
    arrayElements: (column) => sql`json_table(${column}, '$[*]' columns (v json path '$')) as corral_el`,
    arrayElementKey: sql`cast(corral_el.v as binary)`,
    // JSON text compared byte for byte: Corral writes arrays with JSON.stringify, as the values are spelled.
    arrayElementIn: {
      valuesKey: (values) => `:${values.length}`,
      params: (values) => values.map((value) => JSON.stringify(value)),
      test: (_values, bound) => sql<SqlBool>`cast(corral_el.v as binary) in (${sql.join(bound.map((value) => sql`cast(${value} as binary)`))})`,
    },
    arrayEmpty: (column) => sql<SqlBool>`json_length(${column}) = 0`,
    falseSql: sql`0`,
  },
  values: {
    boolean: (value) => (value ? 1 : 0),
    bigInt: (value) => String(value),
    instant: toMysqlDateTime,
    // DATETIME text is UTC without a zone.
    instantText: (text) => new Date(`${text.replace(' ', 'T')}Z`).toISOString(),
    decimal: (raw) => String(raw),
    // Corral's JSON columns are longtext (text here); a JSON column of an existing table (MariaDB reports its JSON format) arrives parsed.
    json: (raw) => (typeof raw === 'string' || raw instanceof Buffer ? JSON.parse(String(raw)) : raw) as JsonValue,
  },
  estimates: MYSQL_ESTIMATES,
  classifyError: (error) => classifyDriverError(error, 'mysql'),
} satisfies DialectAdapter;
