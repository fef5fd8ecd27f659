import { describe, expect, it } from 'vitest';
import type { Catalogue, CatalogueColumn, CatalogueTable } from '../../src/db/catalogue/catalogue.js';
import { introspectCollections } from '../../src/schema/introspect-collections.js';
import { mapColumnType } from '../../src/schema/introspect-types.js';
import { SchemaSnapshot } from '../../src/schema/schema-snapshot.js';
import type { CollectionDef, Dialect, FieldDef, RelationDef } from '../../src/schema/types.js';

/** A column from its raw type: `varchar(80)`, `numeric(12,2)`, `enum('a','b')`, `integer[]`. */
function col(name: string, rawType: string, extra: Partial<CatalogueColumn> = {}): CatalogueColumn {
  const base = /^[a-z ]+/.exec(rawType.toLowerCase())?.[0]?.trim() ?? '';
  const args = /\((\d+)(?:,\s*(\d+))?\)/.exec(rawType);
  const column: CatalogueColumn = { name, rawType: rawType.toLowerCase(), baseType: base, nullable: true, autoIncrement: false, generated: false };
  if (args !== null && /char/.test(base)) column.length = Number(args[1]);
  if (args !== null && /numeric|decimal/.test(base)) {
    column.precision = Number(args[1]);
    column.scale = Number(args[2] ?? 0);
  }
  const members = /^(?:enum|set)\((.*)\)$/i.exec(rawType);
  if (members !== null) column.enumValues = [...members[1]!.matchAll(/'([^']*)'/g)].map((m) => m[1]!);
  if (rawType.endsWith('[]')) column.elementType = rawType.slice(0, -2);
  return { ...column, ...extra };
}

function table(name: string, columns: CatalogueColumn[], extra: Partial<CatalogueTable> = {}): CatalogueTable {
  return { name, kind: 'table', columns, primaryKey: [], uniques: [], indexes: [], foreignKeys: [], ...extra };
}

const fk = (column: string, referencedTable: string, referencedColumn: string, onDelete: 'CASCADE' | 'SET NULL' | 'NO ACTION' = 'NO ACTION') =>
  ({ columns: [column], referencedTable, referencedColumns: [referencedColumn], onDelete });

const id = (name = 'id') => col(name, 'integer', { nullable: false, autoIncrement: true });

function run(tables: CatalogueTable[], dialect: Dialect = 'postgres', previous?: CollectionDef[], taken?: string[]) {
  const result = introspectCollections({ schema: 'public', tables }, { dialect, ...(previous === undefined ? {} : { previous }), ...(taken === undefined ? {} : { taken }) });
  // Every result compiles and links, as the server will load it.
  new SchemaSnapshot(1, result.collections, dialect);
  return result;
}

const def = (defs: CollectionDef[], name: string): CollectionDef => {
  const found = defs.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no collection ${name} in ${defs.map((d) => d.name).join(', ')}`);
  return found;
};
const field = (collection: CollectionDef, name: string): FieldDef => {
  const found = collection.fields.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no field ${name} in ${collection.name}: ${collection.fields.map((f) => f.name).join(', ')}`);
  return found;
};
const relation = (collection: CollectionDef, name: string): RelationDef => {
  const found = (collection.relations ?? []).find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no relation ${name} in ${collection.name}: ${(collection.relations ?? []).map((r) => r.name).join(', ')}`);
  return found;
};

describe('column types per dialect', () => {
  const cases: [Dialect, string, Record<string, unknown>][] = [
    ['postgres', 'integer', { type: 'integer' }],
    ['postgres', 'smallint', { type: 'integer' }],
    ['postgres', 'bigint', { type: 'bigInt' }],
    ['postgres', 'boolean', { type: 'boolean' }],
    ['postgres', 'character varying(20)', { type: 'string', length: 20 }],
    ['postgres', 'varchar', { type: 'text' }],
    ['postgres', 'text', { type: 'text' }],
    ['postgres', 'numeric(12,2)', { type: 'decimal', precision: 12, scale: 2 }],
    ['postgres', 'real', { type: 'float' }],
    ['postgres', 'double precision', { type: 'double' }],
    ['postgres', 'date', { type: 'dateOnly' }],
    ['postgres', 'time', { type: 'time' }],
    ['postgres', 'timestamptz', { type: 'date' }],
    ['postgres', 'timestamp without time zone', { type: 'date' }],
    ['postgres', 'jsonb', { type: 'json' }],
    ['postgres', 'uuid', { type: 'uuid' }],
    ['postgres', 'integer[]', { type: 'json', readOnly: true }],
    ['postgres', 'inet', { type: 'string', readOnly: true }],
    ['postgres', 'bytea', { skip: 'binary values are not served' }],
    ['mysql', 'tinyint(1)', { type: 'boolean' }],
    ['mysql', 'tinyint(4)', { type: 'integer' }],
    ['mysql', 'int unsigned', { type: 'bigInt' }],
    ['mysql', 'int', { type: 'integer' }],
    ['mysql', 'year', { type: 'integer' }],
    ['mysql', 'decimal(10,2)', { type: 'decimal', precision: 10, scale: 2 }],
    ['mysql', 'varchar(191)', { type: 'string', length: 191 }],
    ['mysql', 'longtext', { type: 'text' }],
    ['mysql', 'datetime', { type: 'date' }],
    ['mysql', "enum('new','paid')", { type: 'string', enum: ['new', 'paid'], length: 4 }],
    ["mysql", "set('S','M')", { type: 'string', readOnly: true }],
    ['mysql', 'blob', { skip: 'binary values are not served' }],
    ['sqlite', 'INTEGER', { type: 'integer' }],
    ['sqlite', 'NVARCHAR(120)', { type: 'string', length: 120 }],
    ['sqlite', 'NUMERIC(10,2)', { type: 'decimal', precision: 10, scale: 2 }],
    ['sqlite', 'BOOLEAN', { type: 'boolean' }],
    ['sqlite', 'DATETIME', { type: 'string', length: 64 }],
    ['sqlite', 'DATE', { type: 'dateOnly' }],
    ['sqlite', 'UNSIGNED BIG INT', { type: 'integer' }],
    ['sqlite', '', { type: 'string', readOnly: true }],
    ['sqlite', 'BLOB', { skip: 'binary values are not served' }],
  ];
  it.each(cases)('%s %s', (dialect, raw, expected) => {
    expect(mapColumnType(dialect, col('c', raw))).toMatchObject(expected);
  });
});

describe('tables to collections', () => {
  it('keeps valid names (mixed case too) and the raw type, maps keys, defaults and generated columns', () => {
    const { collections } = run([
      table('Customer', [
        col('CustomerId', 'integer', { nullable: false, autoIncrement: true, generated: true }),
        col('FirstName', 'varchar(80)', { nullable: false }),
        col('group', 'text', { nullable: false, defaultSql: "'retail'::text" }),
        col('created_at', 'timestamptz', { nullable: false, defaultSql: 'now()' }),
        col('FullName', 'text', { generated: true }),
        col('email', 'text', { nullable: false }),
      ], { primaryKey: ['CustomerId'], uniques: [['email']], comment: 'People who buy' }),
    ]);
    const customer = def(collections, 'Customer');
    expect(customer).toMatchObject({ managed: false, filterTargetKey: 'CustomerId', autoGenId: false, timestamps: false, description: 'People who buy' });
    expect(customer.tableName).toBeUndefined();
    expect(field(customer, 'CustomerId')).toMatchObject({ primaryKey: true, readOnly: true, allowNull: false, rawType: 'integer' });
    expect(field(customer, 'group')).toMatchObject({ defaultValue: 'retail', allowNull: false });
    // The database fills it: a create may leave it out.
    expect(field(customer, 'created_at')).toMatchObject({ type: 'date', allowNull: false, defaultSql: 'now()' });
    expect(field(customer, 'created_at').defaultValue).toBeUndefined();
    expect(field(customer, 'FullName').readOnly).toBe(true);
    expect(field(customer, 'email').unique).toBe(true);
  });

  it('gives invalid and reserved names stable API names, keeping the originals', () => {
    const { collections } = run([
      table('order items', [id(), col('zip code', 'char(5)'), col('constructor', 'text'), col('2nd', 'text')], { primaryKey: ['id'] }),
      table('users', [id()], { primaryKey: ['id'] }),
      table('pg_stats_copy', [id()], { primaryKey: ['id'] }),
      table('Order', [id()], { primaryKey: ['id'] }),
      table('order', [id()], { primaryKey: ['id'] }),
    ]);
    expect(collections.map((c) => [c.name, c.tableName]).sort()).toEqual([
      ['Order', undefined], ['order_2', 'order'], ['order_items', 'order items'], ['t_pg_stats_copy', 'pg_stats_copy'], ['users_', 'users'],
    ]);
    const items = def(collections, 'order_items');
    expect(items.fields.map((f) => [f.name, f.columnName])).toEqual([['id', undefined], ['zip_code', 'zip code'], ['constructor_', 'constructor'], ['_2nd', '2nd']]);
  });

  it('keeps the names a previous sync gave, even when a new table would now take them', () => {
    const first = run([table('order items', [id(), col('zip code', 'text')], { primaryKey: ['id'] })]).collections;
    const renamed = first.map((c) => ({ ...c, name: 'lines', fields: c.fields.map((f) => (f.columnName === 'zip code' ? { ...f, name: 'zip' } : f)) }));
    const { collections } = run([
      table('lines', [id()], { primaryKey: ['id'] }),
      table('order items', [id(), col('zip code', 'text')], { primaryKey: ['id'] }),
    ], 'postgres', renamed);
    expect(def(collections, 'lines').tableName).toBe('order items');
    expect(field(def(collections, 'lines'), 'zip').columnName).toBe('zip code');
    expect(def(collections, 'lines_2').tableName).toBe('lines');
  });

  it('keys composite primary keys by every column, serves keyless tables without a key, views read-only', () => {
    const { collections, notes } = run([
      table('order_lines', [col('order_id', 'integer', { nullable: false }), col('line_no', 'smallint', { nullable: false }), col('qty', 'integer')], { primaryKey: ['order_id', 'line_no'] }),
      table('log', [col('at', 'timestamptz'), col('code', 'varchar(10)', { nullable: false })], { uniques: [['code']] }),
      table('raw', [col('at', 'timestamptz')]),
      { ...table('customer_orders', [col('CustomerId', 'integer'), col('order_count', 'bigint')]), kind: 'view' },
    ]);
    expect(def(collections, 'order_lines').filterTargetKey).toEqual(['order_id', 'line_no']);
    expect(def(collections, 'log').filterTargetKey).toBe('code');
    expect(def(collections, 'raw').filterTargetKey).toBe('');
    const view = def(collections, 'customer_orders');
    expect(view).toMatchObject({ view: true, filterTargetKey: '' });
    expect(view.fields.every((f) => f.readOnly === true)).toBe(true);
    expect(notes.map((note) => note.table)).toEqual(expect.arrayContaining(['raw']));
  });

  it('leaves out Corral\'s own tables and managed collections\' tables, and binary columns with a note', () => {
    const { collections, notes } = run([
      table('corral_collections', [id()], { primaryKey: ['id'] }),
      table('posts', [id()], { primaryKey: ['id'] }),
      table('product', [id(), col('photo', 'bytea')], { primaryKey: ['id'] }),
    ], 'postgres', undefined, ['posts', 'users']);
    expect(collections.map((c) => c.name)).toEqual(['product']);
    expect(def(collections, 'product').fields.map((f) => f.name)).toEqual(['id']);
    expect(notes).toEqual(expect.arrayContaining([
      { table: 'product', column: 'photo', reason: 'bytea: binary values are not served' },
    ]));
  });
});

describe('foreign keys to relations', () => {
  const chinook = (): CatalogueTable[] => [
    table('Artist', [id('ArtistId'), col('Name', 'varchar(120)')], { primaryKey: ['ArtistId'] }),
    table('Album', [id('AlbumId'), col('Title', 'varchar(160)'), col('ArtistId', 'integer', { nullable: false })], { primaryKey: ['AlbumId'], foreignKeys: [fk('ArtistId', 'Artist', 'ArtistId')] }),
    table('Track', [id('TrackId'), col('AlbumId', 'integer')], { primaryKey: ['TrackId'], foreignKeys: [fk('AlbumId', 'Album', 'AlbumId')] }),
    table('Playlist', [id('PlaylistId')], { primaryKey: ['PlaylistId'] }),
    table('PlaylistTrack', [col('PlaylistId', 'integer', { nullable: false }), col('TrackId', 'integer', { nullable: false })], {
      primaryKey: ['PlaylistId', 'TrackId'],
      foreignKeys: [fk('PlaylistId', 'Playlist', 'PlaylistId'), fk('TrackId', 'Track', 'TrackId')],
    }),
    table('Employee', [id('EmployeeId'), col('ReportsTo', 'integer')], { primaryKey: ['EmployeeId'], foreignKeys: [fk('ReportsTo', 'Employee', 'EmployeeId')] }),
    table('Customer', [id('CustomerId'), col('SupportRepId', 'integer')], { primaryKey: ['CustomerId'], foreignKeys: [fk('SupportRepId', 'Employee', 'EmployeeId', 'SET NULL')] }),
  ];

  it('finds Chinook\'s relations: belongsTo, hasMany, belongsToMany through the junction, the self-reference', () => {
    const { collections } = run(chinook());
    expect(relation(def(collections, 'Album'), 'artist')).toEqual({ name: 'artist', type: 'belongsTo', target: 'Artist', foreignKey: 'ArtistId', targetKey: 'ArtistId', onDelete: 'RESTRICT' });
    expect(relation(def(collections, 'Artist'), 'albums')).toEqual({ name: 'albums', type: 'hasMany', target: 'Album', foreignKey: 'ArtistId', sourceKey: 'ArtistId', onDelete: 'RESTRICT' });
    expect(relation(def(collections, 'Playlist'), 'tracks')).toEqual({
      name: 'tracks', type: 'belongsToMany', target: 'Track', through: 'PlaylistTrack', foreignKey: 'PlaylistId', sourceKey: 'PlaylistId', otherKey: 'TrackId', targetKey: 'TrackId', onDelete: 'CASCADE',
    });
    expect(relation(def(collections, 'Track'), 'playlists')).toMatchObject({ type: 'belongsToMany', target: 'Playlist', through: 'PlaylistTrack', foreignKey: 'TrackId', otherKey: 'PlaylistId' });
    expect(relation(def(collections, 'Track'), 'playlistTracks')).toMatchObject({ type: 'hasMany', target: 'PlaylistTrack' });
    expect(relation(def(collections, 'Employee'), 'reportsToEmployee')).toMatchObject({ type: 'belongsTo', target: 'Employee', foreignKey: 'ReportsTo' });
    expect(relation(def(collections, 'Employee'), 'employees')).toMatchObject({ type: 'hasMany', target: 'Employee', foreignKey: 'ReportsTo' });
    expect(relation(def(collections, 'Employee'), 'customers')).toMatchObject({ type: 'hasMany', target: 'Customer', onDelete: 'SET NULL' });
    expect(relation(def(collections, 'Customer'), 'supportRep')).toMatchObject({ type: 'belongsTo', target: 'Employee' });
    expect(field(def(collections, 'Album'), 'ArtistId').references).toEqual({ collection: 'Artist', key: 'ArtistId', onDelete: 'RESTRICT' });
  });

  it('names the same relations alike whatever order the catalogue lists tables and keys in', () => {
    const names = (tables: CatalogueTable[]) => run(tables).collections.map((c) => [c.name, (c.relations ?? []).map((r) => r.name).sort()]).sort();
    expect(names([...chinook()].reverse())).toEqual(names(chinook()));
  });

  it('tells apart two keys to the same table, and makes a unique key column hasOne', () => {
    const { collections } = run([
      table('airport', [id(), col('code', 'char(3)')], { primaryKey: ['id'] }),
      table('flight', [id(), col('origin_id', 'integer'), col('destination_id', 'integer')], {
        primaryKey: ['id'], foreignKeys: [fk('origin_id', 'airport', 'id'), fk('destination_id', 'airport', 'id')],
      }),
      table('stock', [col('product_id', 'integer', { nullable: false })], { primaryKey: ['product_id'], foreignKeys: [fk('product_id', 'airport', 'id')] }),
    ]);
    const airport = def(collections, 'airport');
    expect((airport.relations ?? []).map((r) => [r.name, r.type]).sort()).toEqual([['flightsByDestination', 'hasMany'], ['flightsByOrigin', 'hasMany'], ['stock', 'hasOne']]);
    expect((def(collections, 'flight').relations ?? []).map((r) => r.name).sort()).toEqual(['destination', 'origin']);
  });

  it('skips composite foreign keys and keys to tables not served, with a note', () => {
    const { collections, notes } = run([
      table('line', [col('a', 'integer', { nullable: false }), col('b', 'integer', { nullable: false })], { primaryKey: ['a', 'b'] }),
      table('shipment', [id(), col('a', 'integer'), col('b', 'integer'), col('w', 'integer')], {
        primaryKey: ['id'], foreignKeys: [{ columns: ['a', 'b'], referencedTable: 'line', referencedColumns: ['a', 'b'], onDelete: 'CASCADE' }, fk('w', 'warehouse', 'id')],
      }),
    ]);
    expect(def(collections, 'shipment').relations).toEqual([]);
    expect(notes.filter((note) => note.table === 'shipment').map((note) => note.column)).toEqual(['a, b', 'w']);
  });
});
