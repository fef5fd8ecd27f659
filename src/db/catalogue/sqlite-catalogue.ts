import { sql, type Kysely } from 'kysely';
import type { DynamicDb } from '../database.js';
import type { Catalogue, CatalogueColumn, CatalogueForeignKey, CatalogueTable } from './catalogue.js';
import { catalogueNumber, declaredBaseType, deleteRule, distinctLists, groupBy, typeArguments } from './catalogue-types.js';
import type { CatalogueReadOptions } from './catalogue-reader.js';
import { sqliteChecks } from './sqlite-checks.js';

interface TableRow {
  name: string;
  type: 'table' | 'view';
  wr: unknown;
  sql: string | null;
}

interface ColumnRow {
  cid: unknown;
  name: string;
  type: string | null;
  notnull: unknown;
  dflt_value: string | null;
  pk: unknown;
  hidden: unknown;
}

interface IndexRow {
  name: string;
  unique: unknown;
  origin: string;
  partial: unknown;
}

interface IndexColumnRow {
  seqno: unknown;
  cid: unknown;
  name: string | null;
}

interface ForeignKeyRow {
  id: unknown;
  seq: unknown;
  table: string;
  from: string;
  to: string | null;
  on_delete: string;
}

/**
 * SQLite's catalogue (schema `main`): sqlite_master and pragma table_list for tables, views and
 * WITHOUT ROWID; pragma table_xinfo for columns (hidden 2/3: generated virtual/stored), the
 * rowid alias (INTEGER PRIMARY KEY, AUTOINCREMENT or not) as auto-numbered; pragma
 * index_list/index_info for uniques and indexes (expression indexes left out); pragma
 * foreign_key_list for foreign keys; CHECKs from the CREATE TABLE text. Only reads.
 */
export async function readSqliteCatalogue(db: Kysely<DynamicDb>, options: CatalogueReadOptions): Promise<Catalogue> {
  const listed = await sql<TableRow>`select l.name as name, l.type as type, l.wr as wr, m.sql as sql
    from pragma_table_list as l join sqlite_master as m on m.name = l.name and m.type = l.type
    where l.schema = 'main' and l.type in ('table', 'view') and l.name not like 'sqlite\\_%' escape '\\'
    order by l.name`.execute(db);
  const names = new Map(listed.rows.map((row) => [row.name.toLowerCase(), row.name]));
  const tables: CatalogueTable[] = [];
  for (const row of listed.rows) {
    if (!options.wanted(row.name)) continue;
    const table = await readTable(db, row);
    if (table !== undefined) tables.push(table);
  }
  // A key may name its table in another case, or leave out the columns (the referenced primary key).
  const keys = new Map(tables.map((table) => [table.name.toLowerCase(), table.primaryKey]));
  for (const table of tables) {
    for (const key of table.foreignKeys) {
      key.referencedTable = names.get(key.referencedTable.toLowerCase()) ?? key.referencedTable;
      if (key.referencedColumns.length === 0) {
        const primaryKey = keys.get(key.referencedTable.toLowerCase()) ?? (await primaryKeyOf(db, key.referencedTable));
        key.referencedColumns = [...primaryKey];
      }
    }
  }
  return { schema: 'main', tables };
}

async function columnRows(db: Kysely<DynamicDb>, table: string): Promise<ColumnRow[]> {
  const result = await sql<ColumnRow>`select cid, name, type, "notnull" as "notnull", dflt_value, pk, hidden from pragma_table_xinfo(${table}) order by cid`.execute(db);
  return result.rows;
}

async function primaryKeyOf(db: Kysely<DynamicDb>, table: string): Promise<string[]> {
  const rows = await columnRows(db, table).catch(() => []);
  return rows.filter((row) => catalogueNumber(row.pk) > 0).sort((a, b) => catalogueNumber(a.pk) - catalogueNumber(b.pk)).map((row) => row.name);
}

async function readTable(db: Kysely<DynamicDb>, row: TableRow): Promise<CatalogueTable | undefined> {
  const view = row.type === 'view';
  // A view over a table dropped since cannot be read: it is left out rather than failing the whole read.
  const columnList = await columnRows(db, row.name).catch((error: unknown) => {
    if (view) return undefined;
    throw error;
  });
  if (columnList === undefined) return undefined;
  const withoutRowid = catalogueNumber(row.wr) === 1;
  const keyColumns = columnList.filter((column) => catalogueNumber(column.pk) > 0).sort((a, b) => catalogueNumber(a.pk) - catalogueNumber(b.pk));
  const primaryKey = keyColumns.map((column) => column.name);
  const rowidAlias = !view && !withoutRowid && keyColumns.length === 1 && (keyColumns[0]!.type ?? '').toUpperCase() === 'INTEGER' ? keyColumns[0]!.name : undefined;
  const columns = columnList.map((column): CatalogueColumn => {
    const rawType = (column.type ?? '').toLowerCase();
    const baseType = declaredBaseType(rawType);
    const hidden = catalogueNumber(column.hidden);
    const inKey = catalogueNumber(column.pk) > 0;
    return {
      name: column.name,
      rawType,
      baseType,
      nullable: catalogueNumber(column.notnull) === 0 && column.name !== rowidAlias && !(withoutRowid && inKey),
      ...(column.dflt_value === null ? {} : { defaultSql: column.dflt_value }),
      autoIncrement: column.name === rowidAlias,
      generated: hidden === 2 || hidden === 3,
      ...typeArguments(baseType, rawType),
    };
  });
  if (view) return { name: row.name, kind: 'view', columns, primaryKey: [], uniques: [], indexes: [], foreignKeys: [], checks: [] };
  const { uniques, indexes } = await readIndexes(db, row.name);
  return {
    name: row.name,
    kind: 'table',
    columns,
    primaryKey,
    uniques: distinctLists(uniques, primaryKey),
    indexes,
    foreignKeys: await readForeignKeys(db, row.name),
    checks: sqliteChecks(row.sql ?? ''),
  };
}

async function readIndexes(db: Kysely<DynamicDb>, table: string): Promise<Pick<CatalogueTable, 'uniques' | 'indexes'>> {
  const list = await sql<IndexRow>`select name, "unique" as "unique", origin, partial from pragma_index_list(${table})`.execute(db);
  const uniques: string[][] = [];
  const indexes: CatalogueTable['indexes'] = [];
  // index_list gives the newest first; the oldest first reads like the CREATE TABLE.
  for (const index of [...list.rows].reverse()) {
    if (index.origin === 'pk') continue;
    const parts = await sql<IndexColumnRow>`select seqno, cid, name from pragma_index_info(${index.name}) order by seqno`.execute(db);
    // cid -2: an expression; -1: the rowid.
    if (parts.rows.some((part) => part.name === null || catalogueNumber(part.cid) < 0)) continue;
    const columns = parts.rows.map((part) => part.name!);
    if (catalogueNumber(index.unique) === 1 && catalogueNumber(index.partial) === 0) uniques.push(columns);
    else indexes.push({ name: index.name, columns });
  }
  return { uniques, indexes };
}

async function readForeignKeys(db: Kysely<DynamicDb>, table: string): Promise<CatalogueForeignKey[]> {
  const rows = await sql<ForeignKeyRow>`select id, seq, "table" as "table", "from" as "from", "to" as "to", on_delete from pragma_foreign_key_list(${table}) order by id, seq`.execute(db);
  const byId = groupBy(rows.rows, (row) => String(row.id));
  // foreign_key_list numbers keys from the last written; reverse for the order of the CREATE TABLE.
  return [...byId.values()].reverse().map((parts) => ({
    columns: parts.map((part) => part.from),
    referencedTable: parts[0]!.table,
    referencedColumns: parts.every((part) => part.to !== null) ? parts.map((part) => part.to!) : [],
    onDelete: deleteRule(parts[0]!.on_delete),
  }));
}
