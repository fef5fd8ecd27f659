import type { FastifyBaseLogger } from 'fastify';
import { sql, type Transaction } from 'kysely';
import type { Database, DynamicDb } from '../db/database.js';
import { classifyDriverError } from '../db/driver-error.js';
import { ApiError } from '../errors/api-error.js';
import { addColumn, alterColumn, createIndexes, dropColumn, dropIndex, renameColumn, setColumnDefault } from './ddl.js';
import { Mutex } from './mutex.js';
import { checkDefault, findField, MAX_FIELDS_PER_COLLECTION, normalizeCollection } from './normalize-collection.js';
import { invalid, normalizeField } from './normalize-field.js';
import { reindexSearch, searchableFields } from './search-table.js';
import { isRecord } from '../is-record.js';
import {
  bumpSchemaVersion, ensureSystemTables, readDefinitions, readSchemaVersion, updateDefinition,
} from './schema-store.js';
import { SchemaSnapshot } from './schema-snapshot.js';
import { isRelationInput } from './resolve-relation.js';
import { SchemaWork } from './schema-work.js';
import { applySchemaFile } from './apply-schema-file.js';
import { updateCollection } from './update-collection.js';
import { changesOptionsOnly, updateFieldOptions } from './update-field-options.js';
import { SCALAR_TYPES, type CollectionDef, type Dialect, type FieldDef, type RelationDef, type ScalarType } from './types.js';
import { columnChanges, typeChangeProblem, wideningProblem } from './widening.js';
import { FIELD_TYPES } from './field-types/index.js';
import { FIELD_UI_OPTIONS } from './ui-options.js';

type Trx = Transaction<DynamicDb>;

/** Options of a field that only change validation or display: no DDL. */
const METADATA_OPTIONS = ['title', 'description', 'defaultValue', 'min', 'max', 'minLength', 'maxLength', 'pattern', 'enum', ...FIELD_UI_OPTIONS] as const;
/** Size options that belong to one type; a type change resets the ones not sent. */
const TYPE_OPTIONS = ['length', 'precision', 'scale'] as const;
const VALIDATION_OPTIONS = ['min', 'max', 'minLength', 'maxLength', 'pattern'] as const;

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

  constructor(
    private readonly database: Database,
    private readonly log: FastifyBaseLogger,
  ) {
    this.#snapshot = new SchemaSnapshot(-1, [], database.dialect);
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
      if (classifyDriverError(error, this.database.dialect).kind === 'unavailable') throw error;
      // Expected on a first start; anything else shows up again below if creating fails too.
      this.log.debug({ err: error }, 'the schema could not be read: creating the system tables');
      await ensureSystemTables(this.database.db, this.database.dialect, this.database.mysqlCollation);
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
   * Reloads now, because a statement found the schema moved under it (another node changed
   * it before this one's poll noticed). `since`: the snapshot the statement used; when a newer
   * one is installed already (another request's refresh, a poll), no reload is started for
   * it. Concurrent callers share one reload; `atLeast` (a version the caller read from the
   * database) makes sure the result is not older than that, reloading once more if the shared
   * reload read the version before it.
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
   * The stored schema version when it differs from `since`'s (a request's snapshot; by
   * default the current one), else undefined: one small read. A request refused for a name
   * its snapshot does not know asks this before answering, so a collection created through
   * another worker or node is usable at once. It compares with the snapshot the request
   * used, not the current one: when many requests miss at once, the first one's refresh
   * installs the new snapshot before the others ask, and they must run again, not answer 404.
   */
  async newerVersion(since: SchemaSnapshot = this.#snapshot): Promise<number | undefined> {
    const version = await readSchemaVersion(this.database.db);
    return version !== since.version ? version : undefined;
  }

  /**
   * Reloads unless the snapshot has reached `version` already (another worker of this node
   * changed the schema and says which version it now serves). Not shared with a reload in
   * flight: that one may have read the version before the change.
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
   * Reads the version, then the definitions: the label is never newer than the definitions
   * (at worst older, and the next poll reads them again). A snapshot older than the one
   * installed is never installed (reloads run one at a time, so this only guards the order).
   */
  async reload(): Promise<void> {
    const version = await readSchemaVersion(this.database.db);
    const defs = await readDefinitions(this.database.db);
    if (version < this.#snapshot.version) return;
    this.#snapshot = new SchemaSnapshot(version, defs, this.database.dialect);
  }

  /** `system`: a collection of the auth layer, whose name is reserved for clients. */
  async createCollection(input: unknown, system = false): Promise<CollectionDef> {
    const { def, relationInputs } = normalizeCollection(input, system);
    let created: CollectionDef | undefined;
    await this.change(async (trx, defs) => {
      if (defs.some((existing) => existing.name.toLowerCase() === def.name.toLowerCase())) {
        throw new ApiError('COLLECTION_EXISTS', `collection ${def.name} already exists`, { field: 'name' });
      }
      const work = new SchemaWork(defs);
      work.create(def);
      for (const relation of relationInputs) work.addRelation(def.name, relation);
      await this.applyWork(trx, work);
      created = work.get(def.name);
    });
    return created!;
  }

  async updateCollection(name: string, patch: unknown): Promise<CollectionDef> {
    return this.changeWork((work) => updateCollection(work, name, patch));
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

  /**
   * Drops a collection with its own relations. Relations of other collections that point at
   * it make it COLLECTION_IN_USE, unless `cascade` drops those relations too.
   */
  async dropCollection(name: string, cascade = false): Promise<void> {
    await this.change(async (trx, defs) => {
      const work = new SchemaWork(defs);
      const def = work.get(name);
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
    const field = normalizeField(input);
    if (field.primaryKey === true) throw invalid(`${collectionName} already has primary key: a primary key can only be set when the collection is created`, field.name);
    checkDefault(field);
    if (!field.allowNull && field.defaultValue === undefined) {
      throw invalid(`${field.name}: allowNull false needs a defaultValue for the rows already stored`, field.name);
    }
    await this.change(async (trx, defs) => {
      const def = this.require(defs, collectionName);
      if (findField(def.fields, field.name) !== undefined || (def.relations ?? []).some((r) => r.name.toLowerCase() === field.name.toLowerCase())) {
        throw new ApiError('FIELD_EXISTS', `field ${field.name} already exists in ${collectionName}`, { field: field.name });
      }
      if (def.fields.length >= MAX_FIELDS_PER_COLLECTION) throw invalid(`a collection has at most ${MAX_FIELDS_PER_COLLECTION} fields`, 'fields');
      await this.ddl(
        () => addColumn(trx, def.name, field, this.database.dialect),
        async () => dropColumn(trx, def.name, { ...field, unique: false, index: false }, this.database.dialect),
      );
      await updateDefinition(trx, { ...def, fields: [...def.fields, field] });
    });
    return field;
  }

  async updateField(collectionName: string, fieldName: string, patch: unknown): Promise<FieldDef | RelationDef> {
    if (!isRecord(patch)) throw invalid('the body must be an object');
    // Relations, and UI options on any field: no column changes (update-field-options.ts).
    if (changesOptionsOnly(this.snapshot, collectionName, fieldName, patch)) return this.changeWork((work) => updateFieldOptions(work, collectionName, fieldName, patch));
    let updated: FieldDef | undefined;
    await this.change(async (trx, defs) => {
      const def = this.require(defs, collectionName);
      const current = this.requireField(def, fieldName);
      if (current.system !== undefined) throw invalid(`${fieldName} is automatic and cannot be changed`, fieldName);
      if (current.references !== undefined) throw invalid(`${fieldName} is the key column of a relation`, fieldName);
      if (patch.primaryKey !== undefined && patch.primaryKey !== (current.primaryKey === true)) {
        throw new ApiError('SCHEMA_CHANGE_UNSAFE', `${fieldName}: the primary key is chosen when the collection is created`, { field: fieldName });
      }
      const merged: Record<string, unknown> = { ...current, ...patch };
      for (const key of METADATA_OPTIONS) if (patch[key] === null) delete merged[key];
      if (typeof patch.type === 'string' && patch.type !== current.type && (SCALAR_TYPES as readonly string[]).includes(patch.type)) {
        const to = patch.type as ScalarType;
        const problem = typeChangeProblem(current.type, to);
        if (problem !== undefined) throw new ApiError('SCHEMA_CHANGE_UNSAFE', `${fieldName}: ${problem}; add a new field and copy the values`, { field: fieldName });
        // The new type starts from its own defaults for size options, and keeps only the options it takes.
        for (const key of TYPE_OPTIONS) if (patch[key] === undefined) delete merged[key];
        for (const key of VALIDATION_OPTIONS) if (!FIELD_TYPES[to].options.includes(key) && patch[key] === undefined) delete merged[key];
      }
      delete merged.system;
      delete merged.autoIncrement;
      const next = normalizeField(merged);
      if (next.primaryKey === true) next.primaryKey = current.primaryKey;
      checkDefault(next);
      const structural = columnChanges(current, next);
      if (structural) {
        const problem = wideningProblem(current, next);
        if (problem !== undefined) throw new ApiError('SCHEMA_CHANGE_UNSAFE', `${fieldName}: ${problem}; add a new field and copy the values`, { field: fieldName });
        const referenced = defs.some((other) => other.fields.some((f) => f.references?.collection === def.name && f.references.key === current.name));
        if (referenced && current.type !== next.type) throw invalid(`${fieldName} is the key relations point at; its type cannot change`, fieldName);
        if (current.allowNull && !next.allowNull) {
          const nulls = await trx.selectFrom(def.name).select(sql<unknown>`count(*)`.as('n')).where(current.name, 'is', null).executeTakeFirst();
          if (Number(nulls?.n ?? 0) > 0) {
            throw new ApiError('SCHEMA_CHANGE_UNSAFE', `${fieldName}: ${Number(nulls?.n)} stored rows hold NULL; fill them before making the field required`, { field: fieldName });
          }
        }
      }
      if (next.name !== current.name) {
        if (current.primaryKey === true || def.filterTargetKey === current.name) throw invalid('the key field cannot be renamed', fieldName);
        const clash = findField(def.fields, next.name);
        if (clash !== undefined && clash !== current) throw new ApiError('FIELD_EXISTS', `field ${next.name} already exists`, { field: next.name });
      }
      updated = next;
      const dialect = this.database.dialect;
      await this.ddl(async () => {
        if (next.name !== current.name) await renameColumn(trx, def.name, current, next, dialect);
        if (current.unique && !next.unique) await dropIndex(trx, def.name, 'uq', next.name, dialect);
        if (current.index && !current.unique && (!next.index || next.unique)) await dropIndex(trx, def.name, 'ix', next.name, dialect);
        const added = { ...next, unique: next.unique && !current.unique, index: next.index && !next.unique && !(current.index && !current.unique) };
        await createIndexes(trx, def.name, added);
        const nextDef = { ...def, fields: def.fields.map((field) => (field === current ? next : field)) };
        if (structural) await alterColumn(trx, nextDef, current, next, dialect);
        // A stale database DEFAULT would fill rows the client leaves the field out of (SQLite's rebuild restated it).
        if (JSON.stringify(current.defaultValue) !== JSON.stringify(next.defaultValue) && !(structural && dialect === 'sqlite')) await setColumnDefault(trx, nextDef, next, dialect);
      });
      await updateDefinition(trx, { ...def, fields: def.fields.map((field) => (field === current ? next : field)) });
    });
    return updated!;
  }

  async dropField(collectionName: string, fieldName: string): Promise<void> {
    await this.change(async (trx, defs) => {
      const def = this.require(defs, collectionName);
      if ((def.relations ?? []).some((relation) => relation.name === fieldName)) {
        const work = new SchemaWork(defs);
        work.dropRelation(collectionName, fieldName);
        await this.applyWork(trx, work);
        return;
      }
      const field = this.requireField(def, fieldName);
      if (field.system !== undefined || field.primaryKey === true || def.filterTargetKey === field.name) {
        throw invalid(`${fieldName} is a key or automatic field and cannot be removed`, fieldName);
      }
      if (field.references !== undefined) throw invalid(`${fieldName} is the key column of a relation; drop the relation instead`, fieldName);
      if (defs.some((other) => (other.relations ?? []).some((r) => (r.sourceKey === fieldName && other.name === collectionName) || (r.targetKey === fieldName && r.target === collectionName)))) {
        throw invalid(`${fieldName} is the key a relation points at`, fieldName);
      }
      await this.ddl(() => dropColumn(trx, def.name, field, this.database.dialect));
      await updateDefinition(trx, { ...def, fields: def.fields.filter((f) => f !== field) });
    });
  }

  /** Applies a schema file (see apply-schema-file.ts). */
  async applySchemaFile(input: unknown): Promise<void> {
    await applySchemaFile(this, input);
  }

  private require(defs: readonly CollectionDef[], name: string): CollectionDef {
    const def = defs.find((candidate) => candidate.name === name);
    if (def === undefined) throw new ApiError('COLLECTION_NOT_FOUND', `collection ${name} does not exist`);
    return def;
  }

  private requireField(def: CollectionDef, name: string): FieldDef {
    const field = def.fields.find((candidate) => candidate.name === name);
    if (field === undefined) throw new ApiError('FIELD_NOT_FOUND', `field ${name} does not exist in ${def.name}`);
    return field;
  }

  /**
   * One schema change (DDL first, then the definition row: MySQL commits at each DDL statement): serialized in this process, and across processes by the version row
   * lock taken first. Definitions are re-read inside the transaction, so a change made by
   * another node is never overwritten with a stale copy.
   */
  private async change(apply: (trx: Trx, defs: CollectionDef[]) => Promise<void>): Promise<void> {
    const before = this.#snapshot;
    try {
      await this.#changeLocked(apply);
    } finally {
      // The other workers (and nodes) serve the change before it is acknowledged; a failed
      // change that still moved the version (MySQL commits at each DDL) is announced too.
      if (this.#snapshot !== before) await this.#onChanged?.(this.#snapshot.version);
    }
  }

  async #changeLocked(apply: (trx: Trx, defs: CollectionDef[]) => Promise<void>): Promise<void> {
    await this.#mutex.run(async () => {
      let failed = false;
      try {
        if (this.database.dialect !== 'sqlite') {
          await this.database.db.transaction().execute(async (trx) => {
            await bumpSchemaVersion(trx);
            await applyAndReindex(trx, apply, this.database.dialect);
            // MySQL commits at the DDL, so the first bump is visible before the definition
            // row is written: a node polling in between loads the old definitions under the
            // new version and would keep them. A second bump with the definition row makes
            // it load again.
            if (this.database.dialect === 'mysql') await bumpSchemaVersion(trx);
          });
          return;
        }
        // SQLite rebuilds tables to drop key columns; that needs foreign keys off, which can
        // only change outside a transaction. The check before commit keeps the data sound.
        await this.database.executor.paused(() => this.database.db.connection().execute(async (connection) => {
          await sql`pragma foreign_keys = off`.execute(connection);
          try {
            await connection.transaction().execute(async (trx) => {
              await bumpSchemaVersion(trx);
              await applyAndReindex(trx, apply, this.database.dialect);
              const broken = await sql`pragma foreign_key_check`.execute(trx);
              if (broken.rows.length > 0) throw new ApiError('REFERENCE_VIOLATION', 'the change would leave rows pointing at missing records');
            });
          } finally {
            await sql`pragma foreign_keys = on`.execute(connection);
          }
        }));
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
    await work.apply(trx, this.database.dialect, (run) => this.ddl(run), this.database.mysqlCollation);
  }

  /**
   * Runs DDL, turning a database refusal into a client error. MySQL commits DDL at once, so
   * a failure there runs `undo` for what already happened before the transaction rolls back.
   */
  private async ddl(run: () => Promise<void>, undo?: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (this.database.dialect === 'mysql' && undo !== undefined) {
        await undo().catch((undoError: unknown) => {
          this.log.error({ err: undoError, cause: error }, 'undoing a failed DDL statement failed: the table may hold part of the change');
        });
      }
      const { kind } = classifyDriverError(error, this.database.dialect);
      if (kind === 'unavailable') throw new ApiError('DATABASE_UNAVAILABLE', undefined, { cause: error });
      if (kind === 'unique') throw new ApiError('UNIQUE_VIOLATION', 'stored rows hold duplicate values for this unique field', { cause: error });
      throw new ApiError('SCHEMA_INVALID', 'the database refused this schema change', { cause: error });
    }
  }
}

/**
 * Runs a schema change, then rebuilds the `$search` tokens of every collection whose
 * searchable fields changed (made searchable, no longer searchable, renamed, dropped with
 * their collection), in the same transaction.
 */
async function applyAndReindex(trx: Trx, apply: (trx: Trx, defs: CollectionDef[]) => Promise<void>, dialect: Dialect): Promise<void> {
  const before = await readDefinitions(trx);
  await apply(trx, before);
  const after = new Map((await readDefinitions(trx)).map((def) => [def.name, def]));
  const fields = (def: CollectionDef | undefined) => (def === undefined ? [] : searchableFields(def));
  const signature = (def: CollectionDef | undefined) => (def === undefined ? '' : `${def.filterTargetKey}:${fields(def).join(',')}`);
  const was = new Map(before.map((def) => [def.name, def]));
  for (const name of new Set([...was.keys(), ...after.keys()])) {
    const old = was.get(name);
    const next = after.get(name);
    if (signature(old) === signature(next) || (fields(old).length === 0 && fields(next).length === 0)) continue;
    await reindexSearch(trx, next, name, dialect);
  }
}
