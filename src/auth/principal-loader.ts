import { ApiError } from '../errors/api-error.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import { apiKeyRoles } from './api-keys.js';
import { credentialOf, refusal } from './credentials.js';
import type { Principal } from '../request/principal.js';
import { UNION_ROLE } from './role-strategy.js';
import type { SystemReads } from '../store/system/system-reads.js';
import { API_KEYS, USERS } from './system-collections.js';
import type { TokenVerifier } from './token-verifier.js';
import { TtlCache, type Clock } from './ttl-cache.js';

/** How long a user's row (roles, fields used by scope filters) is reused before it is read again. */
export const USER_CACHE_MS = 1000;
const MAX_CACHED_USERS = 10_000;
const MAX_KNOWN_PRINCIPALS = 10_000;
const BEARER = /^Bearer\s+(\S+)\s*$/i;

export type User = Principal['user'];
/** A user's row as cached, with its password's credential (credentials.ts). */
export interface UserEntry {
  readonly user: User;
  readonly credential: string;
}

/**
 * The principal last built for an `Authorization` header and X-Role, with what it was built
 * from: reused only while that token's claims are still cached, it is not revoked, and the
 * user's cached row is the very entry it was built from, so the answer is the one a fresh
 * load would give (an API key's principal is never kept: its row is read on every request).
 */
interface KnownPrincipal {
  /** The whole header: the cache's key is only its end (principalKey). */
  readonly authorization: string;
  readonly role: string | undefined;
  readonly principal: Principal;
  readonly sub: string;
  readonly user: UserEntry;
}

/**
 * Where a header's principal is kept: its last 24 characters, the end of the token's signature
 * (144 bits). The header is a new string on every request, so the map hashes its key each
 * time, and a whole header (a JWT, 200 characters and more) cost more to hash than the rest of
 * the lookup; the entry holds the whole header, which must equal the request's.
 */
function principalKey(authorization: string): string {
  return authorization.slice(-24);
}

/** The role names of a user row (`roles` is a JSON list of names). */
export function rolesOf(user: User): string[] {
  const roles = user.roles;
  return Array.isArray(roles) ? roles.filter((role): role is string => typeof role === 'string') : [];
}

/** Claims → principal: the user (cached for `USER_CACHE_MS`), the roles it acts with. */
export class PrincipalLoader {
  readonly #users: TtlCache<string, UserEntry>;
  readonly #principals: TtlCache<string, KnownPrincipal>;

  constructor(
    private readonly reads: SystemReads,
    private readonly snapshot: () => SchemaSnapshot,
    private readonly tokens: TokenVerifier,
    clock: Clock,
  ) {
    this.#users = new TtlCache(USER_CACHE_MS, MAX_CACHED_USERS, clock);
    this.#principals = new TtlCache(USER_CACHE_MS, MAX_KNOWN_PRINCIPALS, clock);
  }

  /** Read users again at the next request (after a write to users or roles). */
  forget(): void {
    this.#users.clear();
    this.#principals.clear();
  }

  /**
   * The principal of an `Authorization` header: 401 AUTH_REQUIRED without one, 401
   * AUTH_INVALID_TOKEN for a bad, expired or revoked one, 403 FORBIDDEN for an X-Role the user
   * does not hold. A header and X-Role seen before get the same principal object while
   * nothing it was built from changed (KnownPrincipal): the revocation is checked every time.
   */
  authenticate(authorization: string | undefined, requestedRole: string | undefined): Promise<Principal> {
    const known = authorization === undefined ? undefined : this.#principals.get(principalKey(authorization));
    if (known !== undefined && known.authorization === authorization && known.role === requestedRole) {
      if (!this.tokens.isRevoked(known.principal.tokenId) && this.#users.get(known.sub) === known.user) return Promise.resolve(known.principal);
    }
    return this.#authenticate(authorization, requestedRole);
  }

  async #authenticate(authorization: string | undefined, requestedRole: string | undefined): Promise<Principal> {
    if (authorization === undefined || authorization === '') throw new ApiError('AUTH_REQUIRED');
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined) throw new ApiError('AUTH_INVALID_TOKEN', 'the Authorization header must be "Bearer <token>"');
    const payload = await this.tokens.verify(token);
    const { sub, jti, exp } = payload;
    if (typeof sub !== 'string' || typeof jti !== 'string' || typeof exp !== 'number') throw new ApiError('AUTH_INVALID_TOKEN');
    if (this.tokens.isRevoked(jti)) throw new ApiError('AUTH_INVALID_TOKEN', 'the token has been revoked');
    const userEntry = await this.user(sub, false);
    if (userEntry === undefined) throw new ApiError('AUTH_INVALID_TOKEN', 'the token names a user that no longer exists');
    const user = userEntry.user;
    // A disabled user's every token stops, API keys included (they act as the user).
    if (user.disabled === true) throw new ApiError('AUTH_INVALID_TOKEN', 'the user is disabled');
    let held = rolesOf(user);
    let apiKeyId: string | undefined;
    let keyCredential: string | undefined;
    if (typeof payload.key === 'string') {
      apiKeyId = payload.key;
      // `kc`: a token Corral signed for one stream opened with a ticket asked with the key (Authenticator.ticketToken).
      const proof = typeof payload.kc === 'string' ? { credential: payload.kc } : { token };
      const standing = await apiKeyRoles(this.reads, this.snapshot().get(API_KEYS)!, { id: apiKeyId, proof, user, held });
      held = standing.roles;
      keyCredential = standing.credential;
    }
    const refused = refusal(payload, userEntry.credential, held, apiKeyId !== undefined);
    if (refused !== undefined) throw new ApiError('AUTH_INVALID_TOKEN', refused);
    let roles = held;
    // X-Role: __union__ is every role held, the same as no X-Role (docs/auth.md).
    if (requestedRole !== undefined && requestedRole !== '' && requestedRole !== UNION_ROLE) {
      if (!held.includes(requestedRole)) throw new ApiError('FORBIDDEN', `you do not have the role ${requestedRole}`);
      roles = [requestedRole];
    }
    const principal: Principal = { user, roles, tokenId: jti, expiresAt: exp * 1000, ...(apiKeyId === undefined ? { credential: userEntry.credential } : { apiKeyId, keyCredential }) };
    // Kept no longer than the token's claims and the user's row it was built from.
    const life = Math.min(this.tokens.verifiedFor(token), this.#users.remaining(sub));
    if (apiKeyId === undefined && this.#users.get(sub) === userEntry) {
      this.#principals.set(principalKey(authorization), { authorization, role: requestedRole, principal, sub, user: userEntry }, life);
    }
    return principal;
  }

  /** The user of `id` as stored (from the cache unless `fresh`), or undefined when there is none. */
  async user(id: string, fresh: boolean): Promise<UserEntry | undefined> {
    if (!fresh) {
      const cached = this.#users.get(id);
      if (cached !== undefined) return cached;
    }
    const users = this.snapshot().get(USERS);
    if (users === undefined) return undefined;
    // The visible fields and the (hidden) password hash, whose credential the user's tokens must carry.
    const row = await this.reads.byId(users, [...users.visible.map((field) => field.name), 'password'], id);
    if (row === undefined) {
      this.#users.delete(id);
      return undefined;
    }
    const hash = row.password;
    const entry: UserEntry = { user: users.decode(row, users.visible) as User, credential: credentialOf(typeof hash === 'string' ? hash : undefined) };
    this.#users.set(id, entry);
    return entry;
  }
}
