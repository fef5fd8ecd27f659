import { ApiError } from '../errors/api-error.js';
import { keyFilter } from '../plan/bind-keys.js';
import type { Collection } from '../schema/collection.js';
import type { UnitOfWork } from './unit-of-work.js';
import { selectWhere } from './write-rows.js';

/**
 * A write that changes the grants of role `role` without writing its row (a named scope's
 * filter, which every role resource naming the scope applies), evaluated by the store as an
 * update of that role's row: 403 FORBIDDEN unless the caller's `update` grant on `roles`
 * reaches the row, and never for a role the caller holds (`held`: nobody widens their own
 * grants, as a `roles` write refuses changing a role you hold). `what` names the change.
 */
export async function requireRoleChange(unit: UnitOfWork, roles: Collection, role: string, held: readonly string[], what: string): Promise<void> {
  if (unit.grants.open) return;
  const reached = unit.grants.scope(roles, 'update')?.denied !== true && (await selectWhere(unit, roles, [roles.key], keyFilter(roles, [role]), false, 'update')).length > 0;
  if (!reached) throw new ApiError('FORBIDDEN', `${what} is used by role ${role}: changing it needs update on roles`);
  if (held.includes(role)) throw new ApiError('FORBIDDEN', `${what} is used by role ${role}, which you hold: you cannot change it`, { field: 'scope' });
}
