import { DummyDriver, Kysely, MysqlAdapter, MysqlIntrospector, MysqlQueryCompiler, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type Dialect as KyselyDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DynamicDb } from '../../src/db/database.js';
import { ADAPTERS, adapterOf } from '../../src/db/dialects/adapters.js';
import { systemTable, type SystemTable } from '../../src/db/system-table.js';
import { columnType } from '../../src/schema/ddl.js';
import { FIELD_TYPES } from '../../src/schema/field-types/index.js';
import { SCALAR_TYPES, type Dialect, type FieldDef, type ScalarType } from '../../src/schema/types.js';
import { DELIVERIES_TABLE, WEBHOOK_TABLES } from '../../src/store/system/webhook-tables.js';

const DIALECTS: Dialect[] = ['sqlite', 'postgres', 'mysql'];
const def = (type: ScalarType, options: Partial<FieldDef> = {}): FieldDef => ({ name: 'v', type, allowNull: true, unique: false, index: false, ...options });

/** Every field type's column on every dialect (string: default length 255). */
const COLUMN_TYPES: Record<ScalarType, Record<Dialect, string>> = {
  string: { sqlite: 'text', postgres: 'varchar(255) collate "C"', mysql: 'varchar(255)' },
  text: { sqlite: 'text', postgres: 'text collate "C"', mysql: 'longtext' },
  integer: { sqlite: 'integer', postgres: 'integer', mysql: 'integer' },
  bigInt: { sqlite: 'bigint', postgres: 'bigint', mysql: 'bigint' },
  float: { sqlite: 'real', postgres: 'double precision', mysql: 'double' },
  double: { sqlite: 'real', postgres: 'double precision', mysql: 'double' },
  decimal: { sqlite: 'numeric', postgres: 'decimal(10, 2)', mysql: 'decimal(10, 2)' },
  boolean: { sqlite: 'integer', postgres: 'boolean', mysql: 'boolean' },
  date: { sqlite: 'text', postgres: 'timestamptz(3)', mysql: 'datetime(3)' },
  dateOnly: { sqlite: 'text', postgres: 'date', mysql: 'date' },
  time: { sqlite: 'text', postgres: 'time', mysql: 'time' },
  json: { sqlite: 'text', postgres: 'jsonb', mysql: 'longtext' },
  array: { sqlite: 'text', postgres: 'jsonb', mysql: 'longtext' },
  uuid: { sqlite: 'text', postgres: 'uuid', mysql: 'char(36)' },
  nanoid: { sqlite: 'text', postgres: 'varchar(21) collate "C"', mysql: 'varchar(21)' },
  password: { sqlite: 'text', postgres: 'varchar(255) collate "C"', mysql: 'varchar(255)' },
  sort: { sqlite: 'integer', postgres: 'integer', mysql: 'integer' },
};

describe('column types', () => {
  it.each(SCALAR_TYPES.flatMap((type) => DIALECTS.map((dialect) => [type, dialect] as const)))('spells %s on %s', (type, dialect) => {
    expect(columnType(def(type), adapterOf(dialect))).toBe(COLUMN_TYPES[type][dialect]);
  });

  it('follows the size options', () => {
    expect(columnType(def('string', { length: 40 }), ADAPTERS.postgres)).toBe('varchar(40) collate "C"');
    expect(columnType(def('decimal', { precision: 30, scale: 4 }), ADAPTERS.mysql)).toBe('decimal(30, 4)');
  });

  it('gives auto-numbered keys the rowid alias on SQLite and their width elsewhere', () => {
    const key = (type: ScalarType) => def(type, { primaryKey: true, autoIncrement: true });
    expect(DIALECTS.map((dialect) => columnType(key('bigInt'), adapterOf(dialect)))).toEqual(['integer', 'bigint', 'bigint']);
    expect(DIALECTS.map((dialect) => columnType(key('integer'), adapterOf(dialect)))).toEqual(['integer', 'integer', 'integer']);
  });

  it('has a column kind for every field type', () => {
    for (const type of SCALAR_TYPES) expect(Object.keys(ADAPTERS.sqlite.ddl.columnTypes)).toContain(FIELD_TYPES[type].column(def(type)).kind);
  });
});

describe('operator parameters', () => {
  it('matches substrings with LIKE (ASCII-lowered) or, on MySQL, a case-folding regular expression', () => {
    expect(ADAPTERS.sqlite.operators.substringParam('A_b', true, false)).toBe('a\\_b%');
    expect(ADAPTERS.postgres.operators.substringParam('A%', false, true)).toBe('%a\\%');
    expect(ADAPTERS.mysql.operators.substringParam('A.', false, false)).toBe('(?s)[aA]\\.');
  });

  it('spells a case-sensitive LIKE as GLOB on SQLite', () => {
    const tokens = [{ kind: 'char', char: 'a' }, { kind: 'any' }, { kind: 'char', char: '*' }, { kind: 'one' }] as const;
    expect(ADAPTERS.sqlite.operators.likeParam(tokens, false)).toBe('a*[*]?');
    expect(ADAPTERS.sqlite.operators.likeParam(tokens, true)).toBe('a%*_');
    expect(ADAPTERS.mysql.operators.likeParam(tokens, false)).toBe('(?s)^a.*\\*.\\z');
  });

  it('binds array values as themselves on SQLite (strings first) and as JSON text elsewhere', () => {
    const values = [2, 'x', 'y'];
    expect(ADAPTERS.sqlite.operators.arrayElementIn.params(values)).toEqual(['x', 'y', 2]);
    expect(ADAPTERS.sqlite.operators.arrayElementIn.valuesKey(values)).toBe(':2:1');
    expect(ADAPTERS.postgres.operators.arrayElementIn.params(values)).toEqual(['2', '"x"', '"y"']);
    expect(ADAPTERS.mysql.operators.arrayElementIn.valuesKey(values)).toBe(':3');
  });
});

const KYSELY_DIALECTS: Record<Dialect, KyselyDialect> = {
  sqlite: { createAdapter: () => new SqliteAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new SqliteIntrospector(db), createQueryCompiler: () => new SqliteQueryCompiler() },
  postgres: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new PostgresIntrospector(db), createQueryCompiler: () => new PostgresQueryCompiler() },
  mysql: { createAdapter: () => new MysqlAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (db) => new MysqlIntrospector(db), createQueryCompiler: () => new MysqlQueryCompiler() },
};

/** The SQL a function runs against a database that answers nothing. */
async function statements(dialect: Dialect, run: (db: Kysely<DynamicDb>) => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const db = new Kysely<DynamicDb>({ dialect: KYSELY_DIALECTS[dialect], log: (event) => void seen.push(event.query.sql) });
  await run(db);
  return seen;
}

const SERIAL_ID: Record<Dialect, RegExp> = {
  sqlite: /"id" integer primary key autoincrement/,
  postgres: /"id" serial primary key/,
  mysql: /`id` integer primary key auto_increment/,
};

describe('systemTable', () => {
  it.each(DIALECTS)('numbers the webhook deliveries with the dialect\'s own serial key on %s', async (dialect) => {
    const deliveries = WEBHOOK_TABLES.find((table) => table.name === DELIVERIES_TABLE)!;
    const [create] = await statements(dialect, (db) => systemTable(db, adapterOf(dialect), deliveries));
    expect(create).toMatch(SERIAL_ID[dialect]);
  });

  it('gives a collated table the collections\' table options on MySQL only, and makes its indexes', async () => {
    const table: SystemTable = { name: 't', columns: [{ name: 'a', type: 'longText', notNull: true }], tableOptions: true, indexes: [{ name: 't_a', columns: ['a'] }] };
    expect(await statements('mysql', (db) => systemTable(db, ADAPTERS.mysql, table, 'utf8mb4_0900_bin'))).toEqual([
      'create table if not exists `t` (`a` longtext not null) engine = InnoDB default charset = utf8mb4 collate = utf8mb4_0900_bin',
      'create index if not exists `t_a` on `t` (`a`)',
    ]);
    expect(await statements('postgres', (db) => systemTable(db, ADAPTERS.postgres, table))).toEqual([
      'create table if not exists "t" ("a" text not null)',
      'create index if not exists "t_a" on "t" ("a")',
    ]);
  });
});
