import type { Database } from '../../db/database.js';
import type { Collection, Field } from '../../schema/collection.js';
import { DELIVERIES_TABLE, STATE_TABLE } from './webhook-tables.js';

type Raw = Record<string, unknown>;

/** A webhook's definition (decoded like every row of its collection) and its delivery state. */
export interface HookState {
  readonly url: string;
  readonly secret: string;
  readonly collections: string[];
  readonly actions: string[] | null;
  readonly active: boolean;
  readonly cursor: number;
}

/** One delivery row, its driver values turned into numbers and text. */
export interface DeliveryRow {
  readonly id: number;
  readonly webhookId: number;
  readonly eventId: number;
  readonly status: 'pending' | 'delivered' | 'failed';
  readonly attempts: number;
  readonly nextAt: number;
  readonly lastError: string | null;
}

export type DeliveryStatus = DeliveryRow['status'];

function deliveryRow(raw: Raw): DeliveryRow {
  return {
    id: Number(raw.id),
    webhookId: Number(raw.webhook_id),
    eventId: Number(raw.event_id),
    status: String(raw.status) as DeliveryStatus,
    attempts: Number(raw.attempts),
    nextAt: Number(raw.next_at),
    lastError: raw.last_error === null || raw.last_error === undefined ? null : String(raw.last_error),
  };
}

const DEFINITION = ['url', 'collections', 'actions', 'active'];

/**
 * The statements of webhook delivery (webhooks/webhook-service.ts): the definitions are rows of
 * the `webhooks` collection, decoded by it; their state and deliveries are the store's system
 * tables (webhook-tables.ts). Writes that go with a definition's row run in its unit of work
 * (SystemDoor.webhookState); the delivery loop's own statements run on the pool.
 */
export class WebhookRows {
  constructor(
    private readonly database: Database,
    /** The webhooks collection, once the schema is loaded. */
    private readonly collection: () => Collection | undefined,
  ) {}

  #definitions(): { collection: Collection; fields: readonly Field[] } | undefined {
    const collection = this.collection();
    return collection === undefined ? undefined : { collection, fields: DEFINITION.map((name) => collection.fields.get(name)!) };
  }

  /** Releases the leases `node` holds (another node takes over at once). */
  async releaseLeases(node: string): Promise<void> {
    await this.database.db.updateTable(STATE_TABLE).set({ lease_owner: null, lease_until: null }).where('lease_owner', '=', node).execute();
  }

  /** Takes or renews the lease of webhook `id` for `node`; false when another node holds it. */
  async lease(id: number, node: string, now: number, untilMs: number): Promise<boolean> {
    const result = await this.database.db
      .updateTable(STATE_TABLE)
      .set({ lease_owner: node, lease_until: untilMs })
      .where('webhook_id', '=', id)
      .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_owner', '=', node), eb('lease_until', '<', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Whether webhook `id` exists. */
  async exists(id: number): Promise<boolean> {
    const collection = this.collection();
    if (collection === undefined) return false;
    const row = await this.database.db.selectFrom(collection.table).select(collection.key.column).where(collection.key.column, '=', id).executeTakeFirst();
    return row !== undefined;
  }

  /** The ids of the active webhooks (few rows: filtered after decoding, so no boolean is bound). */
  async activeIds(): Promise<number[]> {
    const definitions = this.#definitions();
    if (definitions === undefined) return [];
    const { collection } = definitions;
    const fields = [collection.key, collection.fields.get('active')!];
    const rows = await this.database.db.selectFrom(collection.table).select(fields.map((field) => field.column)).execute();
    return rows.map((row) => collection.decode(row as Raw, fields)).filter((item) => item.active === true).map((item) => Number(item[collection.key.name]));
  }

  /** The definition and state of webhook `id`, or undefined when either is gone. */
  async hook(id: number): Promise<HookState | undefined> {
    const definitions = this.#definitions();
    if (definitions === undefined) return undefined;
    const { collection, fields } = definitions;
    const hooks = collection.table;
    const row = await this.database.db
      .selectFrom(hooks)
      .innerJoin(STATE_TABLE, `${STATE_TABLE}.webhook_id`, `${hooks}.${collection.key.column}`)
      .select([...fields.map((field) => `${hooks}.${field.column}`), `${STATE_TABLE}.secret`, `${STATE_TABLE}.cursor`])
      .where(`${hooks}.${collection.key.column}`, '=', id)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const item = collection.decode(row as Raw, fields);
    return {
      url: String(item.url),
      collections: item.collections as string[],
      actions: item.actions === null ? null : (item.actions as string[]),
      active: item.active === true,
      secret: String((row as Raw).secret),
      cursor: Number((row as Raw).cursor),
    };
  }

  /** One page of webhook `id`'s deliveries in event order, and one more row when there is a next page. */
  async deliveries(id: number, page: number, pageSize: number): Promise<DeliveryRow[]> {
    const rows = await this.database.db
      .selectFrom(DELIVERIES_TABLE)
      .selectAll()
      .where('webhook_id', '=', id)
      .orderBy('event_id')
      .limit(pageSize + 1)
      .offset((page - 1) * pageSize)
      .execute();
    return rows.map((row) => deliveryRow(row as Raw));
  }

  /** Queues delivery `deliveryId` of webhook `id` anew; undefined when it has no such delivery. */
  async requeue(id: number, deliveryId: number, now: number): Promise<DeliveryRow | undefined> {
    const { db } = this.database;
    const result = await db.updateTable(DELIVERIES_TABLE).set({ status: 'pending', attempts: 0, next_at: now }).where('webhook_id', '=', id).where('id', '=', deliveryId).executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    return deliveryRow((await db.selectFrom(DELIVERIES_TABLE).selectAll().where('id', '=', deliveryId).executeTakeFirstOrThrow()) as Raw);
  }

  /** The oldest pending delivery of webhook `id`. */
  async head(id: number): Promise<DeliveryRow | undefined> {
    const row = await this.database.db.selectFrom(DELIVERIES_TABLE).selectAll().where('webhook_id', '=', id).where('status', '=', 'pending').orderBy('event_id').limit(1).executeTakeFirst();
    return row === undefined ? undefined : deliveryRow(row as Raw);
  }

  /** Queues `eventIds` for webhook `id` and moves its cursor from `cursor` to `to`, in one transaction. */
  async enqueue(id: number, eventIds: readonly number[], cursor: number, to: number, now: number): Promise<void> {
    await this.database.db.transaction().execute(async (trx) => {
      if (eventIds.length > 0) {
        await trx
          .insertInto(DELIVERIES_TABLE)
          .values(eventIds.map((eventId) => ({ webhook_id: id, event_id: eventId, status: 'pending', attempts: 0, next_at: now, last_error: null })))
          .execute();
      }
      await trx.updateTable(STATE_TABLE).set({ cursor: to }).where('webhook_id', '=', id).where('cursor', '=', cursor).execute();
    });
  }

  /** Records an attempt: its outcome (`status`), the attempts so far, the error and (pending) when to try next. */
  async attempted(deliveryId: number, outcome: { status: DeliveryStatus; attempts: number; lastError: string | null; nextAt?: number }): Promise<void> {
    const { status, attempts, lastError, nextAt } = outcome;
    const set = status === 'pending' ? { attempts, next_at: nextAt ?? 0, last_error: lastError } : { status, attempts, last_error: lastError };
    await this.database.db.updateTable(DELIVERIES_TABLE).set(set).where('id', '=', deliveryId).execute();
  }

  /** How many deliveries are kept, by status. */
  async countsByStatus(): Promise<Map<string, number>> {
    const rows = await this.database.db
      .selectFrom(DELIVERIES_TABLE)
      .select((eb) => ['status', eb.fn.countAll().as('n')])
      .groupBy('status')
      .execute();
    return new Map(rows.map((row) => [String(row.status), Number(row.n)]));
  }
}
