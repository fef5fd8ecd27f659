import type { Db } from '../../db/database.js';
import type { Database } from '../../db/database.js';
import { adapterOf } from '../../db/dialects/adapters.js';
import { createTableRacing, systemTable, type SystemTable } from '../../db/system-table.js';
import type { Collection } from '../../schema/collection.js';
import { moveOldWebhooks } from './webhook-migration.js';

/** Per webhook: its secret (never in the collection's rows, so never in an event), feed cursor and delivery lease. */
export const STATE_TABLE = 'corral_webhook_state';
export const DELIVERIES_TABLE = 'corral_webhook_deliveries';

/** The delivery machinery's own tables (the webhook definitions are the `webhooks` collection). */
export const WEBHOOK_TABLES: readonly SystemTable[] = [
  {
    name: STATE_TABLE,
    columns: [
      { name: 'webhook_id', type: 'bigint', primaryKey: true },
      { name: 'secret', type: 'varchar(512)', notNull: true },
      { name: 'cursor', type: 'bigint', notNull: true },
      { name: 'lease_owner', type: 'varchar(64)' },
      { name: 'lease_until', type: 'bigint' },
    ],
  },
  {
    name: DELIVERIES_TABLE,
    columns: [
      { name: 'id', type: 'serialKey' },
      { name: 'webhook_id', type: 'bigint', notNull: true },
      { name: 'event_id', type: 'bigint', notNull: true },
      { name: 'status', type: 'varchar(16)', notNull: true },
      { name: 'attempts', type: 'integer', notNull: true },
      { name: 'next_at', type: 'bigint', notNull: true },
      { name: 'last_error', type: 'longText' },
    ],
  },
];

export async function ensureWebhookTables(database: Database, webhooks: Collection | undefined): Promise<void> {
  const adapter = adapterOf(database.dialect);
  for (const table of WEBHOOK_TABLES) await createTableRacing(database.db, table.name, () => systemTable(database.db, adapter, table));
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
