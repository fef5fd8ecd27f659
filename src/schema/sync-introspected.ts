import type { Transaction } from 'kysely';
import type { Database, DynamicDb } from '../db/database.js';
import { readCatalogue } from '../db/catalogue/read-catalogue.js';
import type { Catalogue } from '../db/catalogue/catalogue.js';
import { ApiError } from '../errors/api-error.js';
import { introspectCollections, type IntrospectNote } from './introspect-collections.js';
import { deleteDefinition, insertDefinition, updateDefinition } from './schema-store.js';
import { SchemaSnapshot } from './schema-snapshot.js';
import type { SchemaManager } from './schema-manager.js';
import type { CollectionDef, Dialect } from './types.js';

/** Which tables introspection reads (CORRAL_INTROSPECT_INCLUDE / _EXCLUDE / _SCHEMA). */
export interface IntrospectSettings {
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  /** PostgreSQL: the schema to read; the connection's own when missing. */
  readonly schema?: string;
  /** PostgreSQL: the connection's own schema (`?schema=` in the URL, default `public`). */
  readonly connectionSchema?: string;
}

export interface FieldChanges {
  readonly added: string[];
  readonly removed: string[];
  readonly changed: string[];
}

/** What `collections:sync` answers: collections added, changed (with their fields and relations) and removed. */
export interface SyncReport {
  readonly added: string[];
  readonly changed: { collection: string; fields: FieldChanges }[];
  readonly removed: string[];
  /** Tables, columns and keys not served, with the reason. */
  readonly skipped: IntrospectNote[];
}

const isUnmanaged = (def: CollectionDef): boolean => def.managed === false;
const byName = <T extends { name: string }>(items: readonly T[]): Map<string, T> => new Map(items.map((item) => [item.name, item]));
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Fields and relations together, as a client sees them (NocoBase lists both as fields). */
function members(def: CollectionDef): Map<string, unknown> {
  return new Map<string, unknown>([...def.fields.map((field): [string, unknown] => [field.name, field]), ...(def.relations ?? []).map((relation): [string, unknown] => [relation.name, relation])]);
}

/** The difference between the unmanaged definitions before and after (pure). */
export function diffUnmanaged(before: readonly CollectionDef[], after: readonly CollectionDef[], skipped: IntrospectNote[] = []): SyncReport {
  const was = byName(before.filter(isUnmanaged));
  const now = byName(after.filter(isUnmanaged));
  const added = [...now.keys()].filter((name) => !was.has(name)).sort();
  const removed = [...was.keys()].filter((name) => !now.has(name)).sort();
  const changed: SyncReport['changed'] = [];
  for (const [name, next] of [...now].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const old = was.get(name);
    if (old === undefined || same(old, next)) continue;
    const oldMembers = members(old);
    const newMembers = members(next);
    changed.push({
      collection: name,
      fields: {
        added: [...newMembers.keys()].filter((field) => !oldMembers.has(field)),
        removed: [...oldMembers.keys()].filter((field) => !newMembers.has(field)),
        changed: [...newMembers.keys()].filter((field) => oldMembers.has(field) && !same(oldMembers.get(field), newMembers.get(field))),
      },
    });
  }
  return { added, changed, removed, skipped };
}

export const isEmptyReport = (report: SyncReport): boolean => report.added.length === 0 && report.changed.length === 0 && report.removed.length === 0;

/**
 * The unmanaged definitions a catalogue gives next to `defs` (the stored ones): names kept from
 * the unmanaged ones, managed collections' names and tables left alone.
 */
export function nextUnmanaged(catalogue: Catalogue, defs: readonly CollectionDef[], dialect: Dialect, settings: IntrospectSettings | undefined): { defs: CollectionDef[]; notes: IntrospectNote[] } {
  const managed = defs.filter((def) => !isUnmanaged(def));
  const result = introspectCollections(catalogue, {
    dialect,
    previous: defs.filter(isUnmanaged),
    taken: managed.map((def) => def.name),
    // Another schema than the connection's: every definition names it (tables are found through search_path otherwise).
    ...(settings?.schema === undefined || settings.schema === settings.connectionSchema ? {} : { schema: settings.schema }),
  });
  keepOwnRelations(result.collections, defs);
  return { defs: result.collections, notes: result.notes };
}

/**
 * Relations a client added to an unmanaged collection (metadata between existing key columns,
 * not a foreign key of the catalogue) stay through a sync while their collections and key
 * fields are still there.
 */
function keepOwnRelations(next: CollectionDef[], defs: readonly CollectionDef[]): void {
  const all = byName([...defs.filter((def) => !isUnmanaged(def)), ...next]);
  const has = (collection: string | undefined, field: string | undefined): boolean =>
    collection === undefined || field === undefined || (all.get(collection)?.fields.some((candidate) => candidate.name === field) ?? false);
  for (const def of next) {
    const before = defs.find((old) => old.name === def.name && isUnmanaged(old));
    for (const relation of before?.relations ?? []) {
      const own = def.relations ?? (def.relations = []);
      const taken = (name: string) => own.some((other) => other.name.toLowerCase() === name.toLowerCase()) || def.fields.some((field) => field.name.toLowerCase() === name.toLowerCase());
      if (taken(relation.name) || !all.has(relation.target) || (relation.through !== undefined && !all.has(relation.through))) continue;
      const onSource = relation.type === 'belongsTo' ? has(def.name, relation.foreignKey) && has(relation.target, relation.targetKey) : has(def.name, relation.sourceKey);
      const onTarget = relation.type === 'hasOne' || relation.type === 'hasMany' ? has(relation.target, relation.foreignKey) : relation.type === 'belongsToMany' ? has(relation.through, relation.foreignKey) && has(relation.through, relation.otherKey) && has(relation.target, relation.targetKey) : true;
      if (onSource && onTarget) own.push(relation);
    }
  }
}

/**
 * Writes the unmanaged definitions `wanted` in place of the stored unmanaged ones, inside a
 * schema change (no DDL: only definition rows). Checked first: the whole schema must still load,
 * and no managed collection may lose the target of one of its relations.
 */
export async function writeUnmanaged(trx: Transaction<DynamicDb>, defs: readonly CollectionDef[], wanted: readonly CollectionDef[], dialect: Dialect): Promise<void> {
  const managed = defs.filter((def) => !isUnmanaged(def));
  const next = byName(wanted);
  const users = managed.flatMap((def) => (def.relations ?? []).filter((relation) => {
    const gone = (name: string | undefined) => name !== undefined && defs.some((old) => old.name === name && isUnmanaged(old)) && !next.has(name);
    return gone(relation.target) || gone(relation.through);
  }).map((relation) => `${def.name}.${relation.name}`));
  if (users.length > 0) {
    throw new ApiError('COLLECTION_IN_USE', `a table left the catalogue but ${users.join(', ')} still point at it; drop those relations first`, { details: { usedBy: users } });
  }
  // Throws here, before anything is written, when the definitions would not load.
  new SchemaSnapshot(0, [...managed, ...wanted], dialect);
  for (const old of defs.filter(isUnmanaged)) {
    const replacement = next.get(old.name);
    if (replacement === undefined) await deleteDefinition(trx, old.name);
    else if (!same(old, replacement)) await updateDefinition(trx, replacement);
  }
  for (const def of wanted) if (!defs.some((old) => old.name === def.name)) await insertDefinition(trx, def);
}

/**
 * Reads the catalogue and replaces the unmanaged definitions with what it now says (no DDL,
 * managed collections untouched): the tables, columns and keys added, changed and removed.
 * Nothing is written when nothing changed; otherwise the change is computed again inside the
 * schema change's lock from the definitions stored then, so concurrent syncs agree.
 */
export async function syncIntrospected(schema: SchemaManager, database: Database, settings: IntrospectSettings | undefined): Promise<SyncReport> {
  const read = settings?.schema ?? settings?.connectionSchema;
  const catalogue = await readCatalogue(database.db, database.dialect, {
    include: settings?.include ?? [], exclude: settings?.exclude ?? [], ...(read === undefined ? {} : { schema: read }),
  });
  const { dialect } = database;
  const preview = nextUnmanaged(catalogue, schema.snapshot.defs, dialect, settings);
  let report = diffUnmanaged(schema.snapshot.defs, preview.defs, preview.notes);
  if (isEmptyReport(report)) return report;
  await schema.changeDefinitions(async (trx, defs) => {
    const next = nextUnmanaged(catalogue, defs, dialect, settings);
    report = diffUnmanaged(defs, next.defs, next.notes);
    if (!isEmptyReport(report)) await writeUnmanaged(trx, defs, next.defs, dialect);
  });
  return report;
}
