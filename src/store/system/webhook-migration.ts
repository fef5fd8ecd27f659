import type { Database } from '../../db/database.js';
import type { Collection } from '../../schema/collection.js';
import { insertRow } from '../../sql/insert-row.js';
import { ShapeCache } from '../../sql/query-cache.js';
import { STATE_TABLE } from './webhook-tables.js';

/** Where earlier versions kept webhooks: definition, secret, cursor and lease in one table. */
export const OLD_WEBHOOKS_TABLE = 'corral_webhooks';

function json(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/**
 * Moves the webhooks of an earlier version into the `webhooks` collection (same ids, so
 * their deliveries and the clients' links stay right) and their state table, then drops the
 * old table. A node starting at the same time may move them first: then there is nothing left.
 */
export async function moveOldWebhooks(database: Database, collection: Collection): Promise<void> {
  const { db, dialect } = database;
  let rows: Record<string, unknown>[];
  try {
    rows = await db.selectFrom(OLD_WEBHOOKS_TABLE).selectAll().orderBy('id').execute();
  } catch {
    return; // No old table: nothing to move.
  }
  const shapes = new ShapeCache(database.statementNames);
  try {
    await db.transaction().execute(async (trx) => {
      for (const old of rows) {
        const now = new Date();
        const values: Record<string, unknown> = { id: Number(old.id), url: old.url, collections: json(old.collections), actions: json(old.actions), active: Number(old.active) === 1, createdAt: now, updatedAt: now };
        const row: Record<string, unknown> = {};
        for (const field of collection.fieldList) {
          const value = values[field.name];
          if (value !== undefined && value !== null) row[field.name] = field.type.toDb(value, dialect);
        }
        await insertRow({ db: trx, dialect, shapes }, collection, row);
        await trx.insertInto(STATE_TABLE).values({ webhook_id: Number(old.id), secret: old.secret, cursor: old.cursor, lease_owner: null, lease_until: null }).execute();
      }
    });
  } catch (error) {
    // Moved by another node meanwhile: its rows are in, the old table gone or going.
    const moved = await db.selectFrom(collection.table).select('id').limit(1).executeTakeFirst();
    if (moved === undefined && rows.length > 0) throw error;
  }
  await db.schema.dropTable(OLD_WEBHOOKS_TABLE).ifExists().execute();
}
