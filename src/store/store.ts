import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { classifyDriverError } from '../db/driver-error.js';
import { ApiError } from '../errors/api-error.js';
import type { Collection } from '../schema/collection.js';
import { indexName } from '../schema/index-name.js';
import { DIALECT_TRAITS } from '../db/dialects/dialect-traits.js';
import { ShapeCache } from '../sql/query-cache.js';
import type { ChangeSet } from './change-set.js';
import type { ReferenceSource } from './cascades.js';
import { loadCursorSecret } from './cursor-secret.js';
import { RowCounts, type CountLimits } from './row-counts.js';
import { indexChanges } from './search-index.js';
import { SearchStats, type SearchLimits } from './search-stats.js';
import { NO_SCOPES, type Grants, type ScopeProvider, type Scopes } from './scope.js';
import { SystemDoor } from './system/system-door.js';
import { UnitOfWork, type CommitHook } from './unit-of-work.js';
import { DirectWriteUnavailable, type WriteFastPath } from './write-fast-path.js';
import { chooseWriteMode, GENERAL_WRITE, writePlan, type WriteFacts, type WritePlan } from './write-mode.js';

/** Attempts of a write whose transaction hit a deadlock or serialization failure. */
export const WRITE_ATTEMPTS = 3;

/** Where a unit's hook failures are logged. */
export interface StoreLog {
  error(object: object, message: string): void;
}

/** Who a unit of work serves: the request id (for logs) and what the caller may do. */
export interface UnitCaller {
  /** `principal`: the signed-in user, whom the store stamps as a row's createdBy/updatedBy. */
  readonly request: { readonly id: string; readonly principal?: { readonly user: { readonly id: number | string } } };
  readonly grants: Grants;
  readonly log: StoreLog;
}

export interface StoreOptions {
  /** The scopes of each request; none means every collection is unrestricted. */
  readonly scopes?: ScopeProvider;
  /** References between collections: given, destroys report the rows they cascade to (the outbox needs them). */
  readonly references?: ReferenceSource;
  /** Signs list cursors (`CORRAL_CURSOR_SECRET`); when absent a random secret is stored once in the database. */
  readonly cursorSecret?: string;
  /** CORRAL_EXACT_COUNT_LIMIT and CORRAL_MAX_OFFSET (row-counts.ts defaults when absent). */
  readonly counts?: CountLimits;
  /** Where background work that no request waits for reports failures (the `$search` word counts). */
  readonly log?: StoreLog;
  /** The `$search` thresholds (store/search-stats.ts); tests make them small. */
  readonly search?: SearchLimits;
}

/**
 * The one data-access layer: every statement on collection rows runs in a unit of work it
 * hands out. Created once per app from the Database.
 */
export class Store {
  readonly #beforeCommit: CommitHook[] = [];
  readonly #afterCommit: CommitHook[] = [];
  /** Compiled statements by query shape; each kept text is a named statement on PostgreSQL. */
  readonly shapes: ShapeCache;
  /** How common `$search` words are, so searches read the rarest first. */
  readonly searchStats: SearchStats;
  /** List totals that scale: exact while small, estimated above the limit; the deep-page cap. */
  readonly counts: RowCounts;
  #cursorSecret: Promise<Buffer> | undefined;
  #outbox: { hook: CommitHook; fast: WriteFastPath | undefined } | undefined;
  #fusedWrites = 0;

  /** The connection: the store's alone (actions and the edge folders reach rows only through units and `system()`). */
  readonly #database: Database;
  #system: SystemDoor | undefined;

  constructor(
    database: Database,
    readonly options: StoreOptions = {},
  ) {
    this.#database = database;
    this.shapes = new ShapeCache(database.statementNames, database.executor);
    this.counts = new RowCounts(options.counts);
    this.searchStats = new SearchStats(
      database.db,
      (error) => options.log?.error({ err: error }, 'counting the rows of a $search word failed (searches still answer, in the given word order)'),
      Date.now,
      options.search,
    );
  }

  /**
   * How a write with these facts runs, from what the database can do (RETURNING) and the
   * references to `collection`: pass it to `write`. Actions state facts; the store decides.
   */
  plan(collection: Collection, facts: WriteFacts): WritePlan {
    return writePlan(facts, DIALECT_TRAITS[this.#database.dialect], collection, this.options.references);
  }

  /** The database's dialect (what `app:getInfo` reports). */
  get dialect(): Database['dialect'] {
    return this.#database.dialect;
  }

  /** The system unit: how auth, webhooks, metrics and seeding read and write system rows (system/system-door.ts). */
  system(): SystemDoor {
    this.#system ??= new SystemDoor(this.#database, this);
    return this.#system;
  }

  /** 403 FORBIDDEN when `collection`'s rows carry grants (`Collection.carriesGrants`): an import is refused before its file is read. */
  refuseBulk(collection: Collection): void {
    if (collection.carriesGrants) throw new ApiError('FORBIDDEN', `${collection.name} rows cannot be imported`);
  }

  /** The secret list cursors are signed with, loaded (or stored) once. */
  cursorSecret(): Promise<Buffer> {
    this.#cursorSecret ??= loadCursorSecret(this.#database.db, this.options.cursorSecret).catch((error: unknown) => {
      this.#cursorSecret = undefined;
      throw error;
    });
    return this.#cursorSecret;
  }

  /** The scopes of one request, from the configured provider. */
  scopesFor(...args: Parameters<ScopeProvider>): Scopes {
    return this.options.scopes?.(...args) ?? NO_SCOPES;
  }

  /** A hook for every write unit, inside its transaction. Returns a function that removes it. */
  beforeCommit(hook: CommitHook): () => void {
    return register(this.#beforeCommit, hook);
  }

  /**
   * The outbox, a beforeCommit hook, and the fast path by which a one-statement write carries
   * its event without a transaction (write-fast-path.ts): while the outbox is the only
   * beforeCommit hook, such writes take the fast path's mode (write-mode.ts).
   */
  outbox(hook: CommitHook, fast?: WriteFastPath): () => void {
    const remove = register(this.#beforeCommit, hook);
    this.#outbox = { hook, fast };
    return () => {
      remove();
      if (this.#outbox?.hook === hook) this.#outbox = undefined;
    };
  }

  /** Flat writes run with their outbox event in their own statement so far (tests check the path taken). */
  get fusedWrites(): number {
    return this.#fusedWrites;
  }

  /** A hook for every write unit that committed and changed something. Returns a function that removes it. */
  afterCommit(hook: CommitHook): () => void {
    return register(this.#afterCommit, hook);
  }

  /**
   * A read unit over one snapshot of data and schema, for a read that outlives a statement
   * (a streamed list): released by `release`, whatever happened.
   */
  async readSnapshot(caller: UnitCaller): Promise<{ unit: UnitOfWork; release: () => Promise<void> }> {
    const snapshot = await this.#database.readSnapshot();
    // The answer is complete or already cut when this runs: a failure to end the snapshot only needs logging.
    const release = () => snapshot.release().catch((error: unknown) => this.options.log?.error({ err: error }, 'ending the snapshot of a streamed read failed'));
    return { unit: new UnitOfWork(snapshot.db, this.#database.dialect, caller.grants, caller.request.id, this.shapes, this.searchStats), release };
  }

  /** A read unit: statements run on the pool (SQLite's direct reads stay possible). */
  read(caller: UnitCaller): UnitOfWork {
    return new UnitOfWork(this.#database.db, this.#database.dialect, caller.grants, caller.request.id, this.shapes, this.searchStats);
  }

  /**
   * Runs a write in one unit of work (one transaction) and turns constraint errors into
   * client errors naming the field. A deadlock rolls back and runs again (up to
   * WRITE_ATTEMPTS, each with a fresh unit), then is 409 WRITE_CONFLICT. Anything else
   * propagates (and becomes a logged 500 or 503). `beforeCommit` hooks run inside the
   * transaction; `afterCommit` hooks after it committed (their failures are logged: the data
   * is in). A rolled-back unit calls neither.
   */
  async write<T>(
    caller: UnitCaller,
    collection: Collection,
    work: (unit: UnitOfWork) => Promise<T>,
    /** From `plan`: a one-statement write may skip BEGIN/COMMIT (two round trips) or take a fast path. */
    plan: WritePlan = GENERAL_WRITE,
  ): Promise<T> {
    const { db, dialect } = this.#database;
    // Rows that carry grants are written one at a time by their own actions, never in bulk.
    if (plan.bulk === true) this.refuseBulk(collection);
    for (let attempt = 1; ; attempt++) {
      try {
        let unit!: UnitOfWork;
        let result!: T;
        const mode = chooseWriteMode(plan, collection, this.#beforeCommit, this.#outbox);
        let done = false;
        if (mode.kind !== 'transaction') {
          unit = new UnitOfWork(db, dialect, caller.grants, caller.request.id, this.shapes, this.searchStats, undefined, mode);
          unit.actor = caller.request.principal?.user.id ?? null;
          if (mode.kind === 'postgres-fused') this.#fusedWrites++;
          try {
            result = await work(unit);
            done = true;
          } catch (error) {
            // The connection had a transaction open when the statement was ready: nothing ran.
            if (!(error instanceof DirectWriteUnavailable)) throw error;
          }
          // A change without its event would be lost: the work must fuse every row it wrote.
          if (done && mode.kind === 'postgres-fused' && mode.events !== changeCount(unit.changes)) throw new Error('a fused write recorded a change its statement wrote no event for');
          // Registered by the work itself: the statement has committed already.
          if (done) {
            for (const hook of unit.hooks().before) {
              const ran = hook(unit.changes, unit);
              if (ran !== undefined) await ran;
            }
          }
        }
        if (!done) {
          result = await db.transaction().execute(async (trx) => {
            unit = new UnitOfWork(trx, dialect, caller.grants, caller.request.id, this.shapes, this.searchStats, this.options.references);
            unit.actor = caller.request.principal?.user.id ?? null;
            const value = await work(unit);
            await indexChanges(unit, collection);
            for (const hook of [...this.#beforeCommit, ...unit.hooks().before]) await hook(unit.changes, unit);
            return value;
          });
        }
        await this.#committed(caller, unit);
        return result;
      } catch (error) {
        if (!(error instanceof ApiError) && classifyDriverError(error, dialect).kind === 'conflict') {
          // SQLite has already waited busy_timeout; the server dialects report deadlocks at once.
          if (attempt < WRITE_ATTEMPTS && DIALECT_TRAITS[dialect].retryConflicts) {
            await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 10));
            continue;
          }
          throw new ApiError('WRITE_CONFLICT', undefined, { cause: error });
        }
        throw mapConstraintError(error, collection, dialect) ?? error;
      }
    }
  }

  /**
   * Inside a long write (an import of many rows): hands the rows changed so far to what runs
   * before commit (the `$search` tokens, the outbox), then forgets them, so the unit's change
   * set stays one batch long. The afterCommit hooks still learn which collections changed.
   */
  async flushChanges(unit: UnitOfWork, collection: Collection): Promise<void> {
    if (unit.changes.empty) return;
    await indexChanges(unit, collection);
    for (const hook of this.#beforeCommit) await hook(unit.changes, unit);
    unit.changes.drain();
  }

  /**
   * Runs one row's statements so that their failure undoes them alone (a savepoint inside the
   * unit's transaction: PostgreSQL refuses any statement after a failed one otherwise), and
   * turns a constraint error into the client error naming the field. The unit's change
   * records of a failed row are the caller's to drop: `work` records only after its statements ran.
   */
  async isolated<T>(unit: UnitOfWork, collection: Collection, work: () => Promise<T>): Promise<T> {
    await sql`savepoint corral_row`.execute(unit.db);
    try {
      const value = await work();
      await sql`release savepoint corral_row`.execute(unit.db);
      return value;
    } catch (error) {
      await sql`rollback to savepoint corral_row`.execute(unit.db);
      throw mapConstraintError(error, collection, this.#database.dialect) ?? error;
    }
  }

  async #committed(caller: UnitCaller, unit: UnitOfWork): Promise<void> {
    if (unit.changes.empty) return;
    const own = unit.hooks().after;
    // The store's hooks, then the unit's; a hook that returns no promise costs no await.
    const hooks = own.length === 0 ? this.#afterCommit.slice() : [...this.#afterCommit, ...own];
    for (const hook of hooks) {
      try {
        const done = hook(unit.changes, unit);
        if (done !== undefined) await done;
      } catch (error) {
        caller.log.error({ err: error, reqId: caller.request.id }, 'an afterCommit hook failed (the write is committed)');
      }
    }
  }
}

function changeCount(changes: ChangeSet): number {
  let n = 0;
  for (const byKind of changes.collections().values()) n += byKind.created.length + byKind.updated.length + byKind.deleted.length;
  return n;
}

function register(list: CommitHook[], hook: CommitHook): () => void {
  list.push(hook);
  return () => {
    const index = list.indexOf(hook);
    if (index >= 0) list.splice(index, 1);
  };
}

function fieldOf(collection: Collection, subject: string | undefined): string | undefined {
  if (subject === undefined) return undefined;
  if (collection.fields.has(subject)) return subject;
  // MySQL names the index, not the column.
  return collection.fieldList.find((field) => indexName('uq', collection.name, field.name) === subject)?.name
    ?? (subject === 'PRIMARY' ? collection.primaryKey.name : undefined);
}

export function mapConstraintError(error: unknown, collection: Collection, dialect: Parameters<typeof classifyDriverError>[1]): ApiError | undefined {
  if (error instanceof ApiError) return undefined;
  const { kind, subject } = classifyDriverError(error, dialect);
  const field = fieldOf(collection, subject);
  const extra = field === undefined ? { cause: error } : { cause: error, field };
  switch (kind) {
    case 'unique':
      return new ApiError('UNIQUE_VIOLATION', field === undefined ? 'a record with this value already exists' : `a record with this ${field} already exists`, extra);
    case 'notNull':
      return new ApiError('VALIDATION_FAILED', field === undefined ? 'a required value is missing' : `${field} must not be null`, extra);
    case 'foreignKey':
      return new ApiError('REFERENCE_VIOLATION', undefined, extra);
    case 'range':
      return new ApiError('VALIDATION_FAILED', 'a value is out of range for its column', extra);
    case 'invalidInput':
      return new ApiError('VALIDATION_FAILED', "a value does not fit its column's type", extra);
    case 'unavailable':
      return new ApiError('DATABASE_UNAVAILABLE', undefined, { cause: error });
    case 'conflict':
      return new ApiError('WRITE_CONFLICT', undefined, { cause: error });
    case 'denied':
      return new ApiError('DATABASE_READ_ONLY', undefined, { cause: error });
    case 'other':
      return undefined;
  }
}
