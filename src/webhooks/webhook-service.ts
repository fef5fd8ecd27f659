import { createHmac, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database, Db } from '../db/database.js';
import { ApiError } from '../errors/api-error.js';
import type { ChangeFeed, FeedLog } from '../changes/change-feed.js';
import { createTableRacing } from '../changes/changes-table.js';
import { toEvent } from '../changes/change-feed.js';
import { SerialRun } from '../changes/serial-run.js';
import type { ApiRequest } from '../request/api-request.js';
import type { Dialect } from '../schema/types.js';
import { checkWebhookUrl, postEvent } from './webhook-url.js';

export const WEBHOOKS_TABLE = 'corral_webhooks';
export const DELIVERIES_TABLE = 'corral_webhook_deliveries';
/** Attempts per event before it is given up (status `failed`). */
export const MAX_WEBHOOK_ATTEMPTS = 10;
/** A receiver that has not answered in this long has failed the attempt. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const DEFAULT_WEBHOOK_RETRY_BASE_MS = 10_000;
/** How long a node owns a webhook's deliveries without renewing its lease. */
export const WEBHOOK_LEASE_MS = 30_000;
/** Events enqueued per webhook per pass. */
const ENQUEUE_PAGE = 100;
const ACTIONS = ['create', 'update', 'destroy'] as const;

/** A webhook as the API returns it: never the secret. */
export interface WebhookItem {
  id: number;
  url: string;
  collections: string[];
  actions: string[] | null;
  active: boolean;
}

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

type Raw = Record<string, unknown>;

function idColumn(dialect: Dialect) {
  return dialect === 'postgres' ? ('serial' as const) : ('integer' as const);
}

export async function ensureWebhookTables(db: Db, dialect: Dialect): Promise<void> {
  const text = dialect === 'mysql' ? sql`longtext` : sql`text`;
  const create = (run: () => Promise<unknown>, table: string): Promise<void> => createTableRacing(db, table, run);
  await create(
    () =>
      db.schema
        .createTable(WEBHOOKS_TABLE)
        .ifNotExists()
        .addColumn('id', idColumn(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('url', 'varchar(2048)', (c) => c.notNull())
        .addColumn('collections', text, (c) => c.notNull())
        .addColumn('actions', text)
        .addColumn('secret', 'varchar(512)', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('cursor', 'bigint', (c) => c.notNull())
        .addColumn('lease_owner', 'varchar(64)')
        .addColumn('lease_until', 'bigint')
        .execute(),
    WEBHOOKS_TABLE,
  );
  await create(
    () =>
      db.schema
        .createTable(DELIVERIES_TABLE)
        .ifNotExists()
        .addColumn('id', idColumn(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('webhook_id', 'integer', (c) => c.notNull())
        .addColumn('event_id', 'bigint', (c) => c.notNull())
        .addColumn('status', 'varchar(16)', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_at', 'bigint', (c) => c.notNull())
        .addColumn('last_error', text)
        .execute(),
    DELIVERIES_TABLE,
  );
}

/** `sha256=<hex HMAC-SHA256 of body keyed with secret>`. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

function stringList(value: unknown, name: string, allowed?: readonly string[]): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((entry) => typeof entry === 'string' && entry !== '')) {
    throw new ApiError('VALIDATION_FAILED', `${name} must be a non-empty array of names`, { field: name });
  }
  if (allowed !== undefined && !value.every((entry) => allowed.includes(entry as string))) {
    throw new ApiError('VALIDATION_FAILED', `${name} may hold ${allowed.join(', ')}`, { field: name });
  }
  return value as string[];
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
      .updateTable(WEBHOOKS_TABLE)
      .set({ lease_owner: null, lease_until: null })
      .where('lease_owner', '=', this.#node)
      .execute()
      .catch((error: unknown) => this.options.log.error({ err: error }, 'releasing the webhook leases failed; they expire by themselves'));
  }

  /** A commit happened: deliver now, if any webhook is active. */
  wake(): void {
    if (this.#anyActive) this.#run();
  }

  #run(): void {
    if (!this.#closed) this.#passes.start();
  }

  // --- the resource -------------------------------------------------------------------

  #item(row: Raw): WebhookItem {
    return {
      id: Number(row.id),
      url: String(row.url),
      collections: JSON.parse(String(row.collections)) as string[],
      actions: row.actions === null || row.actions === undefined ? null : (JSON.parse(String(row.actions)) as string[]),
      active: Number(row.active) === 1,
    };
  }

  async list(): Promise<WebhookItem[]> {
    const rows = await this.database.db.selectFrom(WEBHOOKS_TABLE).selectAll().orderBy('id').execute();
    return rows.map((row) => this.#item(row as Raw));
  }

  async get(id: number): Promise<WebhookItem> {
    const row = await this.database.db.selectFrom(WEBHOOKS_TABLE).selectAll().where('id', '=', id).executeTakeFirst();
    if (row === undefined) throw new ApiError('RECORD_NOT_FOUND', `no webhook ${id}`);
    return this.#item(row as Raw);
  }

  async create(body: unknown): Promise<WebhookItem> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('BODY_INVALID', 'a webhook is an object');
    const input = body as Raw;
    for (const name of Object.keys(input)) {
      if (!['url', 'collections', 'actions', 'secret', 'active'].includes(name)) throw new ApiError('VALUE_UNKNOWN_FIELD', `webhooks have no field ${name}`, { field: name });
    }
    const url = await checkWebhookUrl(input.url, this.options.allowPrivate);
    const collections = stringList(input.collections, 'collections');
    const actions = input.actions === undefined || input.actions === null ? null : stringList(input.actions, 'actions', ACTIONS);
    if (typeof input.secret !== 'string' || input.secret.length < 8) throw new ApiError('VALIDATION_FAILED', 'secret must be a string of at least 8 characters', { field: 'secret' });
    const active = input.active === undefined ? true : input.active;
    if (typeof active !== 'boolean') throw new ApiError('VALIDATION_FAILED', 'active must be a boolean', { field: 'active' });
    // New webhooks receive the events committed from now on.
    const cursor = await this.feed.lastId();
    const values = { url, collections: JSON.stringify(collections), actions: actions === null ? null : JSON.stringify(actions), secret: input.secret, active: active ? 1 : 0, cursor };
    const { db } = this.database;
    let id: number;
    if (this.database.dialect === 'mysql') {
      const result = await db.insertInto(WEBHOOKS_TABLE).values(values).executeTakeFirst();
      id = Number(result.insertId);
    } else {
      const row = await db.insertInto(WEBHOOKS_TABLE).values(values).returning('id').executeTakeFirstOrThrow();
      id = Number(row.id);
    }
    this.#anyActive = true;
    return this.get(id);
  }

  async update(id: number, body: unknown): Promise<WebhookItem> {
    await this.get(id);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError('BODY_INVALID', 'a webhook update is an object');
    const input = body as Raw;
    const set: Raw = {};
    for (const [name, value] of Object.entries(input)) {
      switch (name) {
        case 'url':
          set.url = await checkWebhookUrl(value, this.options.allowPrivate);
          break;
        case 'collections':
          set.collections = JSON.stringify(stringList(value, 'collections'));
          break;
        case 'actions':
          set.actions = value === null ? null : JSON.stringify(stringList(value, 'actions', ACTIONS));
          break;
        case 'secret':
          if (typeof value !== 'string' || value.length < 8) throw new ApiError('VALIDATION_FAILED', 'secret must be a string of at least 8 characters', { field: 'secret' });
          set.secret = value;
          break;
        case 'active':
          if (typeof value !== 'boolean') throw new ApiError('VALIDATION_FAILED', 'active must be a boolean', { field: 'active' });
          set.active = value ? 1 : 0;
          break;
        case 'id':
          break;
        default:
          throw new ApiError('VALUE_UNKNOWN_FIELD', `webhooks have no field ${name}`, { field: name });
      }
    }
    if (Object.keys(set).length > 0) await this.database.db.updateTable(WEBHOOKS_TABLE).set(set).where('id', '=', id).execute();
    this.#anyActive = true;
    return this.get(id);
  }

  async destroy(id: number): Promise<number> {
    const { db } = this.database;
    await db.deleteFrom(DELIVERIES_TABLE).where('webhook_id', '=', id).execute();
    const result = await db.deleteFrom(WEBHOOKS_TABLE).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async deliveries(id: number, page: number, pageSize: number): Promise<{ items: DeliveryItem[]; hasNext: boolean }> {
    await this.get(id);
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
    await this.get(id);
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
    const hooks = (await db.selectFrom(WEBHOOKS_TABLE).select(['id']).where('active', '=', 1).execute()) as Raw[];
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
      .updateTable(WEBHOOKS_TABLE)
      .set({ lease_owner: this.#node, lease_until: now + WEBHOOK_LEASE_MS })
      .where('id', '=', id)
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
    const row = (await db.selectFrom(WEBHOOKS_TABLE).selectAll().where('id', '=', id).executeTakeFirst()) as Raw | undefined;
    if (row === undefined || Number(row.active) !== 1) return false;
    const hook = this.#item(row);
    const cursor = Number(row.cursor);
    const events = await this.feed.readAfter(cursor, ENQUEUE_PAGE);
    if (events.length === 0) return false;
    const all = hook.collections.includes('*');
    const matching = events.filter((event) => (all || hook.collections.includes(event.collection)) && (hook.actions === null || hook.actions.includes(event.action)));
    const now = Date.now();
    await db.transaction().execute(async (trx) => {
      if (matching.length > 0) {
        await trx
          .insertInto(DELIVERIES_TABLE)
          .values(matching.map((event) => ({ webhook_id: id, event_id: event.id, status: 'pending', attempts: 0, next_at: now, last_error: null })))
          .execute();
      }
      await trx.updateTable(WEBHOOKS_TABLE).set({ cursor: events[events.length - 1]!.id }).where('id', '=', id).where('cursor', '=', cursor).execute();
    });
    return true;
  }

  /** One POST of the head delivery; true when the webhook may go on to the next one now. */
  async #attempt(id: number, head: Raw): Promise<boolean> {
    const { db } = this.database;
    const hook = (await db.selectFrom(WEBHOOKS_TABLE).selectAll().where('id', '=', id).executeTakeFirst()) as Raw | undefined;
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
        const status = await postEvent(String(hook.url), {
          headers: { 'content-type': 'application/json', 'x-corral-event-id': String(eventId), 'x-corral-signature': signature(String(hook.secret), body) },
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
