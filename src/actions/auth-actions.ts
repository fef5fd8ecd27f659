import { ApiError } from '../errors/api-error.js';
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
