/**
 * Brings a change of users, roles, grants, API keys or the schema into force everywhere:
 * - on this node's other workers before the change is acknowledged (through the cluster
 *   primary, invalidation.ts; set by main.ts with `setRelay`);
 * - on other nodes: PostgreSQL sends a NOTIFY on INVALIDATE_CHANNEL that every process
 *   LISTENs on (in force there within milliseconds); every dialect also counts changes of
 *   users, roles and API keys in a row of `corral_meta` that each process reads every
 *   CORRAL_SCHEMA_POLL_MS (and the schema version is polled as before), so without NOTIFY a
 *   change is in force on other nodes within one poll interval.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { adapterOf } from '../db/dialects/adapters.js';
import { META_TABLE } from '../schema/schema-store.js';
import { isNotice, type Notice } from './invalidation.js';

/** The PostgreSQL channel of cache invalidations. */
export const INVALIDATE_CHANNEL = 'corral_invalidate';
/** The `corral_meta` row whose counter (`schema_version` column) counts changes of users, roles and API keys. */
export const ACCESS_VERSION_ROW = 2;

export interface PropagationLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface PropagationOptions {
  readonly database: Database;
  /** How often the access counter is read (CORRAL_SCHEMA_POLL_MS). */
  readonly pollMs: number;
  /** PostgreSQL: the URL of the LISTEN connection. */
  readonly listenUrl?: string;
  readonly connectMs?: number;
  readonly log: PropagationLog;
  /** Drops this process's caches a notice from elsewhere names (reloads the schema for a schema notice). */
  readonly apply: (notice: Notice) => Promise<void>;
}

/** A NOTIFY payload: the notice and the process that sent it (which ignores its own). */
interface Payload {
  readonly from: string;
  readonly notice: Notice;
}

export class Propagation {
  #relay: ((notice: Notice) => Promise<void>) | undefined;
  /** Names this process in its NOTIFYs. */
  readonly #self = randomUUID();
  #accessVersion = -1;
  #timer: NodeJS.Timeout | undefined;
  #polling = false;
  #listener: { end(): Promise<void> } | undefined;

  constructor(private readonly options: PropagationOptions) {}

  async start(): Promise<void> {
    const { db } = this.options.database;
    const row = await db.selectFrom(META_TABLE).select('schema_version').where('id', '=', ACCESS_VERSION_ROW).executeTakeFirst();
    if (row === undefined) {
      // Several processes may start together: the second insert fails, and the row is there.
      await db.insertInto(META_TABLE).values({ id: ACCESS_VERSION_ROW, schema_version: 0 }).execute().catch(async (error: unknown) => {
        if ((await this.#readAccessVersion()) === undefined) throw error;
      });
    }
    this.#accessVersion = (await this.#readAccessVersion()) ?? 0;
    this.#timer = setInterval(() => void this.poll(), this.options.pollMs);
    this.#timer.unref();
    if (this.options.listenUrl !== undefined) await this.#listen(this.options.listenUrl);
  }

  /** Drops this process's caches a notice from another worker of this node names (main.ts). */
  apply(notice: Notice): Promise<void> {
    return this.options.apply(notice);
  }

  /** How this worker tells the other workers of its node (main.ts, with several workers). */
  setRelay(relay: (notice: Notice) => Promise<void>): void {
    this.#relay = relay;
  }

  /**
   * After a change committed and this process dropped its own caches: resolves once the
   * other workers of this node dropped theirs and the other nodes have been told. Never rejects
   * (the change is committed; a failure to tell is logged, and the polls still carry it).
   */
  async announce(notice: Notice): Promise<void> {
    await Promise.all([
      this.#relay?.(notice),
      this.#tellNodes(notice).catch((error: unknown) => this.options.log.warn({ err: error, notice }, 'telling other nodes about a change failed; they see it at their next poll')),
    ]);
  }

  async #tellNodes(notice: Notice): Promise<void> {
    const { db, dialect } = this.options.database;
    if (notice.auth) await db.updateTable(META_TABLE).set({ schema_version: sql`schema_version + 1` }).where('id', '=', ACCESS_VERSION_ROW).execute();
    if (!adapterOf(dialect).capabilities.notify) return;
    const payload: Payload = { from: this.#self, notice };
    await sql`select pg_notify(${INVALIDATE_CHANNEL}, ${JSON.stringify(payload)})`.execute(db);
  }

  /** Reads the access counter; a change made elsewhere drops the user and role caches. */
  async poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const version = await this.#readAccessVersion();
      if (version !== undefined && version !== this.#accessVersion) {
        this.#accessVersion = version;
        await this.options.apply({ auth: true });
      }
    } catch (error) {
      this.options.log.warn({ err: error }, 'reading the access counter failed; trying again at the next poll');
    } finally {
      this.#polling = false;
    }
  }

  async #readAccessVersion(): Promise<number | undefined> {
    const row = await this.options.database.db.selectFrom(META_TABLE).select('schema_version').where('id', '=', ACCESS_VERSION_ROW).executeTakeFirst();
    return row === undefined ? undefined : Number(row.schema_version);
  }

  async #listen(url: string): Promise<void> {
    const { log } = this.options;
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: this.options.connectMs ?? 5000, keepAlive: true });
    client.on('error', (error) => log.error({ err: error }, 'the invalidation LISTEN connection failed; changes made on other nodes now apply here at the next poll'));
    client.on('notification', (message) => {
      const payload = parsePayload(message.payload);
      if (payload === undefined || payload.from === this.#self) return;
      this.options.apply(payload.notice).then(
        () => log.info({ notice: payload.notice }, 'dropped caches on a NOTIFY from another node'),
        (error: unknown) => log.error({ err: error, notice: payload.notice }, 'dropping caches on a NOTIFY from another node failed'),
      );
    });
    try {
      await client.connect();
      await client.query(`listen ${INVALIDATE_CHANNEL}`);
      this.#listener = { end: () => client.end() };
    } catch (error) {
      log.error({ err: error }, 'LISTEN for invalidations failed; changes made on other nodes apply here at the next poll');
      await client.end().catch((endError: unknown) => log.error({ err: endError }, 'closing the failed LISTEN connection failed'));
    }
  }

  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#listener?.end().catch((error: unknown) => this.options.log.error({ err: error }, 'closing the invalidation LISTEN connection failed'));
    this.#listener = undefined;
  }
}

function parsePayload(text: string | undefined): Payload | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Payload>;
    return typeof value.from === 'string' && isNotice(value.notice) ? (value as Payload) : undefined;
  } catch {
    return undefined;
  }
}
