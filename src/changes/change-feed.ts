import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { adapterOf } from '../db/dialects/adapters.js';
import { isReadOnlyRefusal } from '../db/driver-error.js';
import { ApiError } from '../errors/api-error.js';
import type { JsonValue } from '../schema/types.js';
import { CHANGES_COUNTER_TABLE, CHANGES_TABLE, COUNTER_NAME, toChangeRow, type ChangeRow } from './changes-table.js';
import { CHANGES_CHANNEL } from './outbox.js';
import { publishPending } from './outbox-insert.js';
import { SerialRun } from './serial-run.js';
import { toEvent, type ChangeEvent } from './change-event.js';
import type { FeedLog, FeedSubscriber } from './feed-subscriber.js';

export { toEvent, type ChangeEvent };
export type { FeedLog, FeedSubscriber };

/** Events one read of the outbox returns at most (the reader loops while pages are full). */
export const FEED_READ_PAGE = 1000;
/** How often retention runs. */
export const PRUNE_INTERVAL_MS = 60_000;
export const DEFAULT_CHANGES_POLL_MS = 250;
/**
 * A wake during a read runs the next read this much later, so a busy node sends subscribers
 * events in batches (one socket write for many events) instead of one write per commit.
 */
export const FEED_BATCH_MS = 10;
/**
 * PostgreSQL, no subscriber on this node: the commits of this window are published (numbered,
 * other nodes notified) together. Nobody here waits for them, and a publication costs this
 * process a statement whatever it moves, so a busy writer pays it once per 50 ms, not per 10.
 */
export const FEED_IDLE_BATCH_MS = 50;
export const DEFAULT_CHANGES_RETENTION_MS = 7 * 24 * 3600 * 1000;
/** The NOTIFY payload of a publication that every node's reader, this one's included, acts on. */
const ANY_NODE = '';

export interface FeedOptions {
  readonly pollMs: number;
  readonly retentionMs: number;
  /** PostgreSQL URL for a LISTEN connection (postgres only). */
  readonly listenUrl?: string;
  /** How long opening the LISTEN connection may take (CORRAL_DB_CONNECT_TIMEOUT_MS). */
  readonly connectMs?: number;
  readonly log: FeedLog;
}

/**
 * One reader of the outbox per node. It reads events after the last id it dispatched when
 * woken (a local commit, a NOTIFY on PostgreSQL) or every `pollMs`, and fans them out to the
 * live subscribers. A subscriber that resumes first catches up from the table by itself and
 * joins the live fan-out once its cursor reaches the reader's: no gap, no repeat.
 */
export class ChangeFeed {
  readonly #subscribers = new Set<FeedSubscriber>();
  /** Every subscriber from its subscribe until it goes, catching up or live: what `recheck` reaches. */
  readonly #open = new Set<FeedSubscriber>();
  /** The highest id this node's reader has dispatched (or seen, with no subscriber). */
  #last = 0;
  /**
   * Set when a read without subscribers only published (PostgreSQL): `#last` may then lag the
   * table, and the first subscriber reads the position before joining (see subscribe). A busy
   * node thus runs one statement per batch instead of two.
   */
  #lastBehind = false;
  /** A subscriber waits for the next read without subscribers to read the position. */
  #wantPosition = false;
  /** The reader: one read at a time; a wake during a read schedules one more after it. */
  readonly #reader = new SerialRun(
    () => this.#read(),
    (error: unknown) => this.options.log.error({ err: error }, 'reading the change feed failed'),
    () => this.wake(),
  );
  /** A read is scheduled FEED_BATCH_MS after the first wake, collecting the commits meanwhile. */
  #batch: NodeJS.Timeout | undefined;
  #timer: NodeJS.Timeout | undefined;
  #pruneTimer: NodeJS.Timeout | undefined;
  #listener: { end(): Promise<void> } | undefined;
  #closed = false;
  /** Sent with this node's NOTIFYs, so its own LISTEN ignores them (it has read already). */
  readonly #node = randomUUID();
  /** Events are numbered when a reader publishes them (PostgreSQL's pending outbox), subscribers or not. */
  readonly #pendingOutbox: boolean;

  constructor(
    readonly database: Database,
    readonly options: FeedOptions,
  ) {
    this.#pendingOutbox = adapterOf(database.dialect).capabilities.pendingOutbox;
  }

  async start(): Promise<void> {
    this.#last = await this.lastId();
    this.#timer = setInterval(() => this.#readNow(), this.options.pollMs);
    this.#timer.unref();
    // A role that may only read leaves pruning to the owner's nodes (docs/existing-databases.md#read-only-roles).
    const prune = (): void => {
      void this.prune().catch((error: unknown) => {
        if (!isReadOnlyRefusal(error)) this.options.log.error({ err: error }, 'pruning the change feed failed');
      });
    };
    this.#pruneTimer = setInterval(prune, PRUNE_INTERVAL_MS);
    this.#pruneTimer.unref();
    prune();
    if (this.options.listenUrl !== undefined) await this.#listen(this.options.listenUrl);
  }

  async #listen(url: string): Promise<void> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: this.options.connectMs ?? 5000, keepAlive: true });
    client.on('error', (error) => this.options.log.error({ err: error }, 'the change feed LISTEN connection failed; polling continues'));
    client.on('notification', (message) => {
      if (message.payload !== this.#node) this.wake();
    });
    try {
      await client.connect();
      await client.query(`listen ${CHANGES_CHANNEL}`);
      this.#listener = { end: () => client.end() };
    } catch (error) {
      this.options.log.error({ err: error }, 'LISTEN on the change feed failed; polling continues');
      await client.end().catch((endError: unknown) => this.options.log.error({ err: endError }, 'closing the failed LISTEN connection failed'));
    }
  }

  /** The highest event id committed so far (`reader`: called by this node's reader, see #publish). */
  async lastId(reader = false): Promise<number> {
    await this.#publish(reader);
    const [row] = await this.database.db.selectFrom(CHANGES_TABLE).select((eb) => eb.fn.max('id').as('last')).execute();
    return row?.last === null || row?.last === undefined ? 0 : Number(row.last);
  }

  /** Events after `after` in id order (of one collection, if given; `reader`: see #publish). */
  async readAfter(after: number, limit: number, collection?: string, reader = false): Promise<ChangeRow[]> {
    // PostgreSQL: number the events of the transactions finished so far first.
    await this.#publish(reader);
    let query = this.database.db.selectFrom(CHANGES_TABLE).selectAll().where('id', '>', after);
    if (collection !== undefined) query = query.where('collection', '=', collection);
    const rows = await query.orderBy('id').limit(limit).execute();
    return rows.map((row) => toChangeRow(row as Record<string, unknown>));
  }

  /**
   * PostgreSQL: numbers the committed pending events (publishPending). Its NOTIFY names this
   * node only when the reader publishes, since the reader then reads what it published; any
   * other publication here (changes:list, a subscribe's start, webhooks, pruning) moves events
   * the reader has not dispatched, so its NOTIFY must wake this node's reader too.
   */
  async #publish(reader: boolean): Promise<void> {
    await publishPending(this.database.db, this.database.dialect, reader ? this.#node : ANY_NODE).catch((error: unknown) => {
      // A role that may only read wrote no event: there is nothing of its own to publish.
      if (!isReadOnlyRefusal(error)) throw error;
    });
  }

  /** 410 CHANGES_EXPIRED when events after `after` may have been pruned already. */
  async checkResume(after: number): Promise<void> {
    const [row] = await this.database.db.selectFrom(CHANGES_COUNTER_TABLE).select('pruned').where('name', '=', COUNTER_NAME).execute();
    const pruned = Number(row?.pruned ?? 0);
    if (after < pruned) throw new ApiError('CHANGES_EXPIRED', `events up to ${pruned} have been pruned; resume from a later id or reload`, { details: { oldest: pruned + 1 } });
  }

  /** Deletes events older than the retention and remembers the highest id deleted. */
  async prune(now = Date.now()): Promise<number> {
    const cutoff = now - this.options.retentionMs;
    const { db } = this.database;
    await this.#publish(false);
    const [row] = await db.selectFrom(CHANGES_TABLE).select((eb) => eb.fn.max('id').as('upTo')).where('at', '<', cutoff).execute();
    if (row?.upTo === null || row?.upTo === undefined) return 0;
    const upTo = Number(row.upTo);
    // The mark first: a reader resuming inside the pruned range is refused rather than shown a gap.
    await db.updateTable(CHANGES_COUNTER_TABLE).set({ pruned: sql`case when pruned < ${upTo} then ${upTo} else pruned end` }).where('name', '=', COUNTER_NAME).execute();
    const result = await db.deleteFrom(CHANGES_TABLE).where('id', '<=', upTo).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Adds a subscriber whose cursor is set: it is given every event after its cursor, first
   * from the table, then from the live fan-out.
   */
  async subscribe(subscriber: FeedSubscriber): Promise<void> {
    this.#open.add(subscriber);
    if (this.#lastBehind) {
      // The position is the reader's alone: one read of it brings `#last` up to the table.
      this.#wantPosition = true;
      await this.settle();
    }
    for (;;) {
      if (this.#closed) return subscriber.drop();
      if (subscriber.cursor >= this.#last) {
        this.#subscribers.add(subscriber);
        return;
      }
      // Everything up to the reader's position is committed before this read starts.
      const reached = this.#last;
      const rows = await this.readAfter(subscriber.cursor, FEED_READ_PAGE, subscriber.collection);
      if (rows.length > 0 && !subscriber.deliver(rows)) return subscriber.drop();
      const moved = rows.length === 0 ? subscriber.cursor : rows[rows.length - 1]!.id;
      // A full page may stop short of `reached`; a short one has read everything up to it.
      subscriber.cursor = rows.length === FEED_READ_PAGE ? moved : Math.max(moved, reached);
    }
  }

  unsubscribe(subscriber: FeedSubscriber): void {
    this.#subscribers.delete(subscriber);
    this.#open.delete(subscriber);
  }

  /**
   * Users, roles, API keys or grants changed (here, on another worker, or on another node):
   * every open subscriber checks its caller's access again, holding the events that arrive
   * meanwhile, and ends with a `revoked` event when it may no longer read (docs/events.md#revocation).
   * Synchronous up to the start of the checks, so events read after this call wait for them.
   */
  recheck(): void {
    for (const subscriber of this.#open) subscriber.recheck?.();
  }

  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /** The highest event id this node's reader has handed to its subscribers (the metrics' lag is measured from it). */
  get position(): number {
    return this.#last;
  }

  /**
   * A commit happened here or (NOTIFY, another worker) elsewhere: with subscribers, read the
   * outbox FEED_BATCH_MS from now, so the commits of that window reach every subscriber in
   * one read and one socket write each. With none, there is nothing to do until the next poll
   * (except on PostgreSQL: the events are published FEED_IDLE_BATCH_MS from now, see below).
   */
  wake(): void {
    if (this.#closed || this.#batch !== undefined) return;
    // PostgreSQL numbers events when a reader publishes them (publishPending): the node that
    // wrote them does, subscribers or not, so other nodes are notified and lists see them.
    if (this.#subscribers.size === 0 && !this.#pendingOutbox) return;
    this.#batch = setTimeout(
      () => {
        this.#batch = undefined;
        this.#readNow();
      },
      this.#subscribers.size === 0 ? FEED_IDLE_BATCH_MS : FEED_BATCH_MS,
    );
    this.#batch.unref();
  }

  /** Reads new events now, or (with no subscriber) the position only; see SerialRun. */
  #readNow(): void {
    if (!this.#closed) this.#reader.start();
  }

  /** Resolves once every event committed before the call has been dispatched. */
  async settle(): Promise<void> {
    await this.#reader.idle();
    this.#readNow();
    await this.#reader.idle();
  }

  async #read(): Promise<void> {
    for (;;) {
      if (this.#subscribers.size === 0) {
        if (this.#pendingOutbox && !this.#wantPosition) {
          // Nobody to give events to: number them (other nodes and lists see them), and read
          // the position only when a subscriber comes (subscribe).
          await this.#publish(true);
          this.#lastBehind = true;
        } else {
          this.#wantPosition = false;
          const last = await this.lastId(true);
          // Moved only while nobody is subscribed: one that joined during the read (its cursor
          // at or after the old position) may be owed events up to `last`, read below.
          if (this.#subscribers.size === 0) {
            this.#last = Math.max(this.#last, last);
            this.#lastBehind = false;
          }
        }
        if (this.#subscribers.size === 0) return;
        continue;
      }
      this.#wantPosition = false;
      const rows = await this.readAfter(this.#last, FEED_READ_PAGE, undefined, true);
      if (rows.length > 0) {
        this.#last = rows[rows.length - 1]!.id;
        this.#dispatch(rows);
      }
      if (rows.length < FEED_READ_PAGE) {
        // Read to the end of the table as it was published.
        this.#lastBehind = false;
        return;
      }
    }
  }

  #dispatch(rows: readonly ChangeRow[]): void {
    const byCollection = new Map<string, ChangeRow[]>();
    for (const row of rows) {
      const list = byCollection.get(row.collection);
      if (list === undefined) byCollection.set(row.collection, [row]);
      else list.push(row);
    }
    // Renders of the whole batch of a collection, by view: serialised once, written to many.
    const shared = new Map<string, Buffer>();
    for (const subscriber of this.#subscribers) {
      const all = byCollection.get(subscriber.collection);
      let delivered = true;
      if (all !== undefined) {
        // A subscriber that caught up inside this batch takes only the rest (rendered for it alone).
        const whole = all[0]!.id > subscriber.cursor;
        const events = whole ? all : all.filter((row) => row.id > subscriber.cursor);
        if (events.length > 0) delivered = subscriber.deliver(events, whole ? shared : undefined);
      }
      if (!delivered) {
        this.#subscribers.delete(subscriber);
        subscriber.drop();
        continue;
      }
      subscriber.cursor = Math.max(subscriber.cursor, this.#last);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    if (this.#batch !== undefined) clearTimeout(this.#batch);
    if (this.#pruneTimer !== undefined) clearInterval(this.#pruneTimer);
    await this.#reader.idle();
    for (const subscriber of this.#subscribers) subscriber.drop();
    this.#subscribers.clear();
    this.#open.clear();
    await this.#listener?.end().catch((error: unknown) => this.options.log.error({ err: error }, 'closing the LISTEN connection failed'));
  }
}
