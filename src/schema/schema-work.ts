import type { Transaction } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { DialectAdapter } from '../db/dialects/dialect-adapter.js';
import { ApiError } from '../errors/api-error.js';
import { fieldInIndexes, indexChanges, normalizeIndexes } from './collection-indexes.js';
import { addColumn, addForeignKey, createCollectionIndex, createTable, dropCollectionIndex, dropColumn, dropTable, rebuildTable } from './ddl.js';
import { MAX_FIELDS_PER_COLLECTION } from './normalize-collection.js';
import { notManaged } from './not-managed.js';
import { checkCollectionChange, isBuiltInField, isSystemCollection } from './protected.js';
import { invalid } from './normalize-field.js';
import { resolveRelation } from './resolve-relation.js';
import { reverseInput } from './reverse-field.js';
import { deleteDefinition, insertDefinition, updateDefinition } from './schema-store.js';
import { tableOf, tablesOf } from './table-of.js';
import type { CollectionDef, FieldDef, IndexDef, RelationDef } from './types.js';

type Trx = Transaction<DynamicDb>;
/** Runs one DDL step of a change; `undo` reverts it where DDL commits at once (MySQL). */
export type RunStep = (ddl: () => Promise<void>, undo?: () => Promise<void>) => Promise<void>;

const unmanaged = (def: CollectionDef): boolean => def.managed === false;

/** Where a relation keeps its key column: which collection, which column. */
export function foreignKeyOwner(source: string, relation: RelationDef): { collection: string; column: string } {
  if (relation.type === 'belongsTo') return { collection: source, column: relation.foreignKey };
  if (relation.type === 'belongsToMany') return { collection: relation.through!, column: relation.foreignKey };
  return { collection: relation.target, column: relation.foreignKey };
}

/**
 * A working copy of the definitions for one schema change. Edits are recorded, then `apply`
 * runs the DDL in a safe order (tables, columns, then foreign keys; drops in reverse) and
 * writes the definitions that changed.
 */
export class SchemaWork {
  readonly #defs = new Map<string, CollectionDef>();
  readonly #created: string[] = [];
  readonly #dropped: string[] = [];
  /** Unmanaged definitions replaced by replaceUnmanaged: their indexes are the catalogue's to say. */
  readonly #registered = new Set<string>();
  /** The tables of the dropped collections (their definitions are gone by \`apply\`). */
  readonly #droppedTables = new Map<string, string>();
  /** Unmanaged collections among the dropped: their tables stay. */
  readonly #unmanaged = new Set<string>();
  readonly #changed = new Set<string>();
  /** Columns added to, and dropped from, existing collections (by collection name: \`apply\` finds the table). */
  readonly #addedColumns: { table: string; field: FieldDef }[] = [];
  readonly #droppedColumns: { table: string; field: FieldDef }[] = [];
  /** Each collection's indexes before this change, for those whose `indexes` were replaced. */
  readonly #indexesBefore = new Map<string, IndexDef[]>();

  constructor(defs: readonly CollectionDef[]) {
    for (const def of defs) this.#defs.set(def.name, structuredClone({ ...def, relations: def.relations ?? [] }));
  }

  get(name: string): CollectionDef {
    const def = this.#defs.get(name);
    if (def === undefined) throw new ApiError('COLLECTION_NOT_FOUND', `collection ${name} does not exist`);
    return def;
  }

  has(name: string): boolean {
    return this.#defs.has(name);
  }

  /** Adds a plain column to an existing collection (a relation's sort field). */
  addField(collection: string, field: FieldDef): void {
    const owner = this.get(collection);
    if (unmanaged(owner)) throw notManaged(collection, `adding the column ${field.name}`);
    if (owner.fields.length >= MAX_FIELDS_PER_COLLECTION) throw invalid(`${collection} has ${MAX_FIELDS_PER_COLLECTION} fields already`, field.name);
    owner.fields.push(field);
    this.#touch(collection);
    if (!this.#created.includes(collection)) this.#addedColumns.push({ table: collection, field });
  }

  /** Marks a definition edited in place (options that need no DDL). */
  touch(name: string): void {
    this.get(name);
    this.#touch(name);
  }

  /**
   * Replaces a collection's `indexes` (validated against its fields as they are now); `apply`
   * drops the ones that went or changed and creates the new ones.
   */
  setIndexes(name: string, input: unknown): IndexDef[] {
    const def = this.get(name);
    const next = normalizeIndexes(input, def, this.all());
    // A registered table's indexes are what its catalogue says: stored as given, never built or dropped.
    if (unmanaged(def) && !this.#created.includes(name) && !this.#registered.has(name) && JSON.stringify(next) !== JSON.stringify(def.indexes ?? [])) throw notManaged(name, 'changing indexes');
    if (!this.#indexesBefore.has(name)) this.#indexesBefore.set(name, def.indexes ?? []);
    if (next.length === 0) delete def.indexes;
    else def.indexes = next;
    this.#touch(name);
    return next;
  }

  all(): CollectionDef[] {
    return [...this.#defs.values()];
  }

  create(def: CollectionDef): void {
    this.#defs.set(def.name, { ...def, relations: def.relations ?? [] });
    this.#created.push(def.name);
  }

  /**
   * Puts a new definition of an unmanaged collection in place of the stored one (a re-read
   * catalogue): no DDL; its own relations come again from the caller, relations of other
   * collections pointing at it stay (checked to still fit by the caller).
   */
  replaceUnmanaged(def: CollectionDef): void {
    const old = this.get(def.name);
    if (!unmanaged(old) || !unmanaged(def)) throw notManaged(def.name, 'replacing a managed definition');
    this.#defs.set(def.name, { ...def, relations: [] });
    this.#registered.add(def.name);
    this.#touch(def.name);
  }

  /** Resolves a relation definition on `source` and records what it needs. */
  addRelation(sourceName: string, given: Record<string, unknown>): RelationDef {
    const { reverseField, ...input } = given;
    const source = this.get(sourceName);
    const plan = resolveRelation(input, source, this.all());
    if (plan.createThrough !== undefined) this.create(plan.createThrough);
    for (const { collection, field } of plan.addFields) this.addField(collection, field);
    source.relations!.push(plan.relation);
    this.#touch(sourceName);
    if (reverseField !== undefined && reverseField !== null && reverseField !== false) {
      this.addRelation(plan.relation.target, reverseInput(plan.relation, sourceName, reverseField));
    }
    return plan.relation;
  }

  /** Removes a relation, with its key column or through collection when nothing else uses them. */
  dropRelation(sourceName: string, name: string): void {
    const source = this.get(sourceName);
    const relation = source.relations!.find((r) => r.name === name);
    if (relation === undefined) throw new ApiError('FIELD_NOT_FOUND', `field ${name} does not exist in ${sourceName}`);
    source.relations = source.relations!.filter((r) => r !== relation);
    this.#touch(sourceName);
    const uses = this.#relationsUsing();
    if (relation.type === 'belongsToMany') {
      const through = relation.through!;
      const throughDef = this.#defs.get(through);
      const stillUsed = uses.some(({ relation: r }) => r.through === through || r.target === through);
      if (throughDef !== undefined && isSystemCollection(through)) {
        // A system collection a client's relation went through stays (protected.ts): only the key columns the relation added go.
        this.#dropColumnIfUnused(through, relation.foreignKey, uses);
        this.#dropColumnIfUnused(through, relation.otherKey!, uses);
      } else if (throughDef !== undefined && !unmanaged(throughDef) && !stillUsed && (throughDef.relations ?? []).length === 0) this.dropCollection(through);
      else if (throughDef !== undefined) this.#dropColumnIfUnused(through, relation.foreignKey, uses);
      return;
    }
    const { collection, column } = foreignKeyOwner(sourceName, relation);
    this.#dropColumnIfUnused(collection, column, uses);
  }

  dropCollection(name: string): void {
    checkCollectionChange(this.get(name), 'dropping it');
    if (unmanaged(this.get(name))) this.#unmanaged.add(name);
    this.#droppedTables.set(name, tableOf(this.get(name)));
    this.#defs.delete(name);
    this.#dropped.push(name);
  }

  /** Relations (with their source) that point at `name` from other collections. */
  incoming(name: string): { source: string; relation: RelationDef }[] {
    return this.#relationsUsing().filter(({ source, relation }) => source !== name && (relation.target === name || relation.through === name));
  }

  #relationsUsing(): { source: string; relation: RelationDef }[] {
    return this.all().flatMap((def) => (def.relations ?? []).map((relation) => ({ source: def.name, relation })));
  }

  #dropColumnIfUnused(collection: string, column: string, uses: { source: string; relation: RelationDef }[]): void {
    const owner = this.#defs.get(collection);
    // A relation over a table Corral did not create was metadata only: its key column stays.
    if (owner === undefined || unmanaged(owner)) return;
    const stillUsed = uses.some(({ source, relation }) => {
      const other = foreignKeyOwner(source, relation);
      return (other.collection === collection && other.column === column) || (relation.type === 'belongsToMany' && relation.through === collection && relation.otherKey === column);
    });
    if (stillUsed) return;
    const field = owner.fields.find((f) => f.name === column);
    // A built-in field of a system collection stays whatever relation used it (protected.ts).
    if (field === undefined || isBuiltInField(collection, field)) return;
    const covered = fieldInIndexes(owner, column, 'drop the relation');
    if (covered !== undefined) throw covered;
    owner.fields = owner.fields.filter((f) => f !== field);
    owner.uniques = (owner.uniques ?? []).filter((columns) => !columns.includes(column));
    this.#touch(collection);
    if (!this.#created.includes(collection)) this.#droppedColumns.push({ table: collection, field });
  }

  #touch(name: string): void {
    this.#changed.add(name);
  }

  /**
   * Drops the indexes that went or changed, then creates the new ones, as one step: where DDL
   * commits at once (MySQL), a failure (duplicate rows under a new unique index) undoes the
   * steps done so far, so the table keeps the indexes it had.
   */
  async #replaceIndexes(trx: Trx, adapter: DialectAdapter, run: RunStep, name: string, before: readonly IndexDef[]): Promise<void> {
    const { drop, create } = indexChanges(before, this.get(name).indexes ?? []);
    const table = tableOf(this.get(name));
    const undo: (() => Promise<void>)[] = [];
    let creating: IndexDef | undefined;
    const step = async (): Promise<void> => {
      for (const index of drop) {
        await dropCollectionIndex(trx, table, index, adapter);
        undo.unshift(() => createCollectionIndex(trx, table, index));
      }
      for (const index of create) {
        creating = index;
        await createCollectionIndex(trx, table, index);
        undo.unshift(() => dropCollectionIndex(trx, table, index, adapter));
      }
    };
    try {
      await run(step, async () => {
        for (const revert of undo) await revert();
      });
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'UNIQUE_VIOLATION' || creating === undefined) throw error;
      const message = `stored rows of ${name} hold duplicate values for the unique index ${creating.name} (${creating.fields.join(', ')}); no index was changed`;
      throw new ApiError('UNIQUE_VIOLATION', message, { field: 'indexes', details: { index: creating.name, fields: creating.fields }, cause: error });
    }
  }

  async apply(trx: Trx, adapter: DialectAdapter, run: RunStep, collation?: string): Promise<void> {
    const live = (name: string) => this.#defs.has(name);
    // DDL names tables, never collections: a system collection's table is \`corral_…\` (table-of.ts).
    const tables = tablesOf(this.all());
    const tableOfLive = (name: string) => tableOf(this.get(name));
    // Drops first: key columns, then tables (a through table before what it points at).
    const rebuilt = new Set<string>();
    for (const { table, field } of this.#droppedColumns) {
      if (!live(table)) continue;
      // A key column whose foreign key was declared inline (SQLite) goes with a rebuild of its table.
      if (adapter.ddl.foreignKeys === 'inline' && field.references !== undefined) {
        if (!rebuilt.has(table)) await run(() => rebuildTable(trx, this.get(table), adapter, tables));
        rebuilt.add(table);
      } else await run(() => dropColumn(trx, tableOfLive(table), field, adapter));
    }
    for (const name of this.#dropped) {
      // Destroying an unmanaged collection forgets its definition; the table stays.
      if (!this.#created.includes(name) && !this.#unmanaged.has(name)) await run(() => dropTable(trx, this.#droppedTables.get(name) ?? name));
      await deleteDefinition(trx, name);
    }
    const registered = this.#created.filter((name) => live(name) && unmanaged(this.get(name)));
    const created = this.#created.filter((name) => live(name) && !unmanaged(this.get(name)));
    for (const name of created) {
      // Undone only when this step made the table: one that failed because another process
      // created it first (two nodes starting on one MySQL database) is that process's to keep.
      let made = false;
      await run(
        () => createTable(trx, this.get(name), adapter, tables, collation, () => (made = true)),
        async () => {
          if (made) await dropTable(trx, tableOfLive(name));
        },
      );
    }
    const added = this.#addedColumns.filter(({ table }) => live(table) && !rebuilt.has(table));
    for (const { table, field } of added) await run(() => addColumn(trx, tableOfLive(table), field, adapter, tables));
    for (const name of created) for (const field of this.get(name).fields) await run(() => addForeignKey(trx, tableOfLive(name), field, adapter, tables));
    for (const { table, field } of added) await run(() => addForeignKey(trx, tableOfLive(table), field, adapter, tables));
    // A refused index (MySQL: a key longer than 3072 bytes) leaves no table behind where DDL commits at once.
    const dropCreated = async (): Promise<void> => {
      for (const name of [...created].reverse()) await dropTable(trx, tableOfLive(name));
    };
    for (const name of created) for (const index of this.get(name).indexes ?? []) await run(() => createCollectionIndex(trx, tableOfLive(name), index), dropCreated);
    for (const [name, before] of this.#indexesBefore) {
      if (live(name) && !created.includes(name) && !rebuilt.has(name) && !unmanaged(this.get(name))) await this.#replaceIndexes(trx, adapter, run, name, before);
    }
    for (const name of [...registered, ...created]) await insertDefinition(trx, this.get(name));
    for (const name of this.#changed) if (live(name) && !created.includes(name)) await updateDefinition(trx, this.get(name));
  }
}
