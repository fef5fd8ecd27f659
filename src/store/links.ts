import { ApiError } from '../errors/api-error.js';
import { and, type FilterNode } from '../plan/filter-node.js';
import type { Collection, Field, Relation } from '../schema/collection.js';
import { canonical } from './canonical.js';
import { insertLink } from './insert-items.js';
import type { AssociationSource } from './association-source.js';
import type { UnitOfWork } from './unit-of-work.js';
import { bindThroughValues, updateThroughRows } from './through-values.js';
import { deleteWhere, selectWhere, updateWhere } from './write-rows.js';

export type LinkMode = 'add' | 'set' | 'remove' | 'toggle';

/** One key to link, with through-collection values for belongsToMany (`[key, {…}]`). */
export interface LinkItem {
  key: unknown;
  extra?: Record<string, unknown>;
}

/** The target field a link stores: the targetKey (belongsTo, belongsToMany), else the target's key. */
export function linkFieldOf(relation: Relation): Field {
  return relation.type === 'belongsTo' || relation.type === 'belongsToMany' ? relation.targetKey : relation.target.key;
}

export const eq = (field: Field, value: unknown): FilterNode => ({ kind: 'compare', field, op: 'eq', value });
export const among = (field: Field, values: unknown[]): FilterNode => ({ kind: 'in', field, values, negate: false });

/**
 * Maps target keys to the value a link stores (belongsTo/belongsToMany: the targetKey;
 * hasOne/hasMany: the key itself). A key that does not exist (or is out of the caller's
 * scope) is 409 and changes nothing.
 */
export async function resolveTargets(unit: UnitOfWork, relation: Relation, items: LinkItem[]): Promise<unknown[]> {
  if (items.length === 0) return [];
  const { target } = relation;
  const { dialect } = unit;
  const linkField = linkFieldOf(relation);
  const rows = await selectWhere(unit, target, [target.key, linkField], among(target.key, items.map((item) => item.key)));
  const found = new Map(rows.map((row) => [String(canonical(target.key, row[target.key.name], dialect)), canonical(linkField, row[linkField.name], dialect)]));
  const missing = items.filter((item) => !found.has(String(item.key))).map((item) => item.key);
  if (missing.length > 0) {
    throw new ApiError('REFERENCE_VIOLATION', `${target.name} has no record ${missing.map(String).join(', ')}`, { details: { missing: missing.map(String) } });
  }
  return items.map((item) => found.get(String(item.key)));
}

/**
 * What a link action changes, given the keys it names (`values`) and the keys linked now:
 * indexes of `values` to link, linked keys to unlink, and indexes already linked.
 */
export function planLinks(mode: LinkMode, values: unknown[], linked: ReadonlyMap<string, unknown>): { link: number[]; unlink: unknown[]; kept: number[] } {
  const named = new Set(values.map(String));
  const isLinked = (value: unknown) => linked.has(String(value));
  const indexes = values.map((_, index) => index);
  switch (mode) {
    case 'add':
      return { link: indexes.filter((i) => !isLinked(values[i])), unlink: [], kept: indexes.filter((i) => isLinked(values[i])) };
    case 'set':
      return {
        link: indexes.filter((i) => !isLinked(values[i])),
        unlink: [...linked].filter(([text]) => !named.has(text)).map(([, value]) => value),
        kept: indexes.filter((i) => isLinked(values[i])),
      };
    case 'remove':
      return { link: [], unlink: values.filter(isLinked), kept: [] };
    case 'toggle':
      return { link: indexes.filter((i) => !isLinked(values[i])), unlink: values.filter(isLinked), kept: [] };
  }
}

/** Keys (canonical, by their text) of `keyField` in rows of `collection` whose `column` holds `anchor`. */
async function currentLinks(unit: UnitOfWork, collection: Collection, keyField: Field, column: Field, anchor: unknown, action: 'view' | 'through' = 'view'): Promise<Map<string, unknown>> {
  const rows = await selectWhere(unit, collection, [keyField], eq(column, anchor), false, action);
  return new Map(rows.map((row) => {
    const value = canonical(keyField, row[keyField.name], unit.dialect);
    return [String(value), value];
  }));
}

/**
 * Changes the links of one source (`anchor`) of a to-many (or hasOne) relation to targets
 * already resolved to their link values: the key column on the target (hasOne, hasMany) or
 * rows of the through collection (belongsToMany). `extras` are through values by index;
 * `updateKept` also applies them to links that already exist.
 */
export async function applyToMany(
  unit: UnitOfWork,
  relation: Relation,
  anchor: unknown,
  values: unknown[],
  extras: (Record<string, unknown> | undefined)[],
  mode: LinkMode,
  updateKept = true,
): Promise<void> {
  const { dialect } = unit;
  const fk = relation.foreignKey;
  if (relation.type !== 'belongsToMany') {
    const { target } = relation;
    const key = target.key;
    const plan = planLinks(mode, values, await currentLinks(unit, target, key, fk, anchor));
    if (plan.unlink.length > 0) await updateWhere(unit, target, { [fk.name]: null }, and([eq(fk, anchor), among(key, plan.unlink)]), 'view');
    // Linking moves a target that belonged to another source.
    const link = plan.link.map((i) => values[i]);
    if (link.length > 0) await updateWhere(unit, target, { [fk.name]: fk.type.toDb(anchor, dialect) }, among(key, link), 'view');
    return;
  }
  const through = relation.through;
  const other = relation.otherKey;
  const plan = planLinks(mode, values, await currentLinks(unit, through, other, fk, anchor, 'through'));
  if (plan.unlink.length > 0) await deleteWhere(unit, through, and([eq(fk, anchor), among(other, plan.unlink)]), 'through');
  const now = new Date();
  for (const i of plan.link) await insertLink(unit, relation, anchor, values[i], extras[i], now);
  if (!updateKept) return;
  for (const i of plan.kept) {
    const extra = extras[i];
    if (extra === undefined || Object.keys(extra).length === 0) continue;
    await updateThroughRows(unit, relation, anchor, eq(other, values[i]), await bindThroughValues(relation, extra, 'update', now));
  }
}

/** add/set/remove/toggle on a to-many association of one source. */
export async function linkToMany(unit: UnitOfWork, source: AssociationSource, items: LinkItem[], mode: LinkMode): Promise<void> {
  const values = await resolveTargets(unit, source.relation, items);
  await applyToMany(unit, source.relation, source.anchor, values, items.map((item) => item.extra), mode);
}

/** set/remove on a to-one association of one source (add and toggle do not apply). */
export async function linkToOne(unit: UnitOfWork, source: AssociationSource, items: LinkItem[], mode: LinkMode): Promise<void> {
  const { relation } = source;
  const { dialect } = unit;
  if (mode === 'add' || mode === 'toggle') throw new ApiError('ACTION_NOT_FOUND', `${relation.name} holds one record: use set or remove`);
  const [value] = mode === 'set' ? await resolveTargets(unit, relation, items) : [undefined];
  if (mode === 'set' && value === undefined) throw new ApiError('KEY_REQUIRED', 'set takes the key of the record to link');
  const fk = relation.foreignKey;
  if (relation.type === 'belongsTo') {
    await setSourceKey(unit, source, value === undefined ? null : fk.type.toDb(value, dialect));
    return;
  }
  // hasOne: the key column lives on the target.
  const target = relation.target;
  if (mode === 'remove' && items.length > 0) {
    const [key] = await resolveTargets(unit, relation, items);
    await updateWhere(unit, target, { [fk.name]: null }, and([eq(fk, source.anchor), eq(target.key, key)]), 'view');
    return;
  }
  await updateWhere(unit, target, { [fk.name]: null }, eq(fk, source.anchor), 'view');
  if (value !== undefined) await updateWhere(unit, target, { [fk.name]: fk.type.toDb(source.anchor, dialect) }, eq(target.key, value), 'view');
}

/** A belongsTo association: the key column on the source row itself (an update of the source). */
export async function setSourceKey(unit: UnitOfWork, source: AssociationSource, value: unknown): Promise<void> {
  const { relation } = source;
  await updateWhere(unit, relation.source, { [relation.foreignKey.name]: value }, eq(relation.source.primaryKey, source.sourcePk), 'update');
}
