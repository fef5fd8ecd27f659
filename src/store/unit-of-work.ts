import type { FilterNode } from '../plan/filter-node.js';
import type { Collection, Row } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import type { ShapeCache } from '../sql/query-cache.js';
import type { Executor, SqlTarget } from '../sql/select-rows.js';
import { rowKey } from './canonical.js';
import type { ReferenceSource } from './cascades.js';
import { ChangeSet, type ChangeKind } from './change-set.js';
import { ApiError } from '../errors/api-error.js';
import { TRUE_NODE } from '../plan/filter-node.js';
import { reachesRootOnly, requireRootOnly } from './root-only.js';
import { DENIED, scoped, scopeWhere, type GrantAction, type Grants, type Scope, type Scopes } from './scope.js';
import type { SearchStats } from './search-stats.js';
import { TRANSACTION, type WriteMode } from './write-mode.js';

/** What a statement does to the rows of its collection. */
export type StatementAction = GrantAction | 'through';

/**
 * Runs with the change set of a unit of work: `beforeCommit` inside its transaction (an
 * outbox insert commits or rolls back with the data), `afterCommit` once it committed.
 */
export type CommitHook = (changes: ChangeSet, unit: UnitOfWork) => void | Promise<void>;

/**
 * One read or one write: where its statements run (the pool, or the write's transaction),
 * the caller's scopes, and what it changed. Every statement the store runs takes a unit.
 */
export class UnitOfWork implements SqlTarget {
  readonly changes = new ChangeSet();
  /** The signed-in user the write acts for (null: none), stamped as createdById/updatedById (write-grants.ts). */
  actor: number | string | null = null;
  readonly #beforeCommit: CommitHook[] = [];
  readonly #afterCommit: CommitHook[] = [];

  constructor(
    readonly db: Executor,
    readonly dialect: Dialect,
    /** What the caller may do on each collection: checked here for every statement. */
    readonly grants: Grants,
    /** The request this unit serves, for logs. */
    readonly requestId: string,
    /** Compiled statements by shape (the store's). */
    readonly shapes: ShapeCache,
    /** Orders `$search` words rarest first (the store's). */
    readonly searchStats?: SearchStats,
    /** Given, deletes record whole rows (before) and the rows the database cascades to. */
    readonly references?: ReferenceSource,
    /** How the store runs this unit (write-mode.ts); the statement writers follow it (run-write.ts). Read units: TRANSACTION, never asked. */
    readonly mode: WriteMode = TRANSACTION,
  ) {}

  /** The `view` scopes of every restricted collection (appends and association paths read under them). */
  get scopes(): Scopes {
    return this.grants.view;
  }

  /**
   * `where` over `collection` for a statement performing `action` there (`through`: a
   * belongsToMany junction row, which a link writes under the link's own checks): narrowed to the
   * caller's scope of that action (403 when not granted at all) and to the `view` scope inside
   * every association path, with the words of every `$search` ordered rarest first
   * (`limited`: the statement has a LIMIT, so common words may walk its rows).
   */
  where(collection: Collection, where: FilterNode, action: StatementAction = 'view', limited = false): FilterNode {
    // A junction row (`through`) is found by both its key columns: a junction without a key of its own (a composite key) is written.
    if (action !== 'view' && (collection.view || (!collection.keyed && action !== 'through'))) refuseWrite(collection);
    if (this.grants.open) return this.searchStats === undefined ? where : this.searchStats.arrange(where, limited);
    // A lookup of rows the caller cannot view finds nothing (FALSE), exactly as if they did not exist.
    const own = action === 'through' ? undefined : action === 'view' ? this.viewScope(collection) : this.require(collection, action);
    const narrowed = scoped(this.grants.view, own?.where ?? TRUE_NODE, where);
    return this.searchStats === undefined ? narrowed : this.searchStats.arrange(narrowed, limited);
  }

  /** The caller's scope of `action` on `collection` (undefined: unrestricted); 403 FORBIDDEN when not granted. */
  require(collection: Collection, action: GrantAction): Scope | undefined {
    if (this.grants.open) return undefined;
    const scope = action === 'view' ? this.viewScope(collection) : reachesRootOnly(this.grants, collection.name) ? this.grants.scope(collection, action) : DENIED;
    if (scope?.denied) throw new ApiError('FORBIDDEN', `your roles do not allow ${action} on ${collection.name}`);
    return scope;
  }

  /** The caller's `view` scope of `collection` (undefined: unrestricted): DENIED for a root-only one (root-only.ts) unless the caller is root. */
  viewScope(collection: Collection): Scope | undefined {
    if (this.grants.open) return undefined;
    return reachesRootOnly(this.grants, collection.name) ? this.grants.view.get(collection.name) : DENIED;
  }

  /** 403 FORBIDDEN unless the caller reaches the root-only resource `resource` (an action that is no rows: `collections:sync`). */
  requireRootOnly(resource: string): void {
    requireRootOnly(this.grants, resource);
  }

  /**
   * 403 FORBIDDEN (before anything is written) when `names` are not all in the field set of
   * `action` on `collection` (`alias`: another name that grants the same, a belongsTo's key column).
   */
  checkWritten(collection: Collection, action: 'create' | 'update', names: Iterable<string>, alias: readonly string[] = []): void {
    const fields = this.require(collection, action)?.fields;
    if (fields === undefined) return;
    if (alias.some((name) => fields.has(name))) return;
    for (const name of names) {
      if (!fields.has(name)) throw new ApiError('FORBIDDEN', `your roles do not allow writing ${name} of ${collection.name}`, { field: name });
    }
  }

  /** The fields of `collection` the caller may read (undefined: all); the key is always readable. */
  readable(collection: Collection): ReadonlySet<string> | undefined {
    if (this.grants.open) return undefined;
    const scope = this.viewScope(collection);
    if (scope === undefined) return undefined;
    if (scope.denied) return keyOnly(collection);
    return scope.fields === undefined ? undefined : withKey(collection, scope.fields);
  }

  /** The scope filter of one collection alone (TRUE when unrestricted). */
  readonly scopeOf = (collection: Collection): FilterNode => scopeWhere(this.grants.view, collection);

  /** Records a changed row by its key (the collection's filterTargetKey, read from the driver row). */
  record(collection: Collection, kind: ChangeKind, row: Row): void {
    this.changes.record(collection.name, kind, rowKey(collection, row, this.dialect), row);
  }

  beforeCommit(hook: CommitHook): void {
    this.#beforeCommit.push(hook);
  }

  afterCommit(hook: CommitHook): void {
    this.#afterCommit.push(hook);
  }

  /** Hooks registered on this unit (the store adds its own). */
  hooks(): { before: readonly CommitHook[]; after: readonly CommitHook[] } {
    return { before: this.#beforeCommit, after: this.#afterCommit };
  }
}

/**
 * A view's rows are never written (405 COLLECTION_READ_ONLY); a collection without a key is
 * only inserted into (400 COLLECTION_HAS_NO_KEY for updates and deletes, which would have no
 * way to tell its rows apart).
 */
export function refuseWrite(collection: Collection, action: 'create' | 'write' = 'write'): void {
  if (collection.view) throw new ApiError('COLLECTION_READ_ONLY', `${collection.name} is a view: its rows cannot be written`);
  if (action !== 'create' && !collection.keyed) throw new ApiError('COLLECTION_HAS_NO_KEY', `${collection.name} has no key field: its rows can be created but not updated or deleted one by one`);
}

const keyOnlySets = new WeakMap<Collection, ReadonlySet<string>>();
const withKeySets = new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();

function keyOnly(collection: Collection): ReadonlySet<string> {
  let set = keyOnlySets.get(collection);
  if (set === undefined) keyOnlySets.set(collection, (set = new Set([collection.key.name])));
  return set;
}

/** A field grant plus the key (a caller always learns the key of a row it may see or wrote). */
function withKey(collection: Collection, fields: ReadonlySet<string>): ReadonlySet<string> {
  if (fields.has(collection.key.name)) return fields;
  let set = withKeySets.get(fields);
  if (set === undefined) withKeySets.set(fields, (set = new Set([...fields, collection.key.name])));
  return set;
}
