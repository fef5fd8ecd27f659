import type { Transaction } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import { ApiError } from '../errors/api-error.js';
import { parseKeys } from '../plan/bind-keys.js';
import { bindWriteValues, toDbRow, type WriteFilter, type WriteValues } from '../plan/bind-write-values.js';
import type { KeyInput } from '../request/query-params.js';
import type { Collection, Relation, Row } from '../schema/collection.js';
import type { ActionContext } from './action-context.js';
import { canonical } from './association-scope.js';
import { insertItems } from './insert-items.js';
import { insertLink } from './insert-link.js';

type Trx = Transaction<DynamicDb>;

/** How nested association values may be written. */
export interface NestedOptions {
  now: Date;
  /** Associations whose nested objects may update existing targets; others only link them. */
  updateAssociationValues: ReadonlySet<string>;
  filter?: WriteFilter;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

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
    const fk = relation.foreignKey;
    const anchorDb = fk.type.toDb(anchor, dialect);
    if (relation.type === 'belongsToMany') {
      const other = relation.otherKey!;
      const through = relation.through!.name;
      const wanted: { value: unknown; extra?: unknown }[] = [];
      for (const item of items) {
        const [element, extra] = Array.isArray(item) ? item : [item, undefined];
        wanted.push({ value: await resolveTarget(trx, ctx, relation, element, options), extra });
      }
      const existing = ((await trx.selectFrom(through).select(other.name).where(fk.name, '=', anchorDb).execute()) as Row[]).map((r) => String(canonical(other, r[other.name], dialect)));
      const keep = new Set(wanted.map((w) => String(w.value)));
      const stale = existing.filter((text) => !keep.has(text));
      if (stale.length > 0) {
        const staleDb = stale.map((text) => {
          const parsed = other.type.parse(text, other.def);
          return other.type.toDb(parsed.ok ? parsed.value : text, dialect);
        });
        await trx.deleteFrom(through).where(fk.name, '=', anchorDb).where(other.name, 'in', staleDb).execute();
      }
      const present = new Set(existing);
      for (const { value: linked, extra } of wanted) {
        if (present.has(String(linked))) continue;
        present.add(String(linked));
        await insertLink(trx, ctx, relation, anchor, linked, extra, options.now);
      }
      continue;
    }
    // hasOne / hasMany: the key column lives on the target.
    const target = relation.target;
    const keys: unknown[] = [];
    for (const item of items) {
      keys.push(await resolveTarget(trx, ctx, relation, item, options, (bound) => bound.values.set(fk.name, anchor)));
    }
    const keysDb = keys.map((key) => target.key.type.toDb(key, dialect));
    let unlink = trx.updateTable(target.name).set({ [fk.name]: null }).where(fk.name, '=', anchorDb);
    if (keysDb.length > 0) unlink = unlink.where(target.key.name, 'not in', keysDb);
    await unlink.execute();
    if (keysDb.length > 0) await trx.updateTable(target.name).set({ [fk.name]: anchorDb }).where(target.key.name, 'in', keysDb).execute();
  }
}
