import { createHmac, randomUUID } from 'node:crypto';
import { isReadOnlyRefusal } from '../db/driver-error.js';
import { ApiError } from '../errors/api-error.js';
import type { ChangeFeed, FeedLog } from '../changes/change-feed.js';
import { toEvent } from '../changes/change-feed.js';
import { SerialRun } from '../changes/serial-run.js';
import { WEBHOOKS } from './webhook-definitions.js';
import type { DeliveryRow, HookState, WebhookRows } from '../store/system/webhook-rows.js';
import { postEvent } from './webhook-url.js';

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
}

/** `sha256=<hex HMAC-SHA256 of body keyed with secret>`. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

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
    /** The delivery statements (the store's system door). */
    private readonly rows: WebhookRows,
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
    await this.rows
      .releaseLeases(this.#node)
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
    if (!(await this.rows.exists(id))) throw new ApiError('RECORD_NOT_FOUND', `no webhook ${id}`);
  }

  async deliveries(id: number, page: number, pageSize: number): Promise<{ items: DeliveryItem[]; hasNext: boolean }> {
    await this.#exists(id);
    const rows = await this.rows.deliveries(id, page, pageSize);
    return { items: rows.slice(0, pageSize).map(deliveryItem), hasNext: rows.length > pageSize };
  }

  /**
   * Sends a delivery again (the studio's retry button; GitHub calls it redeliver): a failed or
   * delivered one is queued anew with a fresh set of attempts, a pending one is tried now instead
   * of after its backoff. Deliveries keep event order: it goes before the webhook's later ones.
   */
  async retry(id: number, deliveryId: number): Promise<DeliveryItem> {
    await this.#exists(id);
    const row = await this.rows.requeue(id, deliveryId, Date.now());
    if (row === undefined) throw new ApiError('RECORD_NOT_FOUND', `webhook ${id} has no delivery ${deliveryId}`);
    return deliveryItem(row);
  }

  // --- delivery -----------------------------------------------------------------------

  async #pass(): Promise<void> {
    const ids = await this.rows.activeIds();
    this.#anyActive = ids.length > 0;
    for (const id of ids) {
      if (this.#closed) return;
      if (await this.#lease(id)) await this.#serve(id);
    }
  }

  /** Takes or renews the webhook's lease; false when another node holds it. */
  #lease(id: number): Promise<boolean> {
    const now = Date.now();
    return this.rows.lease(id, this.#node, now, now + WEBHOOK_LEASE_MS);
  }

  async #serve(id: number): Promise<void> {
    for (let step = 0; step < ENQUEUE_PAGE && !this.#closed; step++) {
      const head = await this.rows.head(id);
      if (head === undefined) {
        if (!(await this.#enqueue(id))) return;
        continue;
      }
      if (head.nextAt > Date.now()) return;
      if (!(await this.#attempt(id, head))) return;
    }
  }

  /** Queues the webhook's matching events after its cursor; false when there were none. */
  async #enqueue(id: number): Promise<boolean> {
    const hook = await this.rows.hook(id);
    if (hook === undefined || !hook.active) return false;
    const cursor = hook.cursor;
    const events = await this.feed.readAfter(cursor, ENQUEUE_PAGE);
    if (events.length === 0) return false;
    const all = hook.collections.includes('*');
    // Webhook definitions are not sent to webhooks (they never were): their events stay in the feed, root's alone.
    const matching = events.filter((event) => event.collection !== WEBHOOKS && (all || hook.collections.includes(event.collection)) && (hook.actions === null || hook.actions.includes(event.action)));
    await this.rows.enqueue(id, matching.map((event) => event.id), cursor, events[events.length - 1]!.id, Date.now());
    return true;
  }

  /** One POST of the head delivery; true when the webhook may go on to the next one now. */
  async #attempt(id: number, head: DeliveryRow): Promise<boolean> {
    const hook: HookState | undefined = await this.rows.hook(id);
    if (hook === undefined) return false;
    const eventId = head.eventId;
    const [row] = await this.feed.readAfter(eventId - 1, 1);
    const attempts = head.attempts + 1;
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
    const deliveryId = head.id;
    if (error === undefined) {
      await this.rows.attempted(deliveryId, { status: 'delivered', attempts, lastError: null });
      return true;
    }
    if (attempts >= MAX_WEBHOOK_ATTEMPTS || row === undefined) {
      await this.rows.attempted(deliveryId, { status: 'failed', attempts, lastError: error });
      return true;
    }
    const next = Date.now() + this.options.retryBaseMs * 2 ** (attempts - 1);
    await this.rows.attempted(deliveryId, { status: 'pending', attempts, lastError: error, nextAt: next });
    return false;
  }
}

function deliveryItem(row: DeliveryRow): DeliveryItem {
  return {
    id: row.id,
    eventId: row.eventId,
    status: row.status,
    attempts: row.attempts,
    lastError: row.lastError,
    nextAttemptAt: row.status === 'pending' ? new Date(row.nextAt).toISOString() : null,
  };
}
