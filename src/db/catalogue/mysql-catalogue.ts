import { sql, type Kysely } from 'kysely';
import type { DynamicDb } from '../database.js';
import type { Catalogue, CatalogueColumn, CatalogueTable } from './catalogue.js';
import type { CatalogueReadOptions } from './catalogue-reader.js';
import { catalogueNumber, checkCondition, deleteRule, placeIndexes, groupBy, quotedMembers, typeArguments } from './catalogue-types.js';

interface TableRow {
  name: string;
  type: string;
  comment: string | null;
}

interface ColumnRow {
  table_name: string;
  name: string;
  default_value: string | null;
  is_nullable: string;
  data_type: string;
  column_type: string;
  extra: string | null;
  comment: string | null;
}

interface IndexRow {
  table_name: string;
  name: string;
  non_unique: unknown;
  column_name: string | null;
  sub_part: unknown;
}

interface ForeignKeyRow {
  table_name: string;
  name: string;
  column_name: string;
  referenced_table: string;
  referenced_column: string;
  delete_rule: string;
}

interface CheckRow {
  table_name: string;
  name: string;
  clause: string;
}

const KINDS: Record<string, CatalogueTable['kind']> = { 'BASE TABLE': 'table', 'SYSTEM VERSIONED': 'table', VIEW: 'view' };

/** Types whose default MySQL shows as a bare number. */
const NUMERIC_TYPES = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint', 'decimal', 'numeric', 'float', 'double', 'real', 'year', 'bit']);

/** MariaDB's JSON: a longtext with a `json_valid(`column`)` check. */
const JSON_VALID = /^json_valid\(`((?:[^`]|``)+)`\)$/i;

/**
 * The MySQL/MariaDB catalogue of the connection's database (`database()`), from
 * information_schema: TABLES (BASE TABLE, SYSTEM VERSIONED and VIEW; sequences left out),
 * COLUMNS (COLUMN_TYPE, COLUMN_DEFAULT, EXTRA auto_increment and VIRTUAL/STORED/PERSISTENT
 * GENERATED), STATISTICS (PRIMARY, uniques, indexes; functional and prefix uniques as indexes),
 * KEY_COLUMN_USAGE with REFERENTIAL_CONSTRAINTS (foreign keys) and CHECK_CONSTRAINTS. Only SELECTs.
 */
export async function readMysqlCatalogue(db: Kysely<DynamicDb>, options: CatalogueReadOptions): Promise<Catalogue> {
  const about = await sql<{ schema: string | null; version: string }>`select database() as ${sql.ref('schema')}, version() as version`.execute(db);
  const schema = about.rows[0]?.schema ?? '';
  const mariadb = /mariadb/i.test(about.rows[0]?.version ?? '');
  const listed = await sql<TableRow>`select table_name as name, table_type as type, table_comment as comment
    from information_schema.tables where table_schema = database() order by table_name`.execute(db);
  const tables = new Map<string, CatalogueTable>();
  for (const row of listed.rows) {
    const kind = KINDS[row.type];
    if (kind === undefined || !options.wanted(row.name)) continue;
    const comment = kind === 'table' && row.comment !== null && row.comment !== '' ? row.comment : undefined;
    tables.set(row.name, { name: row.name, kind, columns: [], primaryKey: [], uniques: [], indexes: [], foreignKeys: [], checks: [], ...(comment === undefined ? {} : { comment }) });
  }
  if (tables.size === 0) return { schema, tables: [] };

  const checks = await readChecks(db, mariadb);
  const jsonColumns = new Set<string>();
  for (const row of checks) {
    const table = tables.get(row.table_name);
    if (table === undefined || table.kind !== 'table') continue;
    const json = JSON_VALID.exec(row.clause.trim());
    if (json !== null) jsonColumns.add(`${row.table_name}\u0000${json[1]!.replace(/``/g, '`')}`);
    table.checks?.push({ name: row.name, expression: checkCondition(row.clause) });
  }

  const columns = await sql<ColumnRow>`select table_name, column_name as name, column_default as default_value, is_nullable,
      data_type, column_type, extra, column_comment as comment
    from information_schema.columns where table_schema = database() order by table_name, ordinal_position`.execute(db);
  for (const row of columns.rows) {
    const table = tables.get(row.table_name);
    if (table === undefined) continue;
    // A view column shows its source column's default (MariaDB: even a made-up 0); nothing writes through a view.
    const read = column(table.kind === 'view' ? { ...row, default_value: null } : row, mariadb, jsonColumns.has(`${row.table_name}\u0000${row.name}`));
    table.columns.push(read);
  }

  const indexes = await sql<IndexRow>`select table_name, index_name as name, non_unique, column_name, sub_part
    from information_schema.statistics where table_schema = database() order by table_name, index_name, seq_in_index`.execute(db);
  // A functional index (MySQL 8) has no column name; a prefix index is no unique constraint on the column.
  placeIndexes(tables, indexes.rows, (first, parts) => (first.name === 'PRIMARY' ? 'primary' : catalogueNumber(first.non_unique) === 0 && !parts.some((part) => part.sub_part !== null) ? 'unique' : 'index'));

  const keys = await sql<ForeignKeyRow>`select k.table_name as table_name, k.constraint_name as name, k.column_name as column_name,
      k.referenced_table_name as referenced_table, k.referenced_column_name as referenced_column, r.delete_rule as delete_rule
    from information_schema.key_column_usage k
      join information_schema.referential_constraints r
        on r.constraint_schema = k.constraint_schema and r.constraint_name = k.constraint_name and r.table_name = k.table_name
    where k.table_schema = database() and k.referenced_table_schema = database() and k.referenced_table_name is not null
    order by k.table_name, k.constraint_name, k.ordinal_position`.execute(db);
  for (const parts of groupBy(keys.rows, (row) => `${row.table_name}\u0000${row.name}`).values()) {
    const first = parts[0]!;
    tables.get(first.table_name)?.foreignKeys.push({
      name: first.name,
      columns: parts.map((part) => part.column_name),
      referencedTable: first.referenced_table,
      referencedColumns: parts.map((part) => part.referenced_column),
      onDelete: deleteRule(first.delete_rule),
    });
  }
  return { schema, tables: [...tables.values()] };
}

/** CHECK constraints: MariaDB names the table in CHECK_CONSTRAINTS; MySQL 8 through TABLE_CONSTRAINTS (none before 8.0.16). */
async function readChecks(db: Kysely<DynamicDb>, mariadb: boolean): Promise<CheckRow[]> {
  const query = mariadb
    ? sql<CheckRow>`select table_name as table_name, constraint_name as name, check_clause as clause
        from information_schema.check_constraints where constraint_schema = database() order by table_name, constraint_name`
    : sql<CheckRow>`select tc.table_name as table_name, cc.constraint_name as name, cc.check_clause as clause
        from information_schema.table_constraints tc
          join information_schema.check_constraints cc on cc.constraint_schema = tc.constraint_schema and cc.constraint_name = tc.constraint_name
        where tc.table_schema = database() and tc.constraint_type = 'CHECK' order by tc.table_name, cc.constraint_name`;
  return query.execute(db).then(
    (result) => result.rows,
    () => [],
  );
}

function column(row: ColumnRow, mariadb: boolean, json: boolean): CatalogueColumn {
  const extra = row.extra ?? '';
  const generated = /\b(VIRTUAL|STORED|PERSISTENT) GENERATED\b/i.test(extra);
  const rawType = json ? 'json' : row.column_type;
  const baseType = json ? 'json' : row.data_type.toLowerCase();
  const defaultSql = generated ? undefined : defaultExpression(row, baseType, mariadb, extra);
  return {
    name: row.name,
    rawType,
    baseType,
    nullable: row.is_nullable === 'YES',
    ...(defaultSql === undefined ? {} : { defaultSql }),
    autoIncrement: /\bauto_increment\b/i.test(extra),
    generated,
    ...typeArguments(baseType, rawType),
    ...(baseType === 'enum' || baseType === 'set' ? { enumValues: quotedMembers(row.column_type) } : {}),
    ...(row.comment === null || row.comment === '' ? {} : { comment: row.comment }),
  };
}

/**
 * COLUMN_DEFAULT as an expression. MariaDB (10.2.7+) already shows one (`'retail'`, `1`,
 * `current_timestamp()`, `NULL` for no default); MySQL shows literals bare and marks
 * expressions DEFAULT_GENERATED, so a bare non-numeric literal is quoted here.
 */
function defaultExpression(row: ColumnRow, baseType: string, mariadb: boolean, extra: string): string | undefined {
  const value = row.default_value;
  if (value === null) return undefined;
  if (mariadb) return value === 'NULL' ? undefined : value;
  if (/\bDEFAULT_GENERATED\b/i.test(extra) || NUMERIC_TYPES.has(baseType) || /^current_timestamp(\(\d*\))?$/i.test(value)) return value;
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}
