import { ApiError } from '../errors/api-error.js';
import { parseKeys } from '../plan/bind-keys.js';
import { bindWriteValues, toDbRow, type WriteFilter, type WriteValues } from '../plan/bind-write-values.js';
import { isRecord } from '../is-record.js';
import type { KeyInput } from '../request/query-params.js';
import type { Collection, Relation, Row } from '../schema/collection.js';
import { canonical } from './canonical.js';
import type { AssociationSource } from './association-source.js';
import { insertItems, insertLink } from './insert-items.js';
import { applyToMany, eq, linkFieldOf, setSourceKey } from './links.js';
import type { UnitOfWork } from './unit-of-work.js';
import { selectWhere, updateWhere } from './write-rows.js';
import { splitThrough } from './through-values.js';
import { checkWrite, missingTarget } from './write-grants.js';

/** How nested association values may be written. */
export interface NestedOptions {
  now: Date;
  /** Associations whose nested objects may update existing targets; others only link them. */
  updateAssociationValues: ReadonlySet<string>;
  filter?: WriteFilter;
}

/**
 * A nested value to the value its link stores (the target's targetKey, or its key for
 * hasOne/hasMany): a key names an existing row (409 if missing or out of the caller's
 * scope), an object with the key an existing row (updated when allowed), an object without
 * one a new row (written with its own nested values). `prepare` sets the key column on a new
 * hasOne/hasMany row.
 */
async function resolveTarget(
  unit: UnitOfWork,
  relation: Relation,
  value: unknown,
  options: NestedOptions,
  prepare?: (bound: WriteValues) => void,
): Promise<unknown> {
  const { target } = relation;
  const { dialect } = unit;
  const linkField = linkFieldOf(relation);
  const given = isRecord(value) ? value[target.key.name] : value;
  if (given !== undefined && given !== null) {
    if (typeof given !== 'string' && typeof given !== 'number') throw new ApiError('VALIDATION_FAILED', `${relation.name}: a key must be a string or a number`, { field: relation.name });
    const [key] = parseKeys(target, given as KeyInput);
    const [row] = await selectWhere(unit, target, [target.primaryKey, linkField], eq(target.key, key));
    if (row === undefined) throw missingTarget(relation, relation.name, given);
    if (isRecord(value) && options.updateAssociationValues.has(relation.name)) {
      const { [target.key.name]: _key, ...changes } = value;
      const bound = await bindWriteValues(target, changes, 'update', options.now);
      // Updating the linked row is an update of it: its grant, row filter and field list.
      await checkWrite(unit, target, 'update', bound);
      await resolveBelongsTo(unit, target, bound, options);
      if (bound.values.size > 0) {
        const pk = canonical(target.primaryKey, row[target.primaryKey.name], dialect);
        const updated = await updateWhere(unit, target, toDbRow(target, bound.values, dialect), eq(target.primaryKey, pk), 'update');
        if (updated.length === 0) throw new ApiError('FORBIDDEN', `your roles do not allow updating ${target.name} record ${String(given)}`, { field: relation.name });
      }
      await writeDependents(unit, target, row, bound.associations, options);
    }
    return canonical(linkField, row[linkField.name], dialect);
  }
  if (!isRecord(value)) throw new ApiError('VALIDATION_FAILED', `${relation.name} must be a key or an object`, { field: relation.name });
  const bound = await bindWriteValues(target, value, 'create', options.now);
  prepare?.(bound);
  const row = await writeNew(unit, target, bound, options);
  return canonical(linkField, row[linkField.name], dialect);
}

/** belongsTo values become key columns of the row itself, before it is written. */
export async function resolveBelongsTo(unit: UnitOfWork, collection: Collection, bound: WriteValues, options: NestedOptions): Promise<void> {
  for (const [name, value] of [...bound.associations]) {
    const relation = collection.relations.get(name)!;
    if (relation.type !== 'belongsTo') continue;
    bound.associations.delete(name);
    bound.values.set(relation.foreignKey.name, value === null ? null : await resolveTarget(unit, relation, value, options));
  }
}

/** Writes one new row with every nested association value, in the unit's transaction. */
export async function writeNew(unit: UnitOfWork, collection: Collection, bound: WriteValues, options: NestedOptions): Promise<Row> {
  await resolveBelongsTo(unit, collection, bound, options);
  const [row] = await insertItems(unit, collection, [bound]);
  await writeDependents(unit, collection, row!, bound.associations, options);
  return row!;
}

/**
 * hasOne, hasMany and belongsToMany values of a row that exists: the listed targets become
 * exactly the linked ones (set semantics); new objects are created and linked.
 */
export async function writeDependents(unit: UnitOfWork, collection: Collection, row: Row, associations: Map<string, unknown>, options: NestedOptions): Promise<void> {
  for (const [name, value] of associations) {
    const relation = collection.relations.get(name)!;
    if (relation.type === 'belongsTo') continue;
    const anchor = canonical(relation.sourceColumn, row[relation.sourceColumn.name], unit.dialect);
    const items = relation.toMany ? (value as unknown[]) : value === null ? [] : [value];
    // A key named twice links once, with the through values of its first mention.
    const linked = new Map<string, { value: unknown; extra?: Record<string, unknown> }>();
    for (const item of items) {
      // Through values come as a `[key, {…}]` pair or, NocoBase's form, under the through collection's name in the object.
      const [element, extra] = Array.isArray(item) ? item : pairOf(splitThrough(relation, item));
      const prepare = relation.type === 'belongsToMany' ? undefined : (bound: WriteValues) => setLinkColumn(unit, relation, bound, anchor);
      const target = await resolveTarget(unit, relation, element, options, prepare);
      if (!linked.has(String(target))) linked.set(String(target), { value: target, ...(isRecord(extra) ? { extra } : {}) });
    }
    const wanted = [...linked.values()];
    // Through values apply to new links only; `:add`/`:set` also update existing ones.
    await applyToMany(unit, relation, anchor, wanted.map((w) => w.value), wanted.map((w) => w.extra), 'set', false);
  }
}

const pairOf = (split: { own: unknown; through?: Record<string, unknown> }): [unknown, Record<string, unknown> | undefined] => [split.own, split.through];

/**
 * New target rows linked to the source of an association, in the unit's transaction.
 * hasOne replaces the row linked before (it is unlinked, not deleted).
 */
export async function createLinked(
  unit: UnitOfWork,
  source: AssociationSource,
  items: WriteValues[],
  options: NestedOptions,
  /** belongsToMany: the through values of each item's link, by index. */
  extras: readonly (Record<string, unknown> | undefined)[] = [],
): Promise<Row[]> {
  const { relation } = source;
  const { target } = relation;
  const created: Row[] = [];
  if (relation.type === 'hasOne') await updateWhere(unit, target, { [relation.foreignKey.name]: null }, source.where, 'view');
  for (const [index, item] of items.entries()) {
    if (relation.type === 'hasMany' || relation.type === 'hasOne') setLinkColumn(unit, relation, item, source.anchor);
    const row = await writeNew(unit, target, item, options);
    created.push(row);
    if (relation.type === 'belongsTo') {
      await setSourceKey(unit, source, row[relation.targetKey.name]);
    } else if (relation.type === 'belongsToMany') {
      await insertLink(unit, relation, source.anchor, canonical(relation.targetKey, row[relation.targetKey.name], unit.dialect), extras[index], options.now);
    }
  }
  return created;
}

/**
 * A new hasOne/hasMany row linked to its source: the key column is a field the new row writes,
 * so the create grant's field list must name it (or the belongsTo relation that uses it).
 */
function setLinkColumn(unit: UnitOfWork, relation: Relation, bound: WriteValues, anchor: unknown): void {
  const column = relation.foreignKey.name;
  const inverse = [...relation.target.relations.values()].filter((other) => other.type === 'belongsTo' && other.foreignKey.name === column).map((other) => other.name);
  unit.checkWritten(relation.target, 'create', [column], inverse);
  bound.values.set(column, anchor);
}
