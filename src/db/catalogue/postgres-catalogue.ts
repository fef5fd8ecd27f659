import { sql, type Kysely } from 'kysely';
import type { DynamicDb } from '../database.js';
import { POSTGRES_DEFAULT_SCHEMA } from '../postgres-schema.js';
import type { Catalogue, CatalogueColumn, CatalogueTable } from './catalogue.js';
import type { CatalogueReadOptions } from './catalogue-reader.js';
import { checkCondition, deleteRule, placeIndexes, groupBy, typeArguments } from './catalogue-types.js';

interface RelationRow {
  name: string;
  kind: string;
  comment: string | null;
}

interface ColumnRow {
  table_name: string;
  name: string;
  raw_type: string;
  base_type: string;
  type_kind: string;
  is_array: boolean;
  element_type: string | null;
  element_kind: string | null;
  enum_values: string | null;
  not_null: boolean;
  default_sql: string | null;
  identity: string;
  generated: string;
  comment: string | null;
}

interface IndexRow {
  table_name: string;
  name: string;
  is_unique: boolean;
  is_primary: boolean;
  partial: boolean;
  column_name: string | null;
}

interface ForeignKeyRow {
  table_name: string;
  name: string;
  column_name: string;
  referenced_table: string;
  referenced_schema: string;
  referenced_column: string;
  on_delete: string;
}

interface CheckRow {
  table_name: string;
  name: string;
  definition: string;
}

const KINDS: Record<string, CatalogueTable['kind']> = { r: 'table', p: 'table', v: 'view', m: 'materializedView' };

/** pg_constraint.confdeltype letters. */
const DELETE_ACTIONS: Record<string, string> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };

/**
 * PostgreSQL's catalogue of one schema (default `public`) from pg_catalog: pg_class (relkind r/p
 * tables, partitions left out; v views; m materialized views) and obj_description; pg_attribute
 * with format_type, pg_attrdef, attidentity, attgenerated, pg_type (arrays, domains, enums with
 * pg_enum) and col_description; pg_index for the primary key, uniques and indexes (expression
 * indexes and INCLUDE columns left out, partial unique indexes counted as indexes);
 * pg_constraint for foreign keys (f) and checks (c). Only SELECTs.
 */
export async function readPostgresCatalogue(db: Kysely<DynamicDb>, options: CatalogueReadOptions): Promise<Catalogue> {
  const schema = options.schema ?? POSTGRES_DEFAULT_SCHEMA;
  const relations = await sql<RelationRow>`select c.relname as name, c.relkind::text as kind, pg_catalog.obj_description(c.oid, 'pg_class') as comment
    from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v', 'm') and not c.relispartition
    order by c.relname`.execute(db);
  const tables = new Map<string, CatalogueTable>();
  for (const row of relations.rows) {
    if (!options.wanted(row.name)) continue;
    tables.set(row.name, {
      name: row.name,
      kind: KINDS[row.kind] ?? 'table',
      columns: [],
      primaryKey: [],
      uniques: [],
      indexes: [],
      foreignKeys: [],
      checks: [],
      ...(row.comment === null ? {} : { comment: row.comment }),
    });
  }
  if (tables.size === 0) return { schema, tables: [] };

  const columns = await sql<ColumnRow>`select c.relname as table_name, a.attname as name,
      pg_catalog.format_type(a.atttypid, a.atttypmod) as raw_type,
      pg_catalog.format_type(t.oid, null) as base_type,
      t.typtype::text as type_kind, t.typcategory = 'A' as is_array,
      pg_catalog.format_type(et.oid, null) as element_type, et.typtype::text as element_kind,
      (select json_agg(e.enumlabel order by e.enumsortorder)::text from pg_catalog.pg_enum e
        where e.enumtypid = case when t.typtype = 'e' then t.oid when et.typtype = 'e' then et.oid end) as enum_values,
      a.attnotnull as not_null, pg_catalog.pg_get_expr(d.adbin, d.adrelid) as default_sql,
      a.attidentity::text as identity, a.attgenerated::text as generated,
      pg_catalog.col_description(a.attrelid, a.attnum) as comment
    from pg_catalog.pg_attribute a
      join pg_catalog.pg_class c on c.oid = a.attrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_type t0 on t0.oid = a.atttypid
      join pg_catalog.pg_type t on t.oid = case when t0.typtype = 'd' then t0.typbasetype else t0.oid end
      left join pg_catalog.pg_type et on et.oid = t.typelem and t.typcategory = 'A'
      left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where n.nspname = ${schema} and c.relkind in ('r', 'p', 'v', 'm') and not c.relispartition and a.attnum > 0 and not a.attisdropped
    order by c.relname, a.attnum`.execute(db);
  for (const row of columns.rows) tables.get(row.table_name)?.columns.push(column(row));

  const indexes = await sql<IndexRow>`select c.relname as table_name, ic.relname as name, i.indisunique as is_unique, i.indisprimary as is_primary,
      i.indpred is not null as partial, a.attname as column_name
    from pg_catalog.pg_index i
      join pg_catalog.pg_class c on c.oid = i.indrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_class ic on ic.oid = i.indexrelid
      cross join lateral unnest(i.indkey::int2[]) with ordinality as k(attnum, position)
      left join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum and k.attnum > 0
    where n.nspname = ${schema} and k.position <= i.indnkeyatts
    order by c.relname, ic.relname, k.position`.execute(db);
  // attnum 0 (no column name): an expression; a partial unique index is no unique constraint.
  placeIndexes(tables, indexes.rows, (first) => (first.is_primary ? 'primary' : first.is_unique && !first.partial ? 'unique' : 'index'));

  const keys = await sql<ForeignKeyRow>`select c.relname as table_name, con.conname as name, a.attname as column_name,
      fc.relname as referenced_table, fn.nspname as referenced_schema, fa.attname as referenced_column, con.confdeltype::text as on_delete
    from pg_catalog.pg_constraint con
      join pg_catalog.pg_class c on c.oid = con.conrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      cross join lateral unnest(con.conkey, con.confkey) with ordinality as k(attnum, fattnum, position)
      join pg_catalog.pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
      join pg_catalog.pg_class fc on fc.oid = con.confrelid
      join pg_catalog.pg_namespace fn on fn.oid = fc.relnamespace
      join pg_catalog.pg_attribute fa on fa.attrelid = con.confrelid and fa.attnum = k.fattnum
    where n.nspname = ${schema} and con.contype = 'f' and con.conparentid = 0
    order by c.relname, con.conname, k.position`.execute(db);
  for (const parts of groupBy(keys.rows, (row) => `${row.table_name}\u0000${row.name}`).values()) {
    const first = parts[0]!;
    const table = tables.get(first.table_name);
    // A key into another schema is not a relation inside this catalogue.
    if (table === undefined || first.referenced_schema !== schema) continue;
    table.foreignKeys.push({
      name: first.name,
      columns: parts.map((part) => part.column_name),
      referencedTable: first.referenced_table,
      referencedColumns: parts.map((part) => part.referenced_column),
      onDelete: deleteRule(DELETE_ACTIONS[first.on_delete]),
    });
  }

  const checks = await sql<CheckRow>`select c.relname as table_name, con.conname as name, pg_catalog.pg_get_constraintdef(con.oid) as definition
    from pg_catalog.pg_constraint con
      join pg_catalog.pg_class c on c.oid = con.conrelid
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${schema} and con.contype = 'c'
    order by c.relname, con.conname`.execute(db);
  for (const row of checks.rows) tables.get(row.table_name)?.checks?.push({ name: row.name, expression: checkCondition(row.definition) });

  return { schema, tables: [...tables.values()] };
}

function column(row: ColumnRow): CatalogueColumn {
  const enumValues = row.enum_values === null ? undefined : (JSON.parse(row.enum_values) as string[]);
  const baseType = row.is_array ? 'array' : row.type_kind === 'e' ? 'enum' : row.base_type;
  const elementType = row.is_array && row.element_type !== null ? (row.element_kind === 'e' ? 'enum' : row.element_type) : undefined;
  const storedGenerated = row.generated === 's';
  // The expression of a stored generated column sits in pg_attrdef too: it is not a default.
  const defaultSql = storedGenerated ? null : row.default_sql;
  return {
    name: row.name,
    rawType: row.raw_type,
    baseType,
    nullable: !row.not_null,
    ...(defaultSql === null ? {} : { defaultSql }),
    autoIncrement: row.identity === 'a' || row.identity === 'd' || (defaultSql ?? '').startsWith('nextval('),
    generated: row.identity === 'a' || storedGenerated,
    ...typeArguments(row.base_type, row.raw_type),
    ...(enumValues === undefined ? {} : { enumValues }),
    ...(elementType === undefined ? {} : { elementType }),
    ...(row.comment === null ? {} : { comment: row.comment }),
  };
}
