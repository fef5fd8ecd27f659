import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalogue, CatalogueColumn, CatalogueTable } from '../../src/db/catalogue/catalogue.js';
import { isCorralTable } from '../../src/db/catalogue/catalogue-filter.js';
import type { CatalogueReader } from '../../src/db/catalogue/catalogue-reader.js';
import { readMysqlCatalogue } from '../../src/db/catalogue/mysql-catalogue.js';
import { readPostgresCatalogue } from '../../src/db/catalogue/postgres-catalogue.js';
import { readCatalogue } from '../../src/db/catalogue/read-catalogue.js';
import { readSqliteCatalogue } from '../../src/db/catalogue/sqlite-catalogue.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import type { Dialect } from '../../src/db/dialect.js';
import { CHINOOK_FOREIGN_KEYS, CHINOOK_SQL, CHINOOK_TABLES } from '../fixtures/existing/chinook.js';
import { loadFixture } from '../fixtures/existing/load-fixture.js';
import { SHOP_SQL } from '../fixtures/existing/shop.js';
import { useDialectApp } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

/** Catalogue reads over SQL fixtures no Corral wrote (issue 30): src/db/catalogue/. */

const READERS: Record<Dialect, CatalogueReader> = { sqlite: readSqliteCatalogue, postgres: readPostgresCatalogue, mysql: readMysqlCatalogue };

/** The shop fixture's tables and kinds per dialect (names sorted as readCatalogue sorts them). */
const SHOP_TABLES: Record<Dialect, [string, CatalogueTable['kind']][]> = {
  sqlite: [['Customer', 'table'], ['customer_orders', 'view'], ['order', 'table'], ['order_lines', 'table'], ['product', 'table'], ['product_tags', 'table'], ['shipment', 'table'], ['tag', 'table']],
  postgres: [
    ['Customer', 'table'], ['customer_orders', 'view'], ['event_log', 'table'], ['order', 'table'], ['order_lines', 'table'], ['product', 'table'],
    ['product_sales', 'materializedView'], ['product_tags', 'table'], ['shipment', 'table'], ['tag', 'table'],
  ],
  mysql: [['Customer', 'table'], ['customer_orders', 'view'], ['order', 'table'], ['order_lines', 'table'], ['product', 'table'], ['product_tags', 'table'], ['shipment', 'table'], ['tag', 'table']],
};

/** SQLite has no comments. */
const TABLE_COMMENTS: Record<Dialect, string | undefined> = { sqlite: undefined, postgres: 'People who buy', mysql: 'People who buy' };

type ColumnCase = [table: string, column: string, expected: Partial<CatalogueColumn>];

const NOT_GENERATED = { autoIncrement: false, generated: false };

/** Column facts per dialect: each row's `expected` must match the column read (toMatchObject), absent keys included where `undefined`. */
const COLUMN_CASES: Record<Dialect, ColumnCase[]> = {
  sqlite: [
    ['Customer', 'CustomerId', { rawType: 'integer', baseType: 'integer', nullable: false, autoIncrement: true, generated: false }],
    ['Customer', 'FirstName', { rawType: 'varchar(80)', baseType: 'varchar', length: 80, nullable: false, ...NOT_GENERATED }],
    ['Customer', 'zip code', { rawType: 'char(5)', baseType: 'char', length: 5, nullable: true, defaultSql: undefined }],
    ['Customer', 'group', { rawType: 'text', nullable: false, defaultSql: "'retail'" }],
    ['Customer', 'created_at', { rawType: 'datetime', baseType: 'datetime', defaultSql: 'CURRENT_TIMESTAMP' }],
    ['Customer', 'FullName', { rawType: 'text', generated: true, autoIncrement: false }],
    ['product', 'id', { baseType: 'integer', autoIncrement: true, nullable: false }],
    ['product', 'price', { rawType: 'numeric(12,2)', baseType: 'numeric', precision: 12, scale: 2, nullable: false }],
    ['product', 'active', { rawType: 'boolean', baseType: 'boolean', defaultSql: '1' }],
    ['product', 'photo', { rawType: 'blob', baseType: 'blob', nullable: true }],
    ['product', 'extra', { rawType: '', baseType: '', nullable: true, ...NOT_GENERATED }],
    ['product_tags', 'product_id', { autoIncrement: false, nullable: false }],
    ['order', 'id', { autoIncrement: true }],
    ['order', 'placed_at', { defaultSql: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')" }],
    ['order_lines', 'order_id', { autoIncrement: false, nullable: false }],
    ['order_lines', 'line_total', { rawType: 'numeric(14,2)', precision: 14, scale: 2, generated: true }],
    ['customer_orders', 'order_count', { rawType: '', baseType: '' }],
  ],
  postgres: [
    ['Customer', 'CustomerId', { rawType: 'integer', baseType: 'integer', nullable: false, autoIncrement: true, generated: true, defaultSql: undefined }],
    ['Customer', 'FirstName', { rawType: 'character varying(80)', baseType: 'character varying', length: 80, nullable: false, ...NOT_GENERATED }],
    ['Customer', 'zip code', { rawType: 'character(5)', baseType: 'character', length: 5, nullable: true, comment: 'Postal code' }],
    ['Customer', 'group', { rawType: 'text', nullable: false, defaultSql: "'retail'::text" }],
    ['Customer', 'tags', { rawType: 'text[]', baseType: 'array', elementType: 'text', nullable: false, defaultSql: "'{}'::text[]" }],
    ['Customer', 'last_ip', { rawType: 'inet', baseType: 'inet', nullable: true }],
    ['Customer', 'created_at', { rawType: 'timestamp with time zone', baseType: 'timestamp with time zone', defaultSql: 'now()', precision: undefined }],
    ['Customer', 'external_id', { rawType: 'uuid', baseType: 'uuid', defaultSql: 'gen_random_uuid()' }],
    ['Customer', 'FullName', { rawType: 'text', generated: true, autoIncrement: false, defaultSql: undefined }],
    ['product', 'id', { rawType: 'integer', autoIncrement: true, generated: false, defaultSql: "nextval('product_id_seq'::regclass)" }],
    ['product', 'price', { rawType: 'numeric(12,2)', baseType: 'numeric', precision: 12, scale: 2 }],
    ['product', 'attributes', { rawType: 'jsonb', baseType: 'jsonb' }],
    ['product', 'photo', { rawType: 'bytea', baseType: 'bytea' }],
    ['product', 'active', { rawType: 'boolean', defaultSql: 'true' }],
    ['tag', 'id', { rawType: 'bigint', autoIncrement: true, generated: false, defaultSql: undefined }],
    ['order', 'status', { rawType: 'order_status', baseType: 'enum', enumValues: ['new', 'paid', 'shipped', 'cancelled'], defaultSql: "'new'::order_status" }],
    ['order', 'lucky_numbers', { rawType: 'integer[]', baseType: 'array', elementType: 'integer', nullable: true }],
    ['order_lines', 'line_total', { rawType: 'numeric(14,2)', precision: 14, scale: 2, generated: true, defaultSql: undefined }],
    ['customer_orders', 'order_count', { rawType: 'bigint', nullable: true }],
    ['product_sales', 'units', { rawType: 'bigint' }],
  ],
  mysql: [
    ['Customer', 'CustomerId', { baseType: 'int', nullable: false, autoIncrement: true, generated: false }],
    ['Customer', 'FirstName', { rawType: 'varchar(80)', baseType: 'varchar', length: 80, nullable: false, ...NOT_GENERATED }],
    ['Customer', 'zip code', { rawType: 'char(5)', baseType: 'char', length: 5, nullable: true, comment: 'Postal code', defaultSql: undefined }],
    ['Customer', 'group', { nullable: false, defaultSql: "'retail'" }],
    ['Customer', 'created_at', { rawType: 'datetime', baseType: 'datetime' }],
    ['Customer', 'FullName', { generated: true, autoIncrement: false, defaultSql: undefined }],
    ['Customer', 'Initials', { generated: true }],
    ['product', 'id', { baseType: 'int', autoIncrement: true }],
    ['product', 'price', { rawType: 'decimal(12,2)', baseType: 'decimal', precision: 12, scale: 2, nullable: false }],
    ['product', 'attributes', { rawType: 'json', baseType: 'json', nullable: true }],
    ['product', 'photo', { rawType: 'blob', baseType: 'blob' }],
    ['product', 'active', { rawType: 'tinyint(1)', baseType: 'tinyint', defaultSql: '1' }],
    ['product', 'sizes', { rawType: "set('S','M','L','XL')", baseType: 'set', enumValues: ['S', 'M', 'L', 'XL'] }],
    ['product', 'made_in', { baseType: 'year' }],
    ['order', 'status', { rawType: "enum('new','paid','shipped','cancelled')", baseType: 'enum', enumValues: ['new', 'paid', 'shipped', 'cancelled'], defaultSql: "'new'" }],
    ['order', 'placed_at', { rawType: 'datetime(3)', baseType: 'datetime', precision: 3 }],
    ['order', 'is_gift', { rawType: 'tinyint(1)', defaultSql: '0' }],
    ['order_lines', 'line_total', { rawType: 'decimal(14,2)', precision: 14, scale: 2, generated: true }],
    ['customer_orders', 'order_count', { baseType: 'bigint', defaultSql: undefined }],
  ],
};

function table(catalogue: Catalogue, name: string): CatalogueTable {
  const found = catalogue.tables.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no table ${name} in ${catalogue.tables.map((t) => t.name).join(', ')}`);
  return found;
}

function columnOf(catalogue: Catalogue, tableName: string, name: string): CatalogueColumn {
  const found = table(catalogue, tableName).columns.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no column ${tableName}.${name}`);
  return found;
}

/** A key's shape without its name (SQLite keeps no foreign key names). */
function keys(catalogue: Catalogue, name: string) {
  return table(catalogue, name)
    .foreignKeys.map(({ columns, referencedTable, referencedColumns, onDelete }) => ({ columns, referencedTable, referencedColumns, onDelete }))
    .sort((a, b) => a.columns.join().localeCompare(b.columns.join()));
}

describe.each(DIALECTS)('catalogue of the shop fixture on %s', (dialect) => {
  let test: TestDatabase;
  let database: Database;
  let catalogue: Catalogue;

  beforeAll(async () => {
    test = await createTestDatabase(dialect);
    database = await openDatabase(test.config);
    await loadFixture(database.db, SHOP_SQL[dialect]);
    catalogue = await readCatalogue(database.db, dialect);
  });
  afterAll(async () => {
    await database?.close();
    await test?.drop();
  });

  it('lists the tables and views with their kinds, sorted by name', () => {
    expect(catalogue.tables.map((t) => [t.name, t.kind])).toEqual(SHOP_TABLES[dialect]);
  });

  it.each(COLUMN_CASES[dialect])('%s.%s', (tableName, name, expected) => {
    const read = columnOf(catalogue, tableName, name);
    for (const [key, value] of Object.entries(expected)) expect(read[key as keyof CatalogueColumn], `${tableName}.${name} ${key}`).toEqual(value);
  });

  it('keeps column order, names with spaces, mixed case and reserved words', () => {
    const names = table(catalogue, 'Customer').columns.map((c) => c.name);
    expect(names.slice(0, 2)).toEqual(['CustomerId', 'FirstName']);
    expect(names).toContain('zip code');
    expect(names).toContain('group');
    expect(table(catalogue, 'product_tags').columns.map((c) => c.name)).toEqual(['tag_id', 'product_id']);
  });

  it('reads primary keys in key order, not column order', () => {
    expect(table(catalogue, 'product_tags').primaryKey).toEqual(['product_id', 'tag_id']);
    expect(table(catalogue, 'order_lines').primaryKey).toEqual(['order_id', 'line_no']);
    expect(table(catalogue, 'Customer').primaryKey).toEqual(['CustomerId']);
    expect(table(catalogue, 'customer_orders').primaryKey).toEqual([]);
  });

  it('reads unique constraints without repeating the primary key', () => {
    expect(table(catalogue, 'Customer').uniques).toEqual([['email']]);
    expect(table(catalogue, 'product').uniques).toEqual([['sku']]);
    expect(table(catalogue, 'tag').uniques).toEqual([['label']]);
    expect(table(catalogue, 'shipment').uniques).toEqual([['order_id', 'line_no', 'carrier']]);
    expect(table(catalogue, 'product_tags').uniques).toEqual([]);
  });

  it('reads plain indexes and leaves expression indexes out', () => {
    expect(table(catalogue, 'product').indexes).toEqual([{ name: 'product_name_idx', columns: ['name'] }]);
    expect(table(catalogue, 'order').indexes).toContainEqual({ name: 'order_customer_idx', columns: ['customerId', 'placed_at'] });
  });

  it('reads foreign keys, composite ones and their ON DELETE', () => {
    expect(keys(catalogue, 'order')).toEqual([{ columns: ['customerId'], referencedTable: 'Customer', referencedColumns: ['CustomerId'], onDelete: 'SET NULL' }]);
    expect(keys(catalogue, 'product_tags')).toEqual([
      { columns: ['product_id'], referencedTable: 'product', referencedColumns: ['id'], onDelete: 'CASCADE' },
      { columns: ['tag_id'], referencedTable: 'tag', referencedColumns: ['id'], onDelete: 'CASCADE' },
    ]);
    expect(keys(catalogue, 'shipment')).toEqual([{ columns: ['order_id', 'line_no'], referencedTable: 'order_lines', referencedColumns: ['order_id', 'line_no'], onDelete: 'CASCADE' }]);
    const lines = keys(catalogue, 'order_lines');
    expect(lines.map(({ columns, referencedTable, referencedColumns }) => [columns, referencedTable, referencedColumns])).toEqual([
      [['order_id'], 'order', ['id']],
      [['product_id'], 'product', ['id']],
    ]);
    expect(lines[0]!.onDelete).toBe('CASCADE');
    // Written without ON DELETE: NO ACTION, which MariaDB reports as RESTRICT.
    expect(['NO ACTION', 'RESTRICT']).toContain(lines[1]!.onDelete);
  });

  it('reads check constraints', () => {
    const product = table(catalogue, 'product').checks ?? [];
    expect(product).toContainEqual(expect.objectContaining({ name: 'product_price_positive', expression: expect.stringMatching(/price`? >= /) }));
    expect((table(catalogue, 'order_lines').checks ?? []).map((c) => c.expression)).toContainEqual(expect.stringMatching(/^`?quantity`? > 0$/));
  });

  it('reads table comments where the dialect keeps them', () => {
    expect(table(catalogue, 'Customer').comment).toBe(TABLE_COMMENTS[dialect]);
    expect(table(catalogue, 'customer_orders').comment).toBeUndefined();
  });

  it('gives views no keys', () => {
    const view = table(catalogue, 'customer_orders');
    expect(view.columns.map((c) => c.name)).toEqual(['CustomerId', 'FirstName', 'order_count']);
    expect([view.uniques, view.indexes, view.foreignKeys]).toEqual([[], [], []]);
  });

  it('keeps to the include and exclude patterns, exclude winning, without regard to case', async () => {
    const names = async (include?: string[], exclude?: string[]) =>
      (await readCatalogue(database.db, dialect, { ...(include === undefined ? {} : { include }), ...(exclude === undefined ? {} : { exclude }) })).tables.map((t) => t.name);
    expect(await names(['order*'])).toEqual(['order', 'order_lines']);
    expect(await names(['order*'], ['*_lines'])).toEqual(['order']);
    expect(await names(['ta?'])).toEqual(['tag']);
    expect(await names(['customer'])).toEqual(['Customer']);
    expect(await names(undefined, ['*'])).toEqual([]);
    expect(await names(['product%'])).toEqual([]);
  });
});

/** What each dialect adds beyond the shared shop tables. */
describe.each(DIALECTS.filter((d) => d === 'postgres'))('PostgreSQL specifics on %s', (dialect) => {
  let test: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    test = await createTestDatabase(dialect);
    database = await openDatabase(test.config);
    await loadFixture(database.db, SHOP_SQL[dialect]);
  });
  afterAll(async () => {
    await database?.close();
    await test?.drop();
  });

  it('shows a partitioned table once, without its partitions, and table comments', async () => {
    const catalogue = await readCatalogue(database.db, dialect);
    expect(table(catalogue, 'event_log').primaryKey).toEqual(['id', 'at']);
    expect(catalogue.tables.map((t) => t.name)).not.toContain('event_log_2026');
    expect(table(catalogue, 'Customer').comment).toBe('People who buy');
  });

  it('reads another schema when asked, leaving out keys into other schemas', async () => {
    const catalogue = await readCatalogue(database.db, dialect, { schema: 'inventory' });
    expect(catalogue.schema).toBe('inventory');
    expect(catalogue.tables.map((t) => t.name)).toEqual(['stock']);
    expect(table(catalogue, 'stock').primaryKey).toEqual(['product_id']);
    expect(table(catalogue, 'stock').foreignKeys).toEqual([]);
    expect(columnOf(catalogue, 'stock', 'on_hand')).toMatchObject({ defaultSql: '0', nullable: false });
  });

  it('reads as a role that may only SELECT, in a READ ONLY transaction', async () => {
    const role = `catalogue_reader_${Date.now().toString(36)}`;
    await sql.raw(`create role ${role} login`).execute(database.db);
    await sql.raw(`grant usage on schema public to ${role}`).execute(database.db);
    await sql.raw(`grant select on all tables in schema public to ${role}`).execute(database.db);
    const url = new URL(test.url);
    url.username = role;
    const reader = await openDatabase({ dialect: 'postgres', url: url.toString(), poolSize: 1 });
    try {
      const everything = await readCatalogue(database.db, dialect);
      const asReader = await reader.db
        .transaction()
        .setAccessMode('read only')
        .execute((trx) => readCatalogue(trx, dialect));
      expect(asReader).toEqual(everything);
    } finally {
      await reader.close();
      await sql.raw(`drop owned by ${role}`).execute(database.db);
      await sql.raw(`drop role ${role}`).execute(database.db);
    }
  });
});

/** Reads the catalogue in a READ ONLY transaction, checking after the read that a write is refused. */
async function readOnlyTransaction(db: Database): Promise<Catalogue> {
  return db.db
    .transaction()
    .setAccessMode('read only')
    .execute(async (trx) => {
      const catalogue = await readCatalogue(trx, db.dialect);
      await expect(sql`insert into tag (label) values ('refused')`.execute(trx)).rejects.toThrow(/read[- ]only/i);
      return catalogue;
    });
}

describe.each(DIALECTS)('catalogue reads write nothing on %s', (dialect) => {
  let test: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    test = await createTestDatabase(dialect);
    database = await openDatabase(test.config);
    await loadFixture(database.db, SHOP_SQL[dialect]);
  });
  afterAll(async () => {
    await database?.close();
    await test?.drop();
  });

  /** How each dialect is told to refuse writes for the length of a read. */
  const READ_ONLY: Record<Dialect, (db: Database) => Promise<Catalogue>> = {
    sqlite: async (db) => {
      await sql`pragma query_only = 1`.execute(db.db);
      try {
        // The pragma is in force: a write fails.
        await expect(sql`create table should_fail (x)`.execute(db.db)).rejects.toThrow(/readonly|read-only|query_only/i);
        return await readCatalogue(db.db, dialect);
      } finally {
        await sql`pragma query_only = 0`.execute(db.db);
      }
    },
    postgres: (db) => readOnlyTransaction(db),
    mysql: (db) => readOnlyTransaction(db),
  };

  it('gives the same catalogue when the database refuses writes', async () => {
    const plain = await readCatalogue(database.db, dialect);
    const readOnly = await READ_ONLY[dialect](database);
    expect(readOnly).toEqual(plain);
  });
});

describe.each(DIALECTS)('Corral system tables on %s', (dialect) => {
  const app = useDialectApp(dialect);

  it('are in the database but never in the catalogue', async () => {
    const db = app.built.database.db;
    await loadFixture(db, SHOP_SQL[dialect]);
    const raw = await READERS[dialect](db, { wanted: () => true });
    const system = raw.tables.map((t) => t.name).filter(isCorralTable);
    expect(system).toEqual(expect.arrayContaining(['corral_collections', 'corral_meta', 'corral_changes']));
    const catalogue = await readCatalogue(db, dialect);
    expect(catalogue.tables.filter((t) => isCorralTable(t.name))).toEqual([]);
    // Corral's system collections (users, roles, …) are collections with tables of their own
    // names: the catalogue shows them, as it shows any managed collection; skipping managed
    // collections is the introspection's part, which knows the schema.
    const managed = [...app.built.schema.snapshot.collections.keys()];
    expect(managed).toEqual(expect.arrayContaining(['users', 'roles']));
    expect(catalogue.tables.map((t) => t.name).filter((name) => !managed.includes(name))).toEqual(SHOP_TABLES[dialect].map(([name]) => name));
    // Even when a pattern names them.
    expect((await readCatalogue(db, dialect, { include: ['corral_*', 'CORRAL_*'] })).tables).toEqual([]);
  });

  it('isCorralTable is the corral_ prefix without regard to case', () => {
    expect(['corral_meta', 'CORRAL_X', 'Corral_changes'].map(isCorralTable)).toEqual([true, true, true]);
    expect(['corral', 'corralx', 'my_corral_table', 'Customer'].map(isCorralTable)).toEqual([false, false, false, false]);
  });
});

describe.each(DIALECTS)('catalogue of the Chinook fixture on %s', (dialect) => {
  let test: TestDatabase;
  let database: Database;
  let catalogue: Catalogue;

  beforeAll(async () => {
    test = await createTestDatabase(dialect);
    database = await openDatabase(test.config);
    await loadFixture(database.db, CHINOOK_SQL[dialect]);
    catalogue = await readCatalogue(database.db, dialect);
  });
  afterAll(async () => {
    await database?.close();
    await test?.drop();
  });

  it('lists the eleven tables', () => {
    expect(catalogue.tables.map((t) => t.name)).toEqual([...CHINOOK_TABLES].sort());
  });

  it('finds every relation, the junction key and the self-reference', () => {
    const found = catalogue.tables.flatMap((t) => t.foreignKeys.map((k) => [t.name, k.columns.join(), k.referencedTable, k.referencedColumns.join()]));
    expect(found.sort()).toEqual([...CHINOOK_FOREIGN_KEYS].sort());
    expect(table(catalogue, 'PlaylistTrack').primaryKey).toEqual(['PlaylistId', 'TrackId']);
    expect(keys(catalogue, 'Employee')).toEqual([{ columns: ['ReportsTo'], referencedTable: 'Employee', referencedColumns: ['EmployeeId'], onDelete: expect.stringMatching(/^(NO ACTION|RESTRICT)$/) }]);
    expect(table(catalogue, 'Track').indexes.map((i) => i.columns)).toEqual(expect.arrayContaining([['AlbumId'], ['GenreId'], ['MediaTypeId']]));
    expect(columnOf(catalogue, 'Invoice', 'Total')).toMatchObject({ precision: 10, scale: 2, nullable: false });
  });
});
