import { CompiledQuery, Kysely, sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import { DatabaseExecutor } from '../../src/db/database-executor.js';
import type { Dialect } from '../../src/schema/types.js';

/** One statement Corral ran: its SQL text and the values bound to it. */
export interface RanStatement {
  sql: string;
  params: readonly unknown[];
}

/**
 * The statements Corral runs while `work` runs: every statement goes through Kysely's
 * `executeQuery` (a fresh shape, a transaction) or the database executor's cheaper paths
 * (a cached shape on SQLite's direct reader or PostgreSQL's pooled runner).
 */
export async function captureStatements(work: () => Promise<unknown>): Promise<RanStatement[]> {
  const ran: RanStatement[] = [];
  const kyselyOriginal = Kysely.prototype.executeQuery;
  const executorOriginal = DatabaseExecutor.prototype.run;
  Kysely.prototype.executeQuery = function (this: Kysely<Record<string, unknown>>, query: Parameters<typeof kyselyOriginal>[0]) {
    const compiled = (typeof (query as { compile?: unknown }).compile === 'function' ? (query as { compile(): CompiledQuery }).compile() : query) as CompiledQuery;
    ran.push({ sql: compiled.sql, params: compiled.parameters });
    return kyselyOriginal.call(this, query) as never;
  } as typeof kyselyOriginal;
  DatabaseExecutor.prototype.run = function (this: DatabaseExecutor, text: string, params: readonly unknown[], one?: boolean, query?: CompiledQuery) {
    ran.push({ sql: text, params });
    return executorOriginal.call(this, text, params, one, query);
  } as typeof executorOriginal;
  try {
    await work();
  } finally {
    Kysely.prototype.executeQuery = kyselyOriginal;
    DatabaseExecutor.prototype.run = executorOriginal;
  }
  return ran;
}

/** What the database plans for a statement: the index names it reads, and the plan as text (for failure messages). */
export interface Plan {
  indexes: string[];
  text: string;
}

function walkPostgres(node: Record<string, unknown>, out: string[]): void {
  if (typeof node['Index Name'] === 'string') out.push(node['Index Name']);
  for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walkPostgres(child, out);
}

/**
 * EXPLAINs a statement as Corral ran it, with its values, on the dialect's own plan form:
 * SQLite `EXPLAIN QUERY PLAN` (`USING [COVERING] INDEX <name>`), PostgreSQL `EXPLAIN (FORMAT
 * JSON)` with sequential scans off on that connection (a test table is too small for the
 * planner to prefer an index otherwise), MySQL `EXPLAIN` (the `key` column).
 */
export async function explain(db: Db, dialect: Dialect, statement: RanStatement): Promise<Plan> {
  switch (dialect) {
    case 'sqlite': {
      const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.params]));
      const text = rows.map((row) => row.detail).join('\n');
      return { indexes: [...text.matchAll(/USING (?:COVERING )?INDEX (\S+)/g)].map((match) => match[1]!), text };
    }
    case 'postgres':
      return db.connection().execute(async (connection) => {
        await sql`set enable_seqscan = off`.execute(connection);
        try {
          const { rows } = await connection.executeQuery<{ 'QUERY PLAN': unknown }>(CompiledQuery.raw(`explain (format json) ${statement.sql}`, [...statement.params]));
          const raw = rows[0]!['QUERY PLAN'];
          const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: Record<string, unknown> }[];
          const indexes: string[] = [];
          walkPostgres(plan[0]!.Plan, indexes);
          return { indexes, text: JSON.stringify(plan) };
        } finally {
          await sql`reset enable_seqscan`.execute(connection);
        }
      });
    case 'mysql': {
      const { rows } = await db.executeQuery<{ key: string | null; table: string; type: string; Extra?: string }>(CompiledQuery.raw(`explain ${statement.sql}`, [...statement.params]));
      return { indexes: rows.flatMap((row) => (row.key === null ? [] : row.key.split(','))), text: JSON.stringify(rows) };
    }
  }
}

/** The index names a dialect's catalogue lists for a table (what DDL really made). */
export async function tableIndexes(db: Db, dialect: Dialect, table: string): Promise<string[]> {
  switch (dialect) {
    case 'sqlite': {
      const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = ${table} and sql is not null`.execute(db);
      return rows.map((row) => row.name).sort();
    }
    case 'postgres': {
      const { rows } = await sql<{ indexname: string }>`select indexname from pg_indexes where tablename = ${table} and schemaname = current_schema()`.execute(db);
      return rows.map((row) => row.indexname).filter((name) => !name.endsWith('_pkey')).sort();
    }
    case 'mysql': {
      const { rows } = await sql<{ name: string }>`select distinct index_name as name from information_schema.statistics where table_schema = database() and table_name = ${table} and index_name <> 'PRIMARY'`.execute(db);
      return rows.map((row) => row.name).sort();
    }
  }
}
