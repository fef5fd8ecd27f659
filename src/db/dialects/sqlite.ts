import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { rowidSpanSql } from '../rowid-span.js';
import { likeText } from '../../text/like-pattern.js';
import type { JsonValue } from '../../json-value.js';
import { DIALECT_TRAITS } from './dialect-traits.js';
import { classifyDriverError } from '../driver-error.js';
import type { DialectAdapter } from './dialect-adapter.js';
import { SQLITE_ESTIMATES } from './row-estimates.js';
import { formatDecimal, isoText } from './driver-values.js';
import { likeSubstring } from './pattern-params.js';

const strings = (values: readonly (string | number)[]): string[] => values.filter((v): v is string => typeof v === 'string');
const numbers = (values: readonly (string | number)[]): number[] => values.filter((v): v is number => typeof v === 'number');

/** SQLite through better-sqlite3: one writer, dynamic types (booleans 0/1, instants as ISO text). */
export const sqliteAdapter = {
  name: 'sqlite',
  traits: DIALECT_TRAITS.sqlite,
  capabilities: { uuidType: false, notify: false, pendingOutbox: false, outboxIds: 'afterLast' },
  ddl: {
    columnTypes: {
      varchar: () => 'text',
      longText: () => 'text',
      integer: () => 'integer',
      bigInt: () => 'bigint',
      double: () => 'real',
      decimal: () => 'numeric',
      boolean: () => 'integer',
      instant: () => 'text',
      date: () => 'text',
      time: () => 'text',
      json: () => 'text',
      uuid: () => 'text',
    },
    // Only exactly `integer primary key` aliases the rowid (and so numbers itself).
    integerKeyType: () => 'integer',
    identity: (column) => column.autoIncrement(),
    serialKey: () => ({ type: 'integer', define: (column) => column.primaryKey().autoIncrement() }),
    longText: 'text',
    binaryVarchar: () => 'text',
    collatedVarchar: (length) => `varchar(${length})`,
    defaultCollation: 'binary',
    tableOptions: () => undefined,
    literalDefault: () => true,
    foreignKeys: 'inline',
    dropForeignKeyFirst: false,
    dropIndexOnTable: false,
    indexExistsErrors: false,
    columnChange: 'rebuildTable',
    // Samples (analysis_limit) rather than reading every index.
    analyze: (table) => ['pragma analysis_limit = 1000', `analyze ${table}`],
    // Every collection table has a rowid: its span is two seeks, one per subquery (one min and one
    // max in a single select would scan); rows deleted inside it still count.
    estimatedRows: (table) => sql<{ n: unknown }>`${sql.raw(rowidSpanSql(table))}`,
    restateCollation: async () => {},
    schemaTransaction: (executor, body) =>
      executor.paused(() =>
        executor.kysely.connection().execute(async (connection) => {
          await sql`pragma foreign_keys = off`.execute(connection);
          try {
            await connection.transaction().execute(body);
          } finally {
            await sql`pragma foreign_keys = on`.execute(connection);
          }
        }),
      ),
    foreignKeysBroken: async (trx) => (await sql`pragma foreign_key_check`.execute(trx)).rows.length > 0,
    commitsDdl: false,
  },
  operators: {
    asText: (column) => column,
    substringParam: likeSubstring,
    substringTest: (column, param) => sql<SqlBool>`${column} like ${param} escape '\\'`,
    // GLOB is SQLite's case-sensitive LIKE: `*` any run, `?` one character, `[x]` a literal x.
    likeParam: (tokens, foldCase) =>
      foldCase ? likeText(tokens) : tokens.map((t) => (t.kind === 'any' ? '*' : t.kind === 'one' ? '?' : '*?['.includes(t.char) ? `[${t.char}]` : t.char)).join(''),
    likeTest: (column, param, foldCase) => (foldCase ? sql<SqlBool>`${column} like ${param} escape '\\'` : sql<SqlBool>`${column} glob ${param}`),
    arrayElements: (column) => sql`json_each(${column}) as corral_el`,
    arrayElementKey: sql`corral_el.value`,
    // Values bind as themselves, strings then numbers, each compared with elements of its JSON type.
    arrayElementIn: {
      valuesKey: (values) => `:${strings(values).length}:${numbers(values).length}`,
      params: (values) => [...strings(values), ...numbers(values)],
      test: (values, bound) => {
        const count = strings(values).length;
        const texts = bound.slice(0, count);
        const nums = bound.slice(count);
        const parts: RawBuilder<SqlBool>[] = [];
        if (texts.length > 0) parts.push(sql<SqlBool>`(corral_el.type = 'text' and corral_el.value in (${sql.join(texts)}))`);
        if (nums.length > 0) parts.push(sql<SqlBool>`(corral_el.type in ('integer', 'real') and corral_el.value in (${sql.join(nums)}))`);
        return sql<SqlBool>`(${sql.join(parts, sql` or `)})`;
      },
    },
    arrayEmpty: (column) => sql<SqlBool>`json_array_length(${column}) = 0`,
    falseSql: sql`0`,
  },
  values: {
    boolean: (value) => (value ? 1 : 0),
    bigInt: (value) => value,
    instant: isoText,
    instantText: (text) => new Date(text).toISOString(),
    decimal: formatDecimal,
    json: (raw) => JSON.parse(String(raw)) as JsonValue,
  },
  estimates: SQLITE_ESTIMATES,
  classifyError: (error) => classifyDriverError(error, 'sqlite'),
} satisfies DialectAdapter;
