import type { Db } from '../db/database.js';
import { createTableRacing } from '../changes/changes-table.js';
import type { Database } from '../db/database.js';
import type { Collection } from '../schema/collection.js';
import { moveOldWebhooks } from './webhook-migration.js';

/** Per webhook: its secret (never in the collection's rows, so never in an event), feed cursor and delivery lease. */
export const STATE_TABLE = 'corral_webhook_state';
export const DELIVERIES_TABLE = 'corral_webhook_deliveries';

/**
 * The delivery machinery's own tables (the webhook definitions are the `webhooks` collection).
 * The deliveries' generated id is the one dialect-specific column.
 */
export async function ensureWebhookTables(database: Database, webhooks: Collection | undefined): Promise<void> {
  const { db, dialect } = database;
  await createTableRacing(db, STATE_TABLE, () =>
    db.schema
      .createTable(STATE_TABLE)
      .ifNotExists()
      .addColumn('webhook_id', 'bigint', (c) => c.primaryKey())
      .addColumn('secret', 'varchar(512)', (c) => c.notNull())
      .addColumn('cursor', 'bigint', (c) => c.notNull())
      .addColumn('lease_owner', 'varchar(64)')
      .addColumn('lease_until', 'bigint')
      .execute(),
  );
  await createTableRacing(db, DELIVERIES_TABLE, () =>
    db.schema
      .createTable(DELIVERIES_TABLE)
      .ifNotExists()
      .addColumn('id', dialect === 'postgres' ? 'serial' : 'integer', (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
      .addColumn('webhook_id', 'bigint', (c) => c.notNull())
      .addColumn('event_id', 'bigint', (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_at', 'bigint', (c) => c.notNull())
      .addColumn('last_error', 'text')
      .execute(),
  );
  if (webhooks !== undefined) await moveOldWebhooks(database, webhooks);
}

/** A new webhook's state, written in the same transaction as its row. */
export async function insertWebhookState(db: Db, id: number, secret: string, cursor: number): Promise<void> {
  await db.insertInto(STATE_TABLE).values({ webhook_id: id, secret, cursor }).execute();
}

export async function updateWebhookSecret(db: Db, id: number, secret: string): Promise<void> {
  await db.updateTable(STATE_TABLE).set({ secret }).where('webhook_id', '=', id).execute();
}

/** A destroyed webhook's state and deliveries, in the same transaction as its row. */
export async function deleteWebhookState(db: Db, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom(DELIVERIES_TABLE).where('webhook_id', 'in', ids).execute();
  await db.deleteFrom(STATE_TABLE).where('webhook_id', 'in', ids).execute();
}
