import { ApiError } from '../errors/api-error.js';
import { parseKeys } from '../plan/bind-keys.js';
import type { KeyInput } from '../request/query-params.js';
import type { Relation } from '../schema/collection.js';
import { linkToMany, linkToOne, type LinkItem, type LinkMode } from '../store/links.js';
import { type ActionContext, type ActionResult } from './action-context.js';
import { loadScope } from './association-scope.js';

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

const linkAction = (mode: LinkMode) => async (ctx: ActionContext, relation: Relation): Promise<ActionResult> => {
  const items = readLinkItems(ctx, relation, mode);
  await ctx.store.write(ctx, relation.target, async (unit) => {
    const source = await loadScope(ctx, relation, unit, 'update');
    if (relation.toMany) await linkToMany(unit, source, items, mode);
    else await linkToOne(unit, source, items, mode);
  });
  return { kind: 'none' };
};

export const LINK_ACTIONS = {
  add: linkAction('add'),
  set: linkAction('set'),
  remove: linkAction('remove'),
  toggle: linkAction('toggle'),
};
