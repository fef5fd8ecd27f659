import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import type { Scopes } from '../store/scope.js';
import { Access, roleDef, type RoleDef } from './permissions.js';
import type { Principal } from '../request/principal.js';
import { scopeRows } from './resource-scopes.js';
import type { SystemReads } from '../store/system/system-reads.js';
import { ROLES, SCOPES } from './system-collections.js';
import { TtlCache, type Clock } from './ttl-cache.js';

/** How long the role definitions are reused before they are read again. */
export const ROLES_CACHE_MS = 1000;

/** The role definitions as read once, and the scopes bound from them (a new read starts afresh). */
interface RolesEntry {
  readonly defs: Promise<Map<string, RoleDef>>;
  readonly scopes: Map<string, Scopes>;
}

/**
 * Roles → Access: reads the role definitions (with the scope rows they name) at most once a
 * `ROLES_CACHE_MS` per node, and gives the same principal the same Access while the
 * definitions it was built from are the current ones.
 */
export class RoleAccess {
  readonly #roles: TtlCache<'roles', RolesEntry>;
  /** A principal's Access, with the definitions it was built from (valid while those are current). */
  readonly #accesses = new WeakMap<Principal, { access: Access; roles: RolesEntry }>();

  constructor(
    private readonly reads: SystemReads,
    private readonly snapshot: () => SchemaSnapshot,
    clock: Clock,
  ) {
    this.#roles = new TtlCache(ROLES_CACHE_MS, 1, clock);
  }

  /** Read the roles again at the next request (after a write to them). */
  forget(): void {
    this.#roles.clear();
  }

  access(principal: Principal): Access | Promise<Access> {
    const roles = this.#roles.get('roles');
    if (roles !== undefined) {
      const known = this.#accesses.get(principal);
      if (known !== undefined && known.roles === roles) return known.access;
    }
    return this.#access(principal, roles);
  }

  async #access(principal: Principal, current: RolesEntry | undefined): Promise<Access> {
    let roles = current;
    if (roles === undefined) {
      const entry: RolesEntry = { defs: this.#readRoles(), scopes: new Map() };
      this.#roles.set('roles', entry);
      entry.defs.catch(() => {
        if (this.#roles.get('roles') === entry) this.#roles.clear();
      });
      roles = entry;
    }
    const defs = await roles.defs;
    const access = new Access(principal, principal.roles.flatMap((name) => defs.get(name) ?? []), [...defs.keys()], roles.scopes);
    if (this.#roles.get('roles') === roles) this.#accesses.set(principal, { access, roles });
    return access;
  }

  async #readRoles(): Promise<Map<string, RoleDef>> {
    const snapshot = this.snapshot();
    const roles = snapshot.get(ROLES);
    if (roles === undefined) return new Map();
    const scopes = snapshot.get(SCOPES);
    const rows = await this.reads.all(roles, ['name', 'strategy', 'resources']);
    const scopeById = scopeRows(scopes === undefined ? [] : await this.reads.all(scopes, ['id', 'resourceName', 'scope']));
    return new Map(rows.map((row) => [String(row.name), roleDef(row, scopeById)]));
  }
}
