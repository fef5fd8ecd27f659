import type { Db } from '../db/database.js';
import { adapterOf } from '../db/dialects/adapters.js';
import { createTableRacing, systemTable, type SystemColumn } from '../db/system-table.js';
import type { Dialect } from '../schema/types.js';

/** The outbox: one row per changed row of a committed write. */
export const CHANGES_TABLE = 'corral_changes';
/** One row (`name = 'changes'`): the last event id handed out and the highest id pruned. */
export const CHANGES_COUNTER_TABLE = 'corral_change_counter';
export const COUNTER_NAME = 'changes';
/**
 * Where the adapter has a pending outbox (PostgreSQL): events written but not numbered yet. Ids are given when committed rows are
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

/** The columns an event has in both the outbox and its pending table, after the id. */
const EVENT_COLUMNS: readonly SystemColumn[] = [
  { name: 'collection', type: 'varchar(255)', notNull: true },
  { name: 'action', type: 'varchar(16)', notNull: true },
  { name: 'key', type: 'varchar(512)', notNull: true },
  { name: 'data', type: 'longText', notNull: true },
  { name: 'at', type: 'bigint', notNull: true },
];

/** Creates the outbox tables if missing (several nodes may race here: the loser finds them made). */
export async function ensureChangesTables(db: Db, dialect: Dialect): Promise<void> {
  const adapter = adapterOf(dialect);
  const tryCreate = (table: string, run: () => Promise<unknown>): Promise<void> => createTableRacing(db, table, run);
  await tryCreate(CHANGES_TABLE, () =>
    // SQLite: `integer primary key` is the rowid itself, so an event writes one b-tree, not a table and an index.
    systemTable(db, adapter, { name: CHANGES_TABLE, columns: [{ name: 'id', type: 'integerKey', primaryKey: true }, ...EVENT_COLUMNS] }),
  );
  await tryCreate(CHANGES_COUNTER_TABLE, () =>
    systemTable(db, adapter, {
      name: CHANGES_COUNTER_TABLE,
      columns: [
        { name: 'name', type: 'varchar(32)', primaryKey: true },
        { name: 'last', type: 'bigint', notNull: true },
        { name: 'pruned', type: 'bigint', notNull: true },
      ],
    }),
  );
  if (adapter.capabilities.pendingOutbox) {
    await tryCreate(CHANGES_PENDING_TABLE, () =>
      systemTable(db, adapter, { name: CHANGES_PENDING_TABLE, columns: [{ name: 'seq', type: 'wideSerialKey' }, ...EVENT_COLUMNS] }),
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
