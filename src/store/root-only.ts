import { ApiError } from '../errors/api-error.js';
import type { Grants } from './scope.js';

/**
 * Resources granted to the root role alone: no other role's grant reaches them, whatever it
 * names, and the store evaluates this on every statement and action that touches them (the
 * unit of work's `where`, `require` and `viewScope`, and `requireRootOnly` for the actions
 * that are no rows). Root is the caller whose grants are open: the root role, or everyone
 * when authentication is off and no scope provider restricts the request.
 *
 * - `webhooks`: the collection of webhook definitions (their targets), its rows, its change
 *   events and its deliveries;
 * - `collections:sync`: re-reading the database's catalogue.
 */
export const ROOT_ONLY: ReadonlySet<string> = new Set(['webhooks', 'collections:sync']);

/** Whether `grants` reach the root-only resource `resource` (any other resource: true). */
export function reachesRootOnly(grants: Grants, resource: string): boolean {
  return grants.open || !ROOT_ONLY.has(resource);
}

/** 403 FORBIDDEN unless `grants` reach `resource` (ROOT_ONLY). */
export function requireRootOnly(grants: Grants, resource: string): void {
  if (!reachesRootOnly(grants, resource)) throw new ApiError('FORBIDDEN', `${resource} is granted to the root role only`);
}
