import { ApiError } from '../errors/api-error.js';
import type { Executor } from '../sql/select-rows.js';
import { parseKeys } from '../plan/bind-keys.js';
import { bindWriteValues, toDbRow, type WriteFilter, type WriteValues } from '../plan/bind-write-values.js';
import { isRecord } from '../is-record.js';
import type { KeyInput } from '../request/query-params.js';
import type { Collection, Relation, Row } from '../schema/collection.js';
import type { ActionContext } from './action-context.js';
import { canonical } from './association-scope.js';
import { insertItems } from './insert-items.js';
import { applyToMany } from './link-actions.js';

/** Queries run in the request's transaction, or on the pool for one atomic statement. */
type Trx = Executor;

/** How nested association values may be written. */
export interface NestedOptions {
  now: Date;
  /** Associations whose nested objects may update existing targets; others only link them. */
  updateAssociationValues: ReadonlySet<string>;
  filter?: WriteFilter;
}


/**
 * A nested value to the value its link stores (the target's targetKey, or its key for
 * hasOne/hasMany): a key names an existing row (409 if missing), an object with the key an
 * existing row (updated when allowed), an object without one a new row (written with its
 * own nested values). `prepare` sets the key column on a new hasOne/hasMany row.
 */
async function resolveTarget(
  trx: Trx,
  ctx: ActionContext,
  relation: Relation,
  value: unknown,
  options: NestedOptions,
  prepare?: (bound: WriteValues) => void,
): Promise<unknown> {
  const { target } = relation;
  const { dialect } = ctx.database;
  const linkField = relation.targetKey ?? target.key;
  const given = isRecord(value) ? value[target.key.name] : value;
  if (given !== undefined && given !== null) {
    if (typeof given !== 'string' && typeof given !== 'number') throw new ApiError('VALIDATION_FAILED', `${relation.name}: a key must be a string or a number`, { field: relation.name });
    const [key] = parseKeys(target, given as KeyInput);
    const row = (await trx
      .selectFrom(target.name)
      .select([...new Set([target.primaryKey.name, linkField.name])])
      .where(target.key.name, '=', target.key.type.toDb(key, dialect))
      .executeTakeFirst()) as Row | undefined;
    if (row === undefined) {
      throw new ApiError('REFERENCE_VIOLATION', `${relation.name}: ${target.name} has no record ${String(given)}`, { field: relation.name, details: { missing: [String(given)] } });
    }
    if (isRecord(value) && options.updateAssociationValues.has(relation.name)) {
      const { [target.key.name]: _key, ...changes } = value;
      const bound = await bindWriteValues(target, changes, 'update', options.now);
      await resolveBelongsTo(trx, ctx, target, bound, options);
      if (bound.values.size > 0) {
        await trx.updateTable(target.name).set(toDbRow(target, bound.values, dialect)).where(target.primaryKey.name, '=', row[target.primaryKey.name]).execute();
      }
      await writeDependents(trx, ctx, target, row, bound.associations, options);
    }
    return canonical(linkField, row[linkField.name], dialect);
  }
  if (!isRecord(value)) throw new ApiError('VALIDATION_FAILED', `${relation.name} must be a key or an object`, { field: relation.name });
  const bound = await bindWriteValues(target, value, 'create', options.now);
  prepare?.(bound);
  const row = await writeNew(trx, ctx, target, bound, options);
  return canonical(linkField, row[linkField.name], dialect);
}

/** belongsTo values become key columns of the row itself, before it is written. */
export async function resolveBelongsTo(trx: Trx, ctx: ActionContext, collection: Collection, bound: WriteValues, options: NestedOptions): Promise<void> {
  for (const [name, value] of [...bound.associations]) {
    const relation = collection.relations.get(name)!;
    if (relation.type !== 'belongsTo') continue;
    bound.associations.delete(name);
    bound.values.set(relation.foreignKey.name, value === null ? null : await resolveTarget(trx, ctx, relation, value, options));
  }
}

/** Writes one new row with every nested association value, in the caller's transaction. */
export async function writeNew(trx: Trx, ctx: ActionContext, collection: Collection, bound: WriteValues, options: NestedOptions): Promise<Row> {
  await resolveBelongsTo(trx, ctx, collection, bound, options);
  const [row] = await insertItems(trx, ctx.database.dialect, collection, [bound]);
  await writeDependents(trx, ctx, collection, row!, bound.associations, options);
  return row!;
}

/**
 * hasOne, hasMany and belongsToMany values of a row that exists: the listed targets become
 * exactly the linked ones (set semantics); new objects are created and linked.
 */
export async function writeDependents(trx: Trx, ctx: ActionContext, collection: Collection, row: Row, associations: Map<string, unknown>, options: NestedOptions): Promise<void> {
  const { dialect } = ctx.database;
  for (const [name, value] of associations) {
    const relation = collection.relations.get(name)!;
    if (relation.type === 'belongsTo') continue;
    const anchor = canonical(relation.sourceKey!, row[relation.sourceKey!.name], dialect);
    const items = relation.toMany ? (value as unknown[]) : value === null ? [] : [value];
    // A key named twice links once, with the through values of its first mention.
    const linked = new Map<string, { value: unknown; extra?: Record<string, unknown> }>();
    for (const item of items) {
      const [element, extra] = Array.isArray(item) ? item : [item, undefined];
      const prepare = relation.type === 'belongsToMany' ? undefined : (bound: WriteValues) => bound.values.set(relation.foreignKey.name, anchor);
      const target = await resolveTarget(trx, ctx, relation, element, options, prepare);
      if (!linked.has(String(target))) linked.set(String(target), { value: target, ...(isRecord(extra) ? { extra } : {}) });
    }
    const wanted = [...linked.values()];
    // Through values apply to new links only; `:add`/`:set` also update existing ones.
    await applyToMany(trx, ctx, relation, anchor, wanted.map((w) => w.value), wanted.map((w) => w.extra), 'set', false);
  }
}
