import { DirectWriteUnavailable, sqliteDirectWrite } from '../changes/sqlite-direct-write.js';
import type { Database } from '../db/database.js';
import { classifyDriverError } from '../db/driver-error.js';
import { ApiError } from '../errors/api-error.js';
import type { Collection } from '../schema/collection.js';
import { indexName } from '../schema/index-name.js';
import { DIALECT_TRAITS, type DialectTraits } from '../sql/dialect-traits.js';
import { FusedWrites, type FuseWrite } from '../sql/fused-write.js';
import { ShapeCache } from '../sql/query-cache.js';
import type { ChangeSet } from './change-set.js';
import type { ReferenceSource } from './cascades.js';
import { loadCursorSecret } from './cursor-secret.js';
import { indexChanges, isSearchable } from './search-index.js';
import { SearchStats } from './search-stats.js';
import { NO_SCOPES, type Grants, type ScopeProvider, type Scopes } from './scope.js';
import { UnitOfWork, type CommitHook } from './unit-of-work.js';

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
  /** Where background work that no request waits for reports failures (the `$search` word counts). */
  readonly log?: StoreLog;
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
  #cursorSecret: Promise<Buffer> | undefined;
  #outbox: { hook: CommitHook; fused: FusedOutbox | undefined } | undefined;
  #fusedWrites = 0;

  constructor(
    readonly database: Database,
    readonly options: StoreOptions = {},
  ) {
    this.shapes = new ShapeCache(database.statementNames);
    this.searchStats = new SearchStats(database.db, (error) => options.log?.error({ err: error }, 'counting the rows of a $search word failed (searches still answer, in the given word order)'));
  }

  /** What the database can do (RETURNING, row locks), for plans that choose a fast path. */
  get traits(): DialectTraits {
    return DIALECT_TRAITS[this.database.dialect];
  }

  /** The secret list cursors are signed with, loaded (or stored) once. */
  cursorSecret(): Promise<Buffer> {
    this.#cursorSecret ??= loadCursorSecret(this.database.db, this.options.cursorSecret).catch((error: unknown) => {
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
   * The outbox, a beforeCommit hook, and (PostgreSQL) how a flat one-statement write carries
   * its event in that statement instead: while the outbox is the only beforeCommit hook, such
   * writes to a collection `fused.accepts` run as one autocommitted statement (fused-outbox.ts).
   */
  outbox(hook: CommitHook, fused?: FusedOutbox): () => void {
    const remove = register(this.#beforeCommit, hook);
    this.#outbox = { hook, fused };
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

  /** Whether a reference points at `collection`: deleting its rows may cascade, so a destroy is never one statement. */
  referenced(collection: Collection): boolean {
    return (this.options.references?.(collection).length ?? 0) > 0;
  }

  /**
   * A read unit over one snapshot of data and schema, for a read that outlives a statement
   * (a streamed list): released by `release`, whatever happened.
   */
  async readSnapshot(caller: UnitCaller): Promise<{ unit: UnitOfWork; release: () => Promise<void> }> {
    const snapshot = await this.database.readSnapshot();
    // The answer is complete or already cut when this runs: a failure to end the snapshot only needs logging.
    const release = () => snapshot.release().catch((error: unknown) => this.options.log?.error({ err: error }, 'ending the snapshot of a streamed read failed'));
    return { unit: new UnitOfWork(snapshot.db, this.database.dialect, caller.grants, caller.request.id, this.shapes, this.searchStats), release };
  }

  /** A read unit: statements run on the pool (SQLite's direct reads stay possible). */
  read(caller: UnitCaller): UnitOfWork {
    return new UnitOfWork(this.database.db, this.database.dialect, caller.grants, caller.request.id, this.shapes, this.searchStats);
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
    /** The work is one statement, atomic by itself: skip BEGIN/COMMIT (two round trips) unless a beforeCommit hook needs the transaction. */
    singleStatement = false,
  ): Promise<T> {
    const { db, dialect } = this.database;
    for (let attempt = 1; ; attempt++) {
      try {
        let unit!: UnitOfWork;
        let result!: T;
        const plain = singleStatement && !isSearchable(collection);
        // SQLite: the statement and the outbox in one synchronous unit (sqlite-direct-write.ts).
        const outboxOnly = plain && this.#outboxOnly();
        const oneWrite = outboxOnly ? sqliteDirectWrite(db) : undefined;
        // PostgreSQL: the outbox event written by the statement itself (fused-outbox.ts).
        const fuse = outboxOnly && oneWrite === undefined ? this.#fusedOutbox(collection) : undefined;
        let done = false;
        if (oneWrite !== undefined || fuse !== undefined || (plain && this.#beforeCommit.length === 0)) {
          // No references: the work is one statement, and a destroy's is one only where none points at the collection (see referenced).
          unit = new UnitOfWork(db, dialect, caller.grants, caller.request.id, this.shapes, this.searchStats, undefined, oneWrite);
          unit.actor = caller.request.principal?.user.id ?? null;
          if (fuse !== undefined) {
            unit.fused = new FusedWrites(fuse);
            this.#fusedWrites++;
          }
          try {
            result = await work(unit);
            done = true;
          } catch (error) {
            // The connection had a transaction open when the statement was ready: nothing ran.
            if (!(error instanceof DirectWriteUnavailable)) throw error;
          }
          // A change without its event would be lost: the work must fuse every row it wrote.
          if (done && unit.fused !== undefined && unit.fused.events !== changeCount(unit.changes)) throw new Error('a fused write recorded a change its statement wrote no event for');
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

  /** Whether the outbox is the only beforeCommit hook: a flat write may then write its event itself. */
  #outboxOnly(): boolean {
    return this.#outbox !== undefined && this.#beforeCommit.length === 1 && this.#beforeCommit[0] === this.#outbox.hook;
  }

  /** How a flat write to `collection` carries its event in its statement (PostgreSQL), when the outbox is the only hook. */
  #fusedOutbox(collection: Collection): FuseWrite | undefined {
    const fused = this.#outbox?.fused;
    return fused !== undefined && fused.accepts(collection) ? fused.fuse : undefined;
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

/** A dialect's way to write the outbox event inside a flat write's own statement. */
export interface FusedOutbox {
  /** Whether the event of a write to the collection can be built in the statement. */
  accepts(collection: Collection): boolean;
  readonly fuse: FuseWrite;
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
    case 'unavailable':
      return new ApiError('DATABASE_UNAVAILABLE', undefined, { cause: error });
    case 'conflict':
      return new ApiError('WRITE_CONFLICT', undefined, { cause: error });
    case 'other':
      return undefined;
  }
}
