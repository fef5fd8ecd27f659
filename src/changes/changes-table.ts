import { sql, type CreateTableBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import type { Dialect } from '../schema/types.js';

/** The outbox: one row per changed row of a committed write. */
export const CHANGES_TABLE = 'corral_changes';
/** One row (`name = 'changes'`): the last event id handed out and the highest id pruned. */
export const CHANGES_COUNTER_TABLE = 'corral_change_counter';
export const COUNTER_NAME = 'changes';
/**
 * PostgreSQL only: events written but not numbered yet. Ids are given when committed rows are
 * published (publishPending), so writers never wait on one another for the outbox.
 */
export const CHANGES_PENDING_TABLE = 'corral_changes_pending';

/** A stored event as the table holds it. */
export interface ChangeRow {
  id: number;
  collection: string;
  action: string;
  /** JSON text of the key. */
  key: string;
  /** JSON text of the row after the change (before it, for destroy). */
  data: string;
  /** Milliseconds since the epoch. */
  at: number;
}

/** The columns an event has in both the outbox and (PostgreSQL) its pending table, after the id. */
function eventColumns(table: CreateTableBuilder<string, string>, dialect: Dialect): CreateTableBuilder<string, string> {
  return table
    .addColumn('collection', 'varchar(255)', (c) => c.notNull())
    .addColumn('action', 'varchar(16)', (c) => c.notNull())
    .addColumn('key', 'varchar(512)', (c) => c.notNull())
    .addColumn('data', dialect === 'mysql' ? sql`longtext` : sql`text`, (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull());
}

/** Creates the outbox tables if missing (several nodes may race here: the loser finds them made). */
export async function ensureChangesTables(db: Db, dialect: Dialect): Promise<void> {
  const tryCreate = (table: string, run: () => Promise<unknown>): Promise<void> => createTableRacing(db, table, run);
  await tryCreate(CHANGES_TABLE, () =>
    // SQLite: `integer primary key` is the rowid itself, so an event writes one b-tree, not a table and an index.
    eventColumns(db.schema.createTable(CHANGES_TABLE).ifNotExists().addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigint', (c) => c.primaryKey()), dialect).execute(),
  );
  await tryCreate(CHANGES_COUNTER_TABLE, () =>
    db.schema
      .createTable(CHANGES_COUNTER_TABLE)
      .ifNotExists()
      .addColumn('name', 'varchar(32)', (c) => c.primaryKey())
      .addColumn('last', 'bigint', (c) => c.notNull())
      .addColumn('pruned', 'bigint', (c) => c.notNull())
      .execute(),
  );
  if (dialect === 'postgres') {
    await tryCreate(CHANGES_PENDING_TABLE, () =>
      eventColumns(db.schema.createTable(CHANGES_PENDING_TABLE).ifNotExists().addColumn('seq', 'bigserial', (c) => c.primaryKey()), dialect).execute(),
    );
  }
  const existing = await db.selectFrom(CHANGES_COUNTER_TABLE).select('name').where('name', '=', COUNTER_NAME).execute();
  if (existing.length === 0) {
    try {
      await db.insertInto(CHANGES_COUNTER_TABLE).values({ name: COUNTER_NAME, last: 0, pruned: 0 }).execute();
    } catch (error) {
      const again = await db.selectFrom(CHANGES_COUNTER_TABLE).select('name').where('name', '=', COUNTER_NAME).execute();
      if (again.length === 0) throw error;
    }
  }
}

/**
 * Runs a CREATE TABLE IF NOT EXISTS that other nodes (or workers) starting at once on a fresh
 * database may run too: PostgreSQL reports the loser's as a unique violation in its
 * catalogue. The loser waits for the winner's table to appear instead of failing to start.
 */
export async function createTableRacing(db: Db, table: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    for (let attempt = 0; attempt < CREATE_RACE_ATTEMPTS; attempt++) {
      if (await tableExists(db, table)) return;
      await new Promise((resolve) => setTimeout(resolve, CREATE_RACE_WAIT_MS));
    }
    throw error;
  }
}

/** How often, and how long apart, a node that lost a CREATE TABLE race looks for the winner's table. */
const CREATE_RACE_ATTEMPTS = 40;
const CREATE_RACE_WAIT_MS = 50;

/** Whether `table` can be read (false on the error a missing table gives). */
async function tableExists(db: Db, table: string): Promise<boolean> {
  return db
    .selectFrom(table)
    .select(sql`1`.as('one'))
    .limit(1)
    .execute()
    .then(
      () => true,
      () => false,
    );
}

/** Driver rows (bigint, numeric strings) to plain ChangeRows. */
export function toChangeRow(raw: Record<string, unknown>): ChangeRow {
  return {
    id: Number(raw.id),
    collection: String(raw.collection),
    action: String(raw.action),
    key: String(raw.key),
    data: String(raw.data),
    at: Number(raw.at),
  };
}
