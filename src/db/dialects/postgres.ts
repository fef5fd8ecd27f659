import { sql, type SqlBool } from 'kysely';
import { likeText } from '../../text/like-pattern.js';
import type { JsonValue } from '../../json-value.js';
import { DIALECT_TRAITS } from './dialect-traits.js';
import { classifyDriverError } from '../driver-error.js';
import type { DialectAdapter } from './dialect-adapter.js';
import { POSTGRES_ESTIMATES } from './row-estimates.js';
import { isoText } from './driver-values.js';
import { likeSubstring } from './pattern-params.js';

/** PostgreSQL through pg: typed columns, jsonb, identity keys, text compared under "C". */
export const postgresAdapter = {
  name: 'postgres',
  traits: DIALECT_TRAITS.postgres,
  capabilities: { uuidType: true, notify: true, pendingOutbox: true, outboxIds: 'atPublish' },
  ddl: {
    columnTypes: {
      // "C" compares by code point and folds only A–Z in ILIKE (see docs/values.md).
      varchar: ({ length }) => `varchar(${length}) collate "C"`,
      longText: () => 'text collate "C"',
      integer: () => 'integer',
      bigInt: () => 'bigint',
      double: () => 'double precision',
      decimal: ({ precision, scale }) => `decimal(${precision}, ${scale})`,
      boolean: () => 'boolean',
      instant: () => 'timestamptz(3)',
      date: () => 'date',
      time: () => 'time',
      json: () => 'jsonb',
      uuid: () => 'uuid',
    },
    integerKeyType: (wide) => (wide ? 'bigint' : 'integer'),
    identity: (column) => column.generatedByDefaultAsIdentity(),
    serialKey: (wide) => ({ type: wide ? 'bigserial' : 'serial', define: (column) => column.primaryKey() }),
    longText: 'text',
    binaryVarchar: (length) => `varchar(${length}) collate "C"`,
    collatedVarchar: (length) => `varchar(${length})`,
    defaultCollation: 'C',
    tableOptions: () => undefined,
    literalDefault: () => true,
    foreignKeys: 'constraint',
    dropForeignKeyFirst: false,
    dropIndexOnTable: false,
    indexExistsErrors: false,
    columnChange: 'alterColumn',
    analyze: (table) => [`analyze ${table}`],
    estimatedRows: (table) => sql<{ n: unknown }>`select c.reltuples as n from pg_class c join pg_namespace ns on ns.oid = c.relnamespace where c.relname = ${table} and ns.nspname = current_schema()`,
    restateCollation: async () => {},
    schemaTransaction: (executor, body) => executor.kysely.transaction().execute(body),
    foreignKeysBroken: async () => false,
    commitsDdl: false,
  },
  operators: {
    asText: (column) => sql`cast(${column} as text)`,
    substringParam: likeSubstring,
    substringTest: (column, param) => sql<SqlBool>`${column} ilike ${param} escape '\\'`,
    likeParam: (tokens) => likeText(tokens),
    likeTest: (column, param, foldCase) => (foldCase ? sql<SqlBool>`${column} ilike ${param} escape '\\'` : sql<SqlBool>`${column} like ${param} escape '\\'`),
    arrayElements: (column) => sql`jsonb_array_elements(${column}) as corral_el(v)`,
    arrayElementKey: sql`corral_el.v`,
    // Values bind as JSON text, compared as jsonb (same JSON type and value).
    arrayElementIn: {
      valuesKey: (values) => `:${values.length}`,
      params: (values) => values.map((value) => JSON.stringify(value)),
      test: (_values, bound) => sql<SqlBool>`corral_el.v in (${sql.join(bound.map((value) => sql`cast(${value} as jsonb)`))})`,
    },
    arrayEmpty: (column) => sql<SqlBool>`jsonb_array_length(${column}) = 0`,
    falseSql: sql`false`,
  },
  values: {
    boolean: (value) => value,
    bigInt: (value) => String(value),
    instant: isoText,
    instantText: (text) => new Date(text).toISOString(),
    decimal: (raw) => String(raw),
    // pg parses jsonb itself.
    json: (raw) => raw as JsonValue,
  },
  estimates: POSTGRES_ESTIMATES,
  classifyError: (error) => classifyDriverError(error, 'postgres'),
} satisfies DialectAdapter;
