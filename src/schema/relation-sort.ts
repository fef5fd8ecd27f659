import { ApiError } from '../errors/api-error.js';
import { normalizeField } from './normalize-field.js';
import type { RelationPlan } from './resolve-relation.js';
import type { CollectionDef, FieldDef, RelationDef } from './types.js';

const invalid = (message: string, field: string): ApiError => new ApiError('SCHEMA_INVALID', message, { field });

/** `sortBy` as stored: one field or several, each a target field with an optional leading `-`. */
function readSortBy(value: unknown, target: CollectionDef, adding: string | undefined, where: string): string | string[] {
  const terms = typeof value === 'string' ? [value] : Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;
  if (terms === undefined) throw invalid(`${where}: sortBy must be a field name of ${target.name} or a list of them`, where);
  for (const term of terms) {
    const field = term.startsWith('-') ? term.slice(1) : term;
    if (field !== adding && !target.fields.some((f) => f.name === field)) throw invalid(`${where}: sortBy names ${field}, which is not a field of ${target.name}`, where);
  }
  return typeof value === 'string' ? value : terms;
}

/**
 * NocoBase's `sortable` / `sortBy` on a relation, applied to `relation` (new or being
 * updated). hasMany `sortable: true` orders the associated rows by a `sort` field of the
 * target, `<foreignKey>Sort` unless `sortBy` names it, made when missing: the field to add
 * is returned. `sortBy` alone (hasMany, belongsToMany) names existing target fields. To-one
 * relations have nothing to order. `sortable: false` stops ordering; the column is kept.
 */
export function applyRelationSort(relation: RelationDef, input: Record<string, unknown>, target: CollectionDef): FieldDef | undefined {
  const where = relation.name;
  const { sortable, sortBy } = input;
  if (sortable !== undefined && sortable !== null && typeof sortable !== 'boolean') throw invalid(`${where}: sortable must be true or false`, where);
  const wantsOrder = sortable === true || (sortBy !== undefined && sortBy !== null);
  if (wantsOrder && relation.type !== 'hasMany' && !(relation.type === 'belongsToMany' && sortable !== true)) {
    throw invalid(`${where}: ${sortable === true ? 'sortable applies to hasMany relations only' : `sortBy applies to to-many relations only`}`, where);
  }
  if (sortable === false) {
    delete relation.sortable;
    if (sortBy === undefined || sortBy === null) delete relation.sortBy;
  }
  let adding: FieldDef | undefined;
  if (sortable === true) {
    const name = typeof sortBy === 'string' ? sortBy.replace(/^-/, '') : `${relation.foreignKey}Sort`;
    const existing = target.fields.find((field) => field.name === name);
    if (existing === undefined) adding = normalizeField({ name, type: 'sort' });
    else if (existing.type !== 'sort' && existing.type !== 'integer' && existing.type !== 'bigInt') {
      throw invalid(`${where}: ${target.name}.${name} exists and is not a sort field`, where);
    }
    relation.sortable = true;
    relation.sortBy = sortBy === undefined || sortBy === null ? name : readSortBy(sortBy, target, name, where);
  } else if (sortBy !== undefined && sortBy !== null) {
    relation.sortBy = readSortBy(sortBy, target, undefined, where);
  } else if (sortBy === null) delete relation.sortBy;
  return adding;
}

/** At definition: the sort field a new hasMany needs joins the plan's columns. */
export function planSortBy(plan: RelationPlan, input: Record<string, unknown>, target: CollectionDef): void {
  const field = applyRelationSort(plan.relation, input, target);
  if (field !== undefined) plan.addFields.push({ collection: target.name, field });
}
