import { ApiError } from '../errors/api-error.js';
import { isRecord } from '../is-record.js';
import { bindFilter } from '../plan/bind-filter.js';
import type { Collection } from '../schema/collection.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import { sampleUser, withUser } from './user-variables.js';
import { USERS } from './system-collections.js';

/** A `rolesResourcesScopes` row as grants use it: `resourceName` null for any collection. */
export interface ScopeRow {
  readonly id: number;
  readonly resourceName: string | null;
  readonly scope: unknown;
}

/** The keys of NocoBase's built-in scopes, which Corral keeps built in (role-strategy.ts). */
const BUILT_IN_KEYS: ReadonlySet<unknown> = new Set(['own', 'all']);

function asId(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return value;
  if (typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value)) return Number(value);
  return undefined;
}

/**
 * The named scope a role resource action points at: `scopeId`, or `scope: {id}` (NocoBase's
 * client sends the scope row) unless that row is a built-in one (`{key: "own"}`). undefined:
 * none. 400 for a `scopeId` or `scope.id` that is not a row id.
 */
export function scopeRef(action: Record<string, unknown>, at: string): number | undefined {
  const { scopeId, scope } = action;
  const fromScope = isRecord(scope) && !BUILT_IN_KEYS.has(scope.key) && scope.id !== undefined && scope.id !== null ? scope.id : undefined;
  const raw = scopeId ?? fromScope;
  if (raw === undefined || raw === null) return undefined;
  const id = asId(raw);
  if (id === undefined) throw new ApiError('VALIDATION_FAILED', `${at}.scopeId must be the id of a rolesResourcesScopes row`, { field: 'actions' });
  if (scopeId !== undefined && scopeId !== null && fromScope !== undefined && asId(fromScope) !== id) {
    throw new ApiError('VALIDATION_FAILED', `${at}: scopeId and scope.id name different scopes`, { field: 'actions' });
  }
  return id;
}

/** Whether `scope` may be used on `collection`: 400 when its resourceName is another collection or its filter does not bind there. */
export function checkScopeOn(scope: ScopeRow, collection: Collection, snapshot: SchemaSnapshot, at: string): void {
  if (scope.resourceName !== null && scope.resourceName !== collection.name) {
    throw new ApiError('VALIDATION_FAILED', `${at}: scope ${scope.id} is for ${scope.resourceName}, not ${collection.name}`, { field: 'actions' });
  }
  checkScopeFilter(scope.scope, collection, snapshot, at);
}

/** A scope filter must be an object that binds against `collection` (its `{{$user.x}}` variables bound to a sample user). */
export function checkScopeFilter(filter: unknown, collection: Collection, snapshot: SchemaSnapshot, at: string): void {
  if (filter === undefined || filter === null) return;
  if (!isRecord(filter)) throw new ApiError('VALIDATION_FAILED', `${at}: scope must be a filter object`, { field: 'scope' });
  bindFilter(withUser(filter, sampleUser(snapshot.get(USERS))), collection);
}

/** The row filter of a grant naming a scope: the scope's filter AND the action's own (either may be absent). */
export function scopedFilter(scope: ScopeRow, filter: unknown): unknown {
  const own = isRecord(scope.scope) && Object.keys(scope.scope).length > 0 ? scope.scope : undefined;
  if (own === undefined) return filter;
  return filter === undefined ? own : { $and: [own, filter] };
}

/** The scope rows, by id, from raw decoded rows. */
export function scopeRows(rows: readonly Record<string, unknown>[]): Map<number, ScopeRow> {
  const byId = new Map<number, ScopeRow>();
  for (const row of rows) {
    const id = asId(row.id);
    if (id === undefined) continue;
    byId.set(id, { id, resourceName: typeof row.resourceName === 'string' && row.resourceName !== '' ? row.resourceName : null, scope: row.scope ?? null });
  }
  return byId;
}

/** Where roles rows (name, resources) point at scope `id`: the role and collection of each such action. */
export function scopeUses(roles: readonly Record<string, unknown>[], id: number): Array<{ role: string; collection: string }> {
  const uses: Array<{ role: string; collection: string }> = [];
  for (const role of roles) {
    for (const resource of Array.isArray(role.resources) ? role.resources : []) {
      if (!isRecord(resource) || typeof resource.name !== 'string' || !Array.isArray(resource.actions)) continue;
      for (const action of resource.actions) {
        if (!isRecord(action)) continue;
        let ref: number | undefined;
        try {
          ref = scopeRef(action, 'action');
        } catch {
          continue;
        }
        if (ref === id) uses.push({ role: String(role.name), collection: resource.name });
      }
    }
  }
  return uses;
}
