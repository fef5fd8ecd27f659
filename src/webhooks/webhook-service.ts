import { createHmac, randomUUID } from 'node:crypto';
import type { Database } from '../db/database.js';
import { isReadOnlyRefusal } from '../db/driver-error.js';
import { ApiError } from '../errors/api-error.js';
import type { ChangeFeed, FeedLog } from '../changes/change-feed.js';
import { toEvent } from '../changes/change-feed.js';
import { SerialRun } from '../changes/serial-run.js';
import type { ApiRequest } from '../request/api-request.js';
import { WEBHOOKS } from './webhook-definitions.js';
import { DELIVERIES_TABLE, STATE_TABLE } from './webhook-tables.js';
import { postEvent } from './webhook-url.js';

export { ensureWebhookTables } from './webhook-tables.js';

/** Attempts per event before it is given up (status `failed`). */
export const MAX_WEBHOOK_ATTEMPTS = 10;
/** A receiver that has not answered in this long has failed the attempt. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const DEFAULT_WEBHOOK_RETRY_BASE_MS = 10_000;
/** How long a node owns a webhook's deliveries without renewing its lease. */
export const WEBHOOK_LEASE_MS = 30_000;
/** Events enqueued per webhook per pass. */
const ENQUEUE_PAGE = 100;

export interface DeliveryItem {
  id: number;
  eventId: number;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
}

export interface WebhookOptions {
  readonly retryBaseMs: number;
  readonly allowPrivate: boolean;
  readonly pollMs: number;
  readonly log: FeedLog;
  /** The webhooks collection's table (\`corral_webhook_definitions\`, or \`webhooks\` on a database an earlier version made), known once the schema is loaded. */
  readonly table: () => string;
}

type Raw = Record<string, unknown>;

/** A JSON column as the driver returns it: text (SQLite, MySQL) or already parsed (PostgreSQL). */
function json(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/** A webhook's definition row and its state, as the delivery loop reads them (raw driver values). */
function hookOf(row: Raw): { url: string; secret: string; collections: string[]; actions: string[] | null; active: boolean; cursor: number } {
  const actions = json(row.actions);
  return {
    url: String(row.url),
    secret: String(row.secret),
    collections: json(row.collections) as string[],
    actions: actions === null || actions === undefined ? null : (actions as string[]),
    active: row.active === true || Number(row.active) === 1,
    cursor: Number(row.cursor),
  };
}

/** `sha256=<hex HMAC-SHA256 of body keyed with secret>`. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** The root-only seam of `webhooks`: whether this request comes from root (see BuildOptions.isRoot). */
export type RootCheck = (request: ApiRequest) => boolean;

/**
 * Webhooks: their rows, and the delivery loop. Each webhook's deliveries are run by the node
 * holding its lease (a row update that only one node can win at a time); the oldest pending
 * delivery goes first and the next waits until it is delivered or failed, so each webhook
 * sees its events in id order. State is in the database: a restarted node picks up where
 * the last one stopped.
 */
export class WebhookService {
  readonly #node = randomUUID();
  #timer: NodeJS.Timeout | undefined;
  /** One delivery pass at a time; a wake during a pass runs one more right after it. */
  readonly #passes = new SerialRun(
    () => this.#pass(),
    (error: unknown) => this.options.log.error({ err: error }, 'a webhook delivery pass failed'),
    () => this.#run(),
  );
  #closed = false;
  /** Whether any webhook is active (as of the last pass or local change): commits wake the loop only then. */
  #anyActive = true;

  constructor(
    readonly database: Database,
    readonly feed: ChangeFeed,
    readonly options: WebhookOptions,
  ) {}

  start(): void {
    this.#timer = setInterval(() => this.#run(), this.options.pollMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    await this.#passes.idle();
    // Let another node take over at once.
    await this.database.db
      .updateTable(STATE_TABLE)
      .set({ lease_owner: null, lease_until: null })
      .where('lease_owner', '=', this.#node)
      .execute()
      .catch((error: unknown) => {
        // A role that may only read took no lease (docs/existing-databases.md#read-only-roles).
        if (!isReadOnlyRefusal(error)) this.options.log.error({ err: error }, 'releasing the webhook leases failed; they expire by themselves');
      });
  }

  /** A commit happened: deliver now, if any webhook is active. */
  wake(): void {
    if (this.#anyActive) this.#run();
  }

  #run(): void {
    if (!this.#closed) this.#passes.start();
  }

  // --- the resource -------------------------------------------------------------------

  /** A webhook was created or changed: the loop looks at the webhooks again at its next wake. */
  touched(): void {
    this.#anyActive = true;
  }

  /** The feed's last event id: a new webhook receives the events committed after it. */
  cursorNow(): Promise<number> {
    return this.feed.lastId();
  }

  /** 404 RECORD_NOT_FOUND unless webhook `id` exists. */
  async #exists(id: number): Promise<void> {
    const row = await this.database.db.selectFrom(this.options.table()).select('id').where('id', '=', id).executeTakeFirst();
    if (row === undefined) throw new ApiError('RECORD_NOT_FOUND', `no webhook ${id}`);
  }

  /** The definition and state of webhook `id`, or undefined when either is gone. */
  async #hook(id: number): Promise<ReturnType<typeof hookOf> | undefined> {
    const hooks = this.options.table();
    const row = await this.database.db
      .selectFrom(hooks)
      .innerJoin(STATE_TABLE, `${STATE_TABLE}.webhook_id`, `${hooks}.id`)
      .select([`${hooks}.url`, `${hooks}.collections`, `${hooks}.actions`, `${hooks}.active`, `${STATE_TABLE}.secret`, `${STATE_TABLE}.cursor`])
      .where(`${hooks}.id`, '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : hookOf(row as Raw);
  }

  async deliveries(id: number, page: number, pageSize: number): Promise<{ items: DeliveryItem[]; hasNext: boolean }> {
    await this.#exists(id);
    const rows = await this.database.db
      .selectFrom(DELIVERIES_TABLE)
      .selectAll()
      .where('webhook_id', '=', id)
      .orderBy('event_id')
      .limit(pageSize + 1)
      .offset((page - 1) * pageSize)
      .execute();
    const items = rows.slice(0, pageSize).map((row) => deliveryItem(row as Raw));
    return { items, hasNext: rows.length > pageSize };
  }

  /**
   * Sends a delivery again (the studio's retry button; GitHub calls it redeliver): a failed or
   * delivered one is queued anew with a fresh set of attempts, a pending one is tried now instead
   * of after its backoff. Deliveries keep event order: it goes before the webhook's later ones.
   */
  async retry(id: number, deliveryId: number): Promise<DeliveryItem> {
    await this.#exists(id);
    const result = await this.database.db
      .updateTable(DELIVERIES_TABLE)
      .set({ status: 'pending', attempts: 0, next_at: Date.now() })
      .where('webhook_id', '=', id)
      .where('id', '=', deliveryId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new ApiError('RECORD_NOT_FOUND', `webhook ${id} has no delivery ${deliveryId}`);
    const row = (await this.database.db.selectFrom(DELIVERIES_TABLE).selectAll().where('id', '=', deliveryId).executeTakeFirstOrThrow()) as Raw;
    return deliveryItem(row);
  }

  // --- delivery -----------------------------------------------------------------------

  async #pass(): Promise<void> {
    const { db } = this.database;
    // Few rows: filtered here, so no boolean is bound (its driver value differs per database).
    const hooks = ((await db.selectFrom(this.options.table()).select(['id', 'active']).execute()) as Raw[]).filter((row) => row.active === true || Number(row.active) === 1);
    this.#anyActive = hooks.length > 0;
    for (const hook of hooks) {
      if (this.#closed) return;
      const id = Number(hook.id);
      if (await this.#lease(id)) await this.#serve(id);
    }
  }

  /** Takes or renews the webhook's lease; false when another node holds it. */
  async #lease(id: number): Promise<boolean> {
    const now = Date.now();
    const result = await this.database.db
      .updateTable(STATE_TABLE)
      .set({ lease_owner: this.#node, lease_until: now + WEBHOOK_LEASE_MS })
      .where('webhook_id', '=', id)
      .where((eb) => eb.or([eb('lease_owner', 'is', null), eb('lease_owner', '=', this.#node), eb('lease_until', '<', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async #serve(id: number): Promise<void> {
    const { db } = this.database;
    for (let step = 0; step < ENQUEUE_PAGE && !this.#closed; step++) {
      const head = (await db.selectFrom(DELIVERIES_TABLE).selectAll().where('webhook_id', '=', id).where('status', '=', 'pending').orderBy('event_id').limit(1).executeTakeFirst()) as Raw | undefined;
      if (head === undefined) {
        if (!(await this.#enqueue(id))) return;
        continue;
      }
      if (Number(head.next_at) > Date.now()) return;
      if (!(await this.#attempt(id, head))) return;
    }
  }

  /** Queues the webhook's matching events after its cursor; false when there were none. */
  async #enqueue(id: number): Promise<boolean> {
    const { db } = this.database;
    const hook = await this.#hook(id);
    if (hook === undefined || !hook.active) return false;
    const cursor = hook.cursor;
    const events = await this.feed.readAfter(cursor, ENQUEUE_PAGE);
    if (events.length === 0) return false;
    const all = hook.collections.includes('*');
    // Webhook definitions are not sent to webhooks (they never were): their events stay in the feed, root's alone.
    const matching = events.filter((event) => event.collection !== WEBHOOKS && (all || hook.collections.includes(event.collection)) && (hook.actions === null || hook.actions.includes(event.action)));
    const now = Date.now();
    await db.transaction().execute(async (trx) => {
      if (matching.length > 0) {
        await trx
          .insertInto(DELIVERIES_TABLE)
          .values(matching.map((event) => ({ webhook_id: id, event_id: event.id, status: 'pending', attempts: 0, next_at: now, last_error: null })))
          .execute();
      }
      await trx.updateTable(STATE_TABLE).set({ cursor: events[events.length - 1]!.id }).where('webhook_id', '=', id).where('cursor', '=', cursor).execute();
    });
    return true;
  }

  /** One POST of the head delivery; true when the webhook may go on to the next one now. */
  async #attempt(id: number, head: Raw): Promise<boolean> {
    const { db } = this.database;
    const hook = await this.#hook(id);
    if (hook === undefined) return false;
    const eventId = Number(head.event_id);
    const [row] = await this.feed.readAfter(eventId - 1, 1);
    const attempts = Number(head.attempts) + 1;
    let error: string | undefined;
    if (row === undefined || row.id !== eventId) {
      error = 'the event is no longer kept';
    } else {
      const body = JSON.stringify(toEvent(row));
      try {
        const status = await postEvent(hook.url, {
          headers: { 'content-type': 'application/json', 'x-corral-event-id': String(eventId), 'x-corral-signature': signature(hook.secret, body) },
          body,
          timeoutMs: WEBHOOK_TIMEOUT_MS,
          allowPrivate: this.options.allowPrivate,
        });
        if (status < 200 || status > 299) error = `the receiver answered ${status}`;
      } catch (cause) {
        error = cause instanceof ApiError ? cause.message : cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
      }
    }
    const deliveryId = Number(head.id);
    if (error === undefined) {
      await db.updateTable(DELIVERIES_TABLE).set({ status: 'delivered', attempts, last_error: null }).where('id', '=', deliveryId).execute();
      return true;
    }
    if (attempts >= MAX_WEBHOOK_ATTEMPTS || row === undefined) {
      await db.updateTable(DELIVERIES_TABLE).set({ status: 'failed', attempts, last_error: error }).where('id', '=', deliveryId).execute();
      return true;
    }
    const next = Date.now() + this.options.retryBaseMs * 2 ** (attempts - 1);
    await db.updateTable(DELIVERIES_TABLE).set({ attempts, next_at: next, last_error: error }).where('id', '=', deliveryId).execute();
    return false;
  }
}

function deliveryItem(raw: Raw): DeliveryItem {
  const status = String(raw.status) as DeliveryItem['status'];
  return {
    id: Number(raw.id),
    eventId: Number(raw.event_id),
    status,
    attempts: Number(raw.attempts),
    lastError: raw.last_error === null || raw.last_error === undefined ? null : String(raw.last_error),
    nextAttemptAt: status === 'pending' ? new Date(Number(raw.next_at)).toISOString() : null,
  };
}
