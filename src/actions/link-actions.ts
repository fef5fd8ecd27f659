import { ApiError } from '../errors/api-error.js';
import type { Executor } from '../sql/select-rows.js';
import { parseKeys } from '../plan/bind-keys.js';
import type { KeyInput } from '../request/query-params.js';
import { bindWriteValues, toDbRow } from '../plan/bind-write-values.js';
import type { Field, Relation, Row } from '../schema/collection.js';
import { json, type ActionContext, type ActionResult } from './action-context.js';
import { insertLink } from './insert-link.js';
import { canonical, loadScope, type AssociationScope } from './association-scope.js';
import { writeTransaction } from './write-transaction.js';

/** Queries run in the request's transaction, or on the pool for one atomic statement. */
type Trx = Executor;
export type LinkMode = 'add' | 'set' | 'remove' | 'toggle';

/** One key to link, with through-collection values for belongsToMany (`[key, {…}]`). */
interface LinkItem {
  key: unknown;
  extra?: Record<string, unknown>;
}

export const MAX_LINK_KEYS = 1000;

function isScalarKey(value: unknown): value is string | number {
  return typeof value === 'string' || typeof value === 'number';
}

/** Keys from the path or filterByTk, else from the body: a key, an array of keys, or `[key, {…}]` pairs. */
function readLinkItems(ctx: ActionContext, relation: Relation, mode: LinkMode): LinkItem[] {
  const { keys, body } = ctx.request;
  let raw: unknown[];
  if (keys !== undefined) raw = Array.isArray(keys) ? keys : [keys];
  else if (Array.isArray(body)) raw = body;
  else if (isScalarKey(body)) raw = [body];
  // `{}` is no keys only for `set` (unlink everything); add/remove/toggle with an object is a mistake.
  else if (body === undefined || (mode === 'set' && typeof body === 'object' && body !== null && Object.keys(body).length === 0)) raw = [];
  else throw new ApiError('BODY_INVALID', `${mode} takes a key or an array of keys`);
  if (raw.length > MAX_LINK_KEYS) throw new ApiError('BODY_INVALID', `${mode} takes at most ${MAX_LINK_KEYS} keys`);
  if (!relation.toMany && raw.length > 1) throw new ApiError('BODY_INVALID', `${relation.name} holds one record; ${mode} takes one key`);
  const items = raw.map((element): LinkItem => {
    if (Array.isArray(element) && relation.type === 'belongsToMany' && element.length === 2 && isScalarKey(element[0])) {
      const extra = element[1];
      if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) throw new ApiError('BODY_INVALID', 'through values must be an object');
      return { key: parseKeys(relation.target, element[0] as KeyInput)[0], extra: extra as Record<string, unknown> };
    }
    if (!isScalarKey(element)) throw new ApiError('BODY_INVALID', `${mode} takes keys${relation.type === 'belongsToMany' ? ' or [key, {through values}] pairs' : ''}`);
    return { key: parseKeys(relation.target, element)[0] };
  });
  return uniqueItems(items);
}

/**
 * A key named twice counts once (`[1, 1]` would otherwise insert two through rows, or toggle
 * twice); its through values merge in order.
 */
function uniqueItems(items: LinkItem[]): LinkItem[] {
  const byKey = new Map<string, LinkItem>();
  for (const item of items) {
    const seen = byKey.get(String(item.key));
    if (seen === undefined) byKey.set(String(item.key), { ...item });
    else if (item.extra !== undefined) seen.extra = { ...seen.extra, ...item.extra };
  }
  return [...byKey.values()];
}

/**
 * Maps target keys to the value a link stores (belongsTo/belongsToMany: the targetKey;
 * hasOne/hasMany: the key itself). A key that does not exist is 409 and changes nothing.
 */
async function resolveTargets(trx: Trx, ctx: ActionContext, relation: Relation, items: LinkItem[]): Promise<unknown[]> {
  if (items.length === 0) return [];
  const { target } = relation;
  const { dialect } = ctx.database;
  const linkField = relation.targetKey ?? target.key;
  const rows = (await trx
    .selectFrom(target.name)
    .select([...new Set([target.key.name, linkField.name])])
    .where(target.key.name, 'in', items.map((item) => target.key.type.toDb(item.key, dialect)))
    .execute()) as Row[];
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

/** Keys (canonical, by their text) of `keyField` in rows of `table` whose `column` holds `anchor`. */
async function currentLinks(trx: Trx, ctx: ActionContext, table: string, keyField: Field, column: Field, anchor: unknown): Promise<Map<string, unknown>> {
  const { dialect } = ctx.database;
  const rows = (await trx.selectFrom(table).select(keyField.name).where(column.name, '=', column.type.toDb(anchor, dialect)).execute()) as Row[];
  return new Map(rows.map((row) => {
    const value = canonical(keyField, row[keyField.name], dialect);
    return [String(value), value];
  }));
}

async function linkToMany(trx: Trx, ctx: ActionContext, scope: AssociationScope, items: LinkItem[], mode: LinkMode): Promise<void> {
  const values = await resolveTargets(trx, ctx, scope.relation, items);
  await applyToMany(trx, ctx, scope.relation, scope.anchor, values, items.map((item) => item.extra), mode);
}

/**
 * Changes the links of one source (`anchor`) of a to-many (or hasOne) relation to targets
 * already resolved to their link values: the key column on the target (hasOne, hasMany) or
 * rows of the through collection (belongsToMany). `extras` are through values by index;
 * `updateKept` also applies them to links that already exist.
 */
export async function applyToMany(
  trx: Trx,
  ctx: ActionContext,
  relation: Relation,
  anchor: unknown,
  values: unknown[],
  extras: (Record<string, unknown> | undefined)[],
  mode: LinkMode,
  updateKept = true,
): Promise<void> {
  const { dialect } = ctx.database;
  const fk = relation.foreignKey;
  const anchorDb = fk.type.toDb(anchor, dialect);
  if (relation.type !== 'belongsToMany') {
    const { target } = relation;
    const key = target.key;
    const plan = planLinks(mode, values, await currentLinks(trx, ctx, target.name, key, fk, anchor));
    const toDb = (list: unknown[]) => list.map((value) => key.type.toDb(value, dialect));
    if (plan.unlink.length > 0) await trx.updateTable(target.name).set({ [fk.name]: null }).where(fk.name, '=', anchorDb).where(key.name, 'in', toDb(plan.unlink)).execute();
    // Linking moves a target that belonged to another source.
    const link = plan.link.map((i) => values[i]);
    if (link.length > 0) await trx.updateTable(target.name).set({ [fk.name]: anchorDb }).where(key.name, 'in', toDb(link)).execute();
    return;
  }
  const through = relation.through!;
  const other = relation.otherKey!;
  const plan = planLinks(mode, values, await currentLinks(trx, ctx, through.name, other, fk, anchor));
  if (plan.unlink.length > 0) {
    await trx.deleteFrom(through.name).where(fk.name, '=', anchorDb).where(other.name, 'in', plan.unlink.map((value) => other.type.toDb(value, dialect))).execute();
  }
  const now = new Date();
  for (const i of plan.link) await insertLink(trx, ctx, relation, anchor, values[i], extras[i], now);
  if (!updateKept) return;
  for (const i of plan.kept) {
    const extra = extras[i];
    if (extra === undefined || Object.keys(extra).length === 0) continue;
    const { values: changes } = await bindWriteValues(through, extra, 'update', now);
    await trx
      .updateTable(through.name)
      .set(toDbRow(through, changes, dialect))
      .where(fk.name, '=', anchorDb)
      .where(other.name, '=', other.type.toDb(values[i], dialect))
      .execute();
  }
}

async function linkToOne(trx: Trx, ctx: ActionContext, scope: AssociationScope, items: LinkItem[], mode: LinkMode): Promise<void> {
  const { relation } = scope;
  const { dialect } = ctx.database;
  if (mode === 'add' || mode === 'toggle') throw new ApiError('ACTION_NOT_FOUND', `${relation.name} holds one record: use set or remove`);
  const [value] = mode === 'set' ? await resolveTargets(trx, ctx, relation, items) : [undefined];
  if (mode === 'set' && value === undefined) throw new ApiError('KEY_REQUIRED', 'set takes the key of the record to link');
  if (relation.type === 'belongsTo') {
    const source = relation.source;
    await trx
      .updateTable(source.name)
      .set({ [relation.foreignKey.name]: value === undefined ? null : relation.foreignKey.type.toDb(value, dialect) })
      .where(source.primaryKey.name, '=', source.primaryKey.type.toDb(scope.sourcePk, dialect))
      .execute();
    return;
  }
  // hasOne: the key column lives on the target.
  const fk = relation.foreignKey.name;
  const anchor = relation.foreignKey.type.toDb(scope.anchor, dialect);
  const target = relation.target;
  if (mode === 'remove' && items.length > 0) {
    const [key] = await resolveTargets(trx, ctx, relation, items);
    await trx.updateTable(target.name).set({ [fk]: null }).where(fk, '=', anchor).where(target.key.name, '=', target.key.type.toDb(key, dialect)).execute();
    return;
  }
  await trx.updateTable(target.name).set({ [fk]: null }).where(fk, '=', anchor).execute();
  if (value !== undefined) await trx.updateTable(target.name).set({ [fk]: anchor }).where(target.key.name, '=', target.key.type.toDb(value, dialect)).execute();
}

const linkAction = (mode: LinkMode) => async (ctx: ActionContext, relation: Relation): Promise<ActionResult> => {
  const items = readLinkItems(ctx, relation, mode);
  await writeTransaction(ctx, relation.target, async (trx) => {
    const scope = await loadScope(ctx, relation, trx);
    if (relation.toMany) await linkToMany(trx, ctx, scope, items, mode);
    else await linkToOne(trx, ctx, scope, items, mode);
  });
  return json({ data: null });
};

export const LINK_ACTIONS = {
  add: linkAction('add'),
  set: linkAction('set'),
  remove: linkAction('remove'),
  toggle: linkAction('toggle'),
};
