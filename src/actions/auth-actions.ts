import { ApiError } from '../errors/api-error.js';
import { apiKeyClaims, newApiKey, tokenHash } from '../auth/api-keys.js';
import { bindWriteValues, type WriteValues } from '../plan/bind-write-values.js';
import type { Collection } from '../schema/collection.js';
import { createAction } from './create-action.js';
import { completeCreated, insertItems } from '../store/insert-items.js';
import type { ActionContext, ActionResult } from './action-context.js';

/** `auth:signIn`, `auth:check`, `auth:signOut` (API.md section 9). */
export const authActions = {
  signIn: async (ctx: ActionContext) => {
    const auth = ctx.auth;
    if (auth === undefined) throw new ApiError('ACTION_NOT_FOUND', 'authentication is off (CORRAL_AUTH=off)');
    const { user, token } = await auth.authenticator.signIn(ctx.request.body, auth.address);
    return { kind: 'item', item: { user, token } };
  },
  check: async (ctx: ActionContext) => {
    const principal = ctx.request.principal;
    if (principal === undefined) throw new ApiError('ACTION_NOT_FOUND', 'authentication is off (CORRAL_AUTH=off)');
    return { kind: 'item', item: { ...principal.user, roles: principal.roles } };
  },
  signOut: async (ctx: ActionContext) => {
    const principal = ctx.request.principal;
    if (ctx.auth === undefined || principal === undefined) throw new ApiError('ACTION_NOT_FOUND', 'authentication is off (CORRAL_AUTH=off)');
    await ctx.auth.authenticator.signOut(principal);
    return { kind: 'none' };
  },
} satisfies Record<string, (ctx: ActionContext) => Promise<ActionResult>>;

/**
 * `apiKeys:create` `{name, role, expiresIn?}`, through the store like any write (the caller's
 * `create` grant on apiKeys, one transaction, one change event): the row is inserted, its
 * token signed (it names the row), and only the token's digest stored. The answer is
 * `{id, token}`: the token is shown this once.
 */
export async function createApiKeyAction(ctx: ActionContext, collection: Collection): Promise<ActionResult> {
  const principal = ctx.request.principal;
  // Auth off: a plain collection.
  if (ctx.auth === undefined || principal === undefined) return createAction(ctx, collection);
  const { authenticator } = ctx.auth;
  const now = new Date();
  const key = newApiKey(principal, ctx.request.body, now);
  const bound = await bindWriteValues(collection, key.values, 'create', now);
  const item: WriteValues = { ...bound, given: key.given.filter((name) => bound.values.has(name)) };
  const created = await ctx.store.write(ctx, collection, async (unit) => {
    const [row] = await insertItems(unit, collection, [item]);
    const id = row![collection.key.name];
    const token = await authenticator.sign(apiKeyClaims(principal.user.id, id, key.role), key.ttlSeconds);
    // The digest is not readable (a password field), so the created row already says all.
    await completeCreated(unit, collection, id, { tokenHash: tokenHash(token) });
    return { id: Number(id), token };
  });
  return { kind: 'created', item: created, location: [collection.name, String(created.id)] };
}
