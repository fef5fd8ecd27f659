import { ApiError } from '../errors/api-error.js';
import { parseKeys } from '../plan/bind-keys.js';
import type { Collection } from '../schema/collection.js';
import { moveRow, type MovePlacement } from '../store/move-rows.js';
import { isRecord } from '../is-record.js';
import { type ActionContext, type ActionResult } from './action-context.js';

const invalid = (name: string, message: string) => new ApiError('PARAM_INVALID', `${name} ${message}`, { field: name });

/**
 * move (NocoBase's wire format): `sourceId`, and `targetId` or `sticky=true`, optional
 * `sortField` (default: the collection's only `sort` field, or the one named `sort`) and
 * `method=insertAfter|insertBefore`; from the query or the body. Answers `{"data":null}`.
 */
export async function moveAction(ctx: ActionContext, collection: Collection): Promise<ActionResult> {
  const body = isRecord(ctx.request.body) ? ctx.request.body : {};
  const raw = ctx.request.params.move ?? {};
  const read = (name: string): unknown => raw[name] ?? body[name];
  const sortFields = collection.fieldList.filter((field) => field.type.name === 'sort');
  const sortName = read('sortField');
  const sort = sortName === undefined || sortName === null || sortName === ''
    ? (sortFields.length === 1 ? sortFields[0] : sortFields.find((field) => field.name === 'sort'))
    : sortFields.find((field) => field.name === sortName);
  if (sort === undefined) throw invalid('sortField', `must name a sort field of ${collection.name}`);
  const key = (name: string) => {
    const value = read(name);
    if (typeof value !== 'string' && typeof value !== 'number') throw invalid(name, 'must be a key');
    return parseKeys(collection, value)[0];
  };
  // NocoBase's moves between the groups of a sort field's scopeKey: Corral orders the whole collection, so a scope is refused, not ignored.
  if (read('targetScope') !== undefined && read('targetScope') !== null) throw invalid('targetScope', 'is not supported: a sort field orders the whole collection (no scopeKey)');
  const source = key('sourceId');
  const sticky = read('sticky');
  let placement: MovePlacement;
  if (sticky === true || sticky === 'true') placement = { kind: 'sticky' };
  else {
    const method = read('method');
    if (method !== undefined && method !== null && method !== 'insertAfter' && method !== 'insertBefore') throw invalid('method', 'must be insertAfter or insertBefore');
    placement = { kind: 'target', target: key('targetId'), ...(method === undefined || method === null ? {} : { after: method === 'insertAfter' }) };
  }
  await ctx.store.write(ctx, collection, (unit) => moveRow(unit, collection, sort, source, placement));
  return { kind: 'none' };
}
