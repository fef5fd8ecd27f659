import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import { bindWriteValues, toDbRow, type WriteMode, type WriteValues } from '../plan/bind-write-values.js';
import { and, type FilterNode } from '../plan/filter-node.js';
import type { BelongsToMany, Relation } from '../schema/collection.js';
import type { UnitOfWork } from './unit-of-work.js';
import { updateWhere } from './write-rows.js';

/**
 * The name under which a target object carries the values of its belongsToMany link (NocoBase's
 * form, `{"name": "t1", "posts_tags": {"tagged_at": "…"}}`): the through collection's name,
 * unless the target has a field or relation of that name (then it is that field).
 */
export function throughKeyOf(relation: Relation): string | undefined {
  if (relation.type !== 'belongsToMany') return undefined;
  const name = relation.through.name;
  return relation.target.fields.has(name) || relation.target.relations.has(name) ? undefined : name;
}

/** A target object split into its own values and the through values of its link (when it holds any). */
export function splitThrough(relation: Relation, value: unknown): { own: unknown; through?: Record<string, unknown> } {
  const key = throughKeyOf(relation);
  if (key === undefined || !isRecord(value) || !Object.hasOwn(value, key)) return { own: value };
  const { [key]: through, ...own } = value;
  if (!isRecord(through)) throw new ApiError('VALIDATION_FAILED', `${key} (the values of the link) must be an object`, { field: key });
  return { own, through };
}

/** Through values validated against the through collection; errors name `<through>.<field>`. */
export async function bindThroughValues(relation: BelongsToMany, extra: unknown, mode: WriteMode, now: Date): Promise<WriteValues> {
  try {
    // The link sets both key columns itself (required ones too, in a junction Corral did not create).
    return await bindWriteValues(relation.through, extra ?? {}, mode, now, { provided: [relation.foreignKey.name, relation.otherKey.name] });
  } catch (error) {
    if (error instanceof ApiError) for (const entry of error.entries) if (entry.field !== undefined) entry.field = `${relation.through.name}.${entry.field}`;
    throw error;
  }
}

/**
 * Through values are a write of the link row: the caller needs `update` on the through
 * collection, with a field list (when it has one) naming each value given. Key columns are
 * the link's own and are checked with it (the source's `update`).
 */
export function checkThroughValues(unit: UnitOfWork, relation: BelongsToMany, bound: Pick<WriteValues, 'given'>): void {
  if (bound.given.length > 0) unit.checkWritten(relation.through, 'update', bound.given);
}

/**
 * Writes `bound` into the through rows linking `anchor` (the source) to the rows of `links`
 * (target link values), under the caller's `update` scope of the through collection.
 */
export async function updateThroughRows(unit: UnitOfWork, relation: BelongsToMany, anchor: unknown, links: FilterNode, bound: WriteValues): Promise<void> {
  checkThroughValues(unit, relation, bound);
  if (bound.values.size === 0) return;
  const fk = relation.foreignKey;
  await updateWhere(unit, relation.through, toDbRow(relation.through, bound.values, unit.dialect), and([{ kind: 'compare', field: fk, op: 'eq', value: anchor }, links]), 'update');
}
