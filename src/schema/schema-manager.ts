import type { FastifyBaseLogger } from 'fastify';
import type { Transaction } from 'kysely';
import type { Database, DynamicDb } from '../db/database.js';
import { adapterOf } from '../db/dialects/adapters.js';
import type { DialectAdapter } from '../db/dialects/dialect-adapter.js';
import { ApiError } from '../errors/api-error.js';
import { addColumn, dropColumn } from './ddl.js';
import { Mutex } from './mutex.js';
import { notManaged } from './not-managed.js';
import { checkRegistrable } from './check-registrable.js';
import { parseUnmanaged, registerUnmanaged } from './register-unmanaged.js';
import { normalizeCollection } from './normalize-collection.js';
import { invalid } from './normalize-field.js';
import { isRecord } from '../is-record.js';
import { ensureSystemTables, readDefinitions, readSchemaVersion, updateDefinition } from './schema-store.js';
import { SchemaSnapshot } from './schema-snapshot.js';
import { isRelationInput } from './resolve-relation.js';
import { SchemaWork } from './schema-work.js';
import { addableField, checkRoomFor, droppableField } from './field-checks.js';
import { checkCollectionChange, checkFieldChange, checkFieldPatch } from './protected.js';
import { tableOf, tablesOf } from './table-of.js';
import { applySchemaFile } from './apply-schema-file.js';
import { runDdl, runSchemaChange, type ApplyChange } from './run-schema-change.js';
import { updateCollection } from './update-collection.js';
import { requireCollection, updateField } from './update-field.js';
import { changesOptionsOnly, updateFieldOptions } from './update-field-options.js';
import type { CollectionDef, FieldDef, RelationDef } from './types.js';
import { syncIntrospected, type IntrospectSettings, type SyncReport } from './sync-introspected.js';

type Trx = Transaction<DynamicDb>;

/**
 * Owns the schema: applies changes (DDL, definition row and version bump in one transaction
 * where the dialect allows), keeps the current snapshot, and notices other nodes' changes.
 */
export class SchemaManager {
  #snapshot: SchemaSnapshot;
  readonly #mutex = new Mutex();
  #timer: NodeJS.Timeout | undefined;
  #polling = false;
  #refreshing: Promise<void> | undefined;
  #onChanged: ((version: number) => Promise<void>) | undefined;
  readonly #adapter: DialectAdapter;
  #introspection: IntrospectSettings | undefined;

  constructor(
    private readonly database: Database,
    private readonly log: FastifyBaseLogger,
  ) {
    this.#snapshot = new SchemaSnapshot(-1, [], database.dialect);
    this.#adapter = adapterOf(database.dialect);
  }

  get snapshot(): SchemaSnapshot {
    return this.#snapshot;
  }

  /** Loads the schema; the system tables are created only when reading them fails (first start). */
  async init(): Promise<void> {
    try {
      await this.reload();
    } catch (error) {
      // An unreachable database fails the start at once, not after a second connect timeout.
      if (this.#adapter.classifyError(error).kind === 'unavailable') throw error;
      // Expected on a first start; anything else shows up again below if creating fails too.
      this.log.debug({ err: error }, 'the schema could not be read: creating the system tables');
      await ensureSystemTables(this.database.db, this.#adapter, this.database.mysqlCollation);
      await this.reload();
      this.log.info('first start: created Corral\'s system tables');
    }
  }

  /** Re-reads the schema when another node changed it; cheap enough to run twice a second. */
  startPolling(intervalMs: number): void {
    this.#timer = setInterval(() => void this.poll(), intervalMs);
    this.#timer.unref();
  }

  stopPolling(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const version = await readSchemaVersion(this.database.db);
      if (version !== this.#snapshot.version) await this.#mutex.run(() => this.reload());
    } catch (error) {
      this.log.warn({ err: error }, 'schema poll failed');
    } finally {
      this.#polling = false;
    }
  }

  /**
   * Reloads now: a statement found the schema moved under it (another node changed it before
   * this one's poll noticed). `since`: the snapshot the statement used; when a newer one is
   * installed already (another request's refresh, a poll), no reload starts. Concurrent callers
   * share one reload; `atLeast` (a version read from the database) reloads once more if the
   * shared reload read the version before it.
   */
  async refresh(since?: SchemaSnapshot, atLeast?: number): Promise<void> {
    if (since === undefined || this.#snapshot === since) {
      this.#refreshing ??= this.#mutex.run(() => this.reload()).finally(() => {
        this.#refreshing = undefined;
      });
      await this.#refreshing;
    }
    if (atLeast !== undefined) await this.catchUp(atLeast);
  }

  /**
   * The stored schema version when it differs from `since`'s (a request's snapshot; by default
   * the current one), else undefined: one small read. A request refused for a name its snapshot
   * does not know asks this first, so a collection created through another worker or node is
   * usable at once. It compares with the request's snapshot, not the current one: when many
   * requests miss at once, the first one's refresh installs the new snapshot before the others
   * ask, and they must run again, not answer 404.
   */
  async newerVersion(since: SchemaSnapshot = this.#snapshot): Promise<number | undefined> {
    const version = await readSchemaVersion(this.database.db);
    return version !== since.version ? version : undefined;
  }

  /**
   * Reloads unless the snapshot has reached `version` already (another worker of this node
   * changed the schema and says which version it serves). Not shared with a reload in flight.
   */
  async catchUp(version: number): Promise<void> {
    if (this.#snapshot.version >= version) return;
    await this.#mutex.run(async () => {
      if (this.#snapshot.version < version) await this.reload();
    });
  }

  /** Called after every schema change made through this manager, with the version it serves then. */
  onChanged(listener: (version: number) => Promise<void>): void {
    this.#onChanged = listener;
  }

  /**
   * Reads the version, then the definitions: the label is never newer than the definitions (at
   * worst older, and the next poll reads them again). An older snapshot is never installed.
   */
  async reload(): Promise<void> {
    const version = await readSchemaVersion(this.database.db);
    const defs = await readDefinitions(this.database.db);
    if (version < this.#snapshot.version) return;
    this.#snapshot = new SchemaSnapshot(version, defs, this.database.dialect);
  }

  /** `system`: a collection of the auth layer, whose name is reserved for clients (and which the API never drops: protected.ts). */
  async createCollection(input: unknown, system = false): Promise<CollectionDef> {
    const { def, relationInputs, indexes } = normalizeCollection(input, system);
    let created: CollectionDef | undefined;
    await this.change(async (trx, defs) => {
      if (defs.some((existing) => existing.name.toLowerCase() === def.name.toLowerCase())) {
        throw new ApiError('COLLECTION_EXISTS', `collection ${def.name} already exists`, { field: 'name' });
      }
      const work = new SchemaWork(defs);
      if (def.managed === false) await checkRegistrable(trx, def, defs);
      work.create(def);
      for (const relation of relationInputs) work.addRelation(def.name, relation);
      if (indexes !== undefined && indexes !== null) work.setIndexes(def.name, indexes);
      await this.applyWork(trx, work);
      created = work.get(def.name);
    });
    return created!;
  }

  /**
   * Registers definitions over existing tables (`managed: false`) in one schema change without
   * DDL; `replace` puts new definitions in place of existing unmanaged ones (register-unmanaged.ts).
   */
  async registerUnmanaged(inputs: readonly unknown[], replace = false): Promise<CollectionDef[]> {
    const parsed = parseUnmanaged(inputs);
    let out: CollectionDef[] = [];
    await this.change(async (trx, defs) => {
      const work = new SchemaWork(defs);
      out = await registerUnmanaged(trx, work, defs, parsed, replace, this.database.dialect);
      await this.applyWork(trx, work);
    });
    return out;
  }

  async updateCollection(name: string, patch: unknown): Promise<CollectionDef> {
    return this.changeWork((work) => updateCollection(work, name, patch));
  }

  /** Replaces a collection's `indexes` (collections:setIndexes): the indexes that went or changed are dropped, the new ones created. */
  async setIndexes(name: string, input: unknown): Promise<CollectionDef> {
    return this.changeWork((work) => {
      work.setIndexes(name, input);
      return work.get(name);
    });
  }

  /** One schema change made on a working copy (see SchemaWork); `edit` returns the answer. */
  async changeWork<T>(edit: (work: SchemaWork) => T): Promise<T> {
    let result: { value: T } | undefined;
    await this.change(async (trx, defs) => {
      const work = new SchemaWork(defs);
      result = { value: edit(work) };
      await this.applyWork(trx, work);
    });
    return result!.value;
  }

  /** Drops a collection with its own relations; incoming relations make it COLLECTION_IN_USE unless `cascade` drops them too. */
  async dropCollection(name: string, cascade = false): Promise<void> {
    await this.change(async (trx, defs) => {
      const work = new SchemaWork(defs);
      const def = work.get(name);
      checkCollectionChange(def, 'dropping it');
      const incoming = work.incoming(name);
      if (incoming.length > 0 && !cascade) {
        const users = incoming.map(({ source, relation }) => `${source}.${relation.name}`);
        throw new ApiError('COLLECTION_IN_USE', `${name} is used by ${users.join(', ')}; drop those relations first or pass cascade=true`, {
          details: { usedBy: users },
        });
      }
      for (const { source, relation } of incoming) work.dropRelation(source, relation.name);
      for (const relation of [...(def.relations ?? [])]) work.dropRelation(name, relation.name);
      // A through collection goes with the last relation using it (cascade dropped them).
      if (work.has(name)) work.dropCollection(name);
      await this.applyWork(trx, work);
    });
  }

  async createField(collectionName: string, input: unknown): Promise<FieldDef | RelationDef> {
    if (isRelationInput(input)) {
      let relation: RelationDef | undefined;
      await this.change(async (trx, defs) => {
        const work = new SchemaWork(defs);
        relation = work.addRelation(collectionName, input);
        await this.applyWork(trx, work);
      });
      return relation!;
    }
    const owner = this.snapshot.get(collectionName);
    if (owner !== undefined && !owner.managed) throw notManaged(collectionName, 'adding a column');
    const field = addableField(collectionName, input);
    await this.change(async (trx, defs) => {
      const def = requireCollection(defs, collectionName);
      checkRoomFor(def, field);
      await this.ddl(
        () => addColumn(trx, tableOf(def), field, this.#adapter, tablesOf(defs)),
        async () => dropColumn(trx, tableOf(def), { ...field, unique: false, index: false }, this.#adapter),
      );
      await updateDefinition(trx, { ...def, fields: [...def.fields, field] });
    });
    return field;
  }

  async updateField(collectionName: string, fieldName: string, patch: unknown): Promise<FieldDef | RelationDef> {
    if (!isRecord(patch)) throw invalid('the body must be an object');
    checkFieldPatch(this.snapshot.get(collectionName)?.def, fieldName, patch);
    // Relations, and UI options on any field: no column changes (update-field-options.ts).
    if (changesOptionsOnly(this.snapshot, collectionName, fieldName, patch)) return this.changeWork((work) => updateFieldOptions(work, collectionName, fieldName, patch));
    if (this.snapshot.get(collectionName)?.managed === false) throw notManaged(collectionName, `changing the column of ${fieldName}`);
    let updated: FieldDef | undefined;
    await this.change(async (trx, defs) => {
      updated = await updateField(trx, defs, collectionName, fieldName, patch, this.#adapter, (run, undo) => this.ddl(run, undo));
    });
    return updated!;
  }

  async dropField(collectionName: string, fieldName: string): Promise<void> {
    await this.change(async (trx, defs) => {
      const def = requireCollection(defs, collectionName);
      checkFieldChange(def, fieldName, 'dropping it');
      if ((def.relations ?? []).some((relation) => relation.name === fieldName)) {
        const work = new SchemaWork(defs);
        work.dropRelation(collectionName, fieldName);
        await this.applyWork(trx, work);
        return;
      }
      const field = droppableField(defs, def, fieldName);
      await this.ddl(() => dropColumn(trx, tableOf(def), field, this.#adapter));
      await updateDefinition(trx, { ...def, fields: def.fields.filter((f) => f !== field) });
    });
  }

  /** What introspection reads (CORRAL_INTROSPECT_*): `syncIntrospected` uses these, at start and for `collections:sync`. */
  useIntrospection(settings: IntrospectSettings): void {
    this.#introspection = settings;
  }

  /** Reads the catalogue and replaces the unmanaged definitions with what it now says (sync-introspected.ts). */
  async syncIntrospected(): Promise<SyncReport> {
    return syncIntrospected(this, this.database, this.#introspection);
  }

  /** A change of definition rows only (no DDL), serialized and announced like every schema change. */
  async changeDefinitions(apply: ApplyChange): Promise<void> {
    await this.change(apply);
  }

  /** Applies a schema file (see apply-schema-file.ts). */
  async applySchemaFile(input: unknown): Promise<void> {
    await applySchemaFile(this, input);
  }

  /**
   * One schema change (DDL first, then the definition row: MySQL commits at each DDL statement):
   * serialized in this process, and across processes by the version row lock taken first.
   * Definitions are re-read inside the transaction: another node's change is never overwritten.
   */
  private async change(apply: ApplyChange): Promise<void> {
    const before = this.#snapshot;
    try {
      await this.#changeLocked(apply);
    } finally {
      // The other workers (and nodes) serve the change before it is acknowledged; a failed
      // change that still moved the version (MySQL commits at each DDL) is announced too.
      if (this.#snapshot !== before) await this.#onChanged?.(this.#snapshot.version);
    }
  }

  async #changeLocked(apply: ApplyChange): Promise<void> {
    await this.#mutex.run(async () => {
      let failed = false;
      try {
        await runSchemaChange(this.database.executor, this.#adapter, apply);
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        // A failed reload must not replace the change's own error (the poller retries it).
        await this.reload().catch((error: unknown) => {
          if (!failed) throw error;
          this.log.error({ err: error }, 'reloading the schema after a failed change failed');
        });
      }
    });
  }

  private async applyWork(trx: Trx, work: SchemaWork): Promise<void> {
    await work.apply(trx, this.#adapter, (run, undo) => this.ddl(run, undo), this.database.mysqlCollation);
  }

  /** Runs DDL, turning a database refusal into a client error (see run-schema-change.ts). */
  private async ddl(run: () => Promise<void>, undo?: () => Promise<void>): Promise<void> {
    await runDdl(this.#adapter, this.log, run, undo);
  }
}
