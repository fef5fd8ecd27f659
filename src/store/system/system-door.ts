import { sql } from 'kysely';
import type { Database } from '../../db/database.js';
import { bindWriteValues } from '../../plan/bind-write-values.js';
import { keyFilter } from '../../plan/bind-keys.js';
import type { Collection } from '../../schema/collection.js';
import { insertItems } from '../insert-items.js';
import { OPEN_GRANTS } from '../scope.js';
import type { Store, UnitCaller } from '../store.js';
import type { UnitOfWork } from '../unit-of-work.js';
import { selectWhere } from '../write-rows.js';
import { ensureAuthTables, TokenRows } from './auth-tables.js';
import { SignInFailures } from './sign-in-failures.js';
import { SystemReads } from './system-reads.js';
import { WebhookRows } from './webhook-rows.js';
import { deleteWebhookState, ensureWebhookTables, insertWebhookState, updateWebhookSecret } from './webhook-tables.js';

/** The server itself, as the caller of the system door's writes (seeding): every grant, no user. */
const SERVER: UnitCaller = { request: { id: 'corral-system' }, grants: OPEN_GRANTS, log: { error: () => undefined } };

/** What a webhook write does to the state kept beside its row, inside that row's unit of work. */
export interface WebhookStateWrites {
  insert(id: number, secret: string, cursor: number): Promise<void>;
  updateSecret(id: number, secret: string): Promise<void>;
  delete(ids: readonly number[]): Promise<void>;
}

/**
 * The store's system unit (`store.system()`): the one way auth, webhooks, metrics and seeding
 * read and write system rows — users, roles, API keys, scopes and webhooks (collections, read
 * and decoded like every other row; seeded through the store's write path, so with change
 * events) and the tables only the server keeps (the signing secret, revocations, sign-in
 * failures, webhook state and deliveries). Their DDL is here too: no edge folder runs SQL.
 */
export class SystemDoor {
  /** Users, roles, API keys and scopes by the auth layer's reads (compiled once per shape). */
  readonly reads: SystemReads;
  /** The signing secret and revocations. */
  readonly tokens: TokenRows;
  /** The sign-in limiter's failures. */
  readonly failures: SignInFailures;
  #webhooks: WebhookRows | undefined;

  constructor(
    private readonly database: Database,
    private readonly store: Store,
  ) {
    this.reads = new SystemReads(database, store.shapes);
    this.tokens = new TokenRows(database.db);
    this.failures = new SignInFailures(database.db);
  }

  get dialect(): Database['dialect'] {
    return this.database.dialect;
  }

  /** Creates the auth layer's tables (secret, revocations, sign-in failures) when missing. */
  ensureAuthTables(): Promise<void> {
    return ensureAuthTables(this.database.db, this.database.dialect, this.database.mysqlCollation);
  }

  /** Creates the webhook state and delivery tables, and moves an earlier version's webhooks into `webhooks`. */
  ensureWebhookTables(webhooks: Collection | undefined): Promise<void> {
    return ensureWebhookTables(this.database, webhooks);
  }

  /** The delivery loop's statements, over the webhooks collection as `collection` gives it. */
  webhooks(collection: () => Collection | undefined): WebhookRows {
    this.#webhooks ??= new WebhookRows(this.database, collection);
    return this.#webhooks;
  }

  /** The webhook state writes that go with a webhook row, in the same unit of work (one transaction). */
  webhookState(unit: UnitOfWork): WebhookStateWrites {
    return {
      insert: (id, secret, cursor) => insertWebhookState(unit.db, id, secret, cursor),
      updateSecret: (id, secret) => updateWebhookSecret(unit.db, id, secret),
      delete: (ids) => deleteWebhookState(unit.db, ids),
    };
  }

  /** Whether `collection` has a row whose key is `key`. */
  async has(collection: Collection, key: unknown): Promise<boolean> {
    const unit = this.store.read(SERVER);
    const rows = await selectWhere(unit, collection, [collection.key], keyFilter(collection, [key]));
    return rows.length > 0;
  }

  /** Whether `collection` has any row. */
  async any(collection: Collection): Promise<boolean> {
    const row = await this.database.db.selectFrom(collection.table).select(collection.key.column).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Seeds one row (the root role, the root user) through the store's write path: bound and
   * validated like a client's create (a password is hashed), stamped, and with its change event.
   */
  async seed(collection: Collection, values: Record<string, unknown>): Promise<void> {
    const bound = await bindWriteValues(collection, values, 'create', new Date());
    await this.store.write(SERVER, collection, (unit) => insertItems(unit, collection, [bound]));
  }

  /** Fills a column added to a system collection from another of its columns, where it is still null. */
  async fillFrom(collection: Collection, to: string, from: string): Promise<void> {
    await this.database.db.updateTable(collection.table).set({ [to]: sql.ref(from) }).where(to, 'is', null).execute();
  }
}
