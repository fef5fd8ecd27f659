import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { FastifyBaseLogger } from 'fastify';
import type { AuthConfig } from '../config/config.js';
import type { Database } from '../db/database.js';
import { ApiError } from '../errors/api-error.js';
import { hashPassword, verifyPassword } from '../schema/field-types/password-type.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import type { Scopes } from '../store/scope.js';
import { runSql } from '../sql/query-cache.js';
import { UNION_ROLE } from './role-strategy.js';
import { apiKeyRoles, createApiKey } from './api-keys.js';
import { insertRevocation, loadSecret, pruneRevocations, revokedSince } from './auth-tables.js';
import { Access, roleDef, type RoleDef } from './permissions.js';
import type { Principal } from './principal.js';
import { credentialOf, refusal } from './credentials.js';
import { accountKey, SignInLimiter, type Clock } from './rate-limiter.js';
import { API_KEYS, ROLES, ROOT_ROLE, SCOPES, USERS } from './system-collections.js';
import { scopeRows, scopeUses } from './resource-scopes.js';
import { StreamTickets } from './stream-ticket.js';

const ALGORITHM = 'HS256';
const ISSUER = 'corral';
/** How long a user's row (roles, fields used by scope filters) is reused before it is read again. */
const USER_CACHE_MS = 1000;
const MAX_CACHED_USERS = 10_000;
/** Revocations are read again with this overlap, so one committed late is not missed. */
const REVOCATION_OVERLAP_MS = 5000;
const PRUNE_EVERY_MS = 10 * 60 * 1000;
const BEARER = /^Bearer\s+(\S+)\s*$/i;
/**
 * A verified token's claims are reused for this long (never past its expiry): verifying an
 * HS256 JWT costs more than the rest of a small read. Revocation is still checked on every
 * request (against the jti), so a cached token stops working at sign-out like any other.
 */
const VERIFIED_TOKEN_MS = 60_000;
const MAX_VERIFIED_TOKENS = 10_000;

type User = Principal['user'];
/** A user's row as cached, with when it was read and its password's credential (credentials.ts). */
type UserEntry = { readonly user: User; readonly at: number; readonly credential: string };
/** The role definitions as last read (a new read makes a new entry). */
type RolesEntry = { readonly defs: Promise<Map<string, RoleDef>>; readonly at: number };

/**
 * The principal last built for an `Authorization` header and X-Role, with what it was built
 * from: reused only while that token is still within its verified time and not revoked, and
 * the user's cached row is the very entry it was built from and still fresh, so the answer is
 * the one `#authenticate` would give (an API key's principal is never kept: its row is read
 * on every request).
 */
interface KnownPrincipal {
  /** The whole header: the map's key is only its end (principalKey). */
  readonly authorization: string;
  readonly role: string | undefined;
  readonly principal: Principal;
  readonly sub: string;
  readonly user: UserEntry;
  readonly until: number;
}
const MAX_KNOWN_PRINCIPALS = 10_000;

/**
 * Where a header's principal is kept: its last 24 characters, the end of the token's signature
 * (144 bits). The header is a new string on every request, so the map hashes its key each
 * time, and a whole header (a JWT, 200 characters and more) cost more to hash than the rest of
 * the lookup; the entry holds the whole header, which must equal the request's.
 */
function principalKey(authorization: string): string {
  return authorization.slice(-24);
}

/** A password hash to compare against when the account does not exist (same cost either way). */
const DUMMY_HASH = hashPassword('not a real password');

/**
 * Signs tokens in and out and turns a bearer token into a principal. Every node shares the
 * secret and the revocation table in the database; each keeps a copy of the revocations that
 * it refreshes every poll interval (its own sign-outs apply at once).
 */
export class Authenticator {
  #secret!: Uint8Array;
  readonly #revoked = new Map<string, number>();
  #revokedSeenAt = 0;
  #lastPrune = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #users = new Map<string, UserEntry>();
  /** The last principal of each `Authorization` header (see KnownPrincipal; bounded, oldest dropped first). */
  readonly #principals = new Map<string, KnownPrincipal>();
  /** A principal's Access, valid while the role definitions it was built from are the current, fresh ones. */
  #accesses = new WeakMap<Principal, { access: Access; roles: RolesEntry }>();
  /** Claims of verified tokens by token text, until `until` (bounded; oldest dropped first). */
  readonly #verified = new Map<string, { payload: JWTPayload; until: number }>();
  #roles: RolesEntry | undefined;
  /**
   * SQL text of the user and role reads, by the collection they read (a schema change writes
   * them again): each node reads them once a second per user, and building and compiling the
   * query each time cost more than running it.
   */
  readonly #readSql = new WeakMap<object, string>();
  /** Bound scopes of the roles as last read; a new read of the roles starts a new cache. */
  #scopes = new Map<string, Scopes>();
  #onRevoked: ((jti: string, expiresAt: number) => void) | undefined;
  readonly #limiter: SignInLimiter;
  /** Tickets that open one event stream without a header (a browser's EventSource; docs/events.md). */
  readonly streamTickets: StreamTickets;

  constructor(
    private readonly database: Database,
    private readonly config: AuthConfig,
    private readonly snapshot: () => SchemaSnapshot,
    private readonly log?: FastifyBaseLogger,
    /** The sign-in limiter's clock (tests move it instead of sleeping). */
    clock: Clock = Date.now,
  ) {
    this.#limiter = new SignInLimiter(database.db, clock);
    this.streamTickets = new StreamTickets(() => this.#secret, (jti) => this.#revoked.has(jti), clock);
  }

  async init(pollMs: number): Promise<void> {
    this.#secret = await loadSecret(this.database.db, this.config.secret);
    await this.refreshRevocations();
    this.#timer = setInterval(() => {
      this.refreshRevocations().catch((error: unknown) => this.log?.warn({ err: error }, 'reading new token revocations failed; trying again at the next poll'));
    }, pollMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }

  /** Forget cached users (after a write to users or roles on this node). */
  forgetUsers(): void {
    this.#users.clear();
    this.#principals.clear();
    this.#roles = undefined;
    this.#accesses = new WeakMap();
  }

  /**
   * What the principal's roles allow (role definitions are cached like users). The same
   * principal (see `authenticate`) gets the same Access while the definitions it was built
   * from are still the current ones and fresh.
   */
  access(principal: Principal): Access | Promise<Access> {
    const roles = this.#roles;
    if (roles !== undefined && Date.now() - roles.at < USER_CACHE_MS) {
      const known = this.#accesses.get(principal);
      if (known !== undefined && known.roles === roles) return known.access;
    }
    return this.#access(principal);
  }

  async #access(principal: Principal): Promise<Access> {
    const now = Date.now();
    if (this.#roles === undefined || now - this.#roles.at >= USER_CACHE_MS) {
      const defs = this.#readRoles();
      this.#roles = { defs, at: now };
      this.#scopes = new Map();
      defs.catch(() => (this.#roles = undefined));
    }
    const roles = this.#roles;
    const defs = await roles.defs;
    const access = new Access(principal, principal.roles.flatMap((name) => defs.get(name) ?? []), [...defs.keys()], this.#scopes);
    if (this.#roles === roles) this.#accesses.set(principal, { access, roles });
    return access;
  }

  /** The SQL text of a read of `collection`, compiled on its first use (see `#readSql`). */
  #readSqlOf(collection: object, query: () => { compile(): { sql: string } }): string {
    let text = this.#readSql.get(collection);
    if (text === undefined) {
      text = query().compile().sql;
      this.#readSql.set(collection, text);
    }
    return text;
  }

  async #readRoles(): Promise<Map<string, RoleDef>> {
    const roles = this.snapshot().get(ROLES);
    if (roles === undefined) return new Map();
    const text = this.#readSqlOf(roles, () => this.database.db.selectFrom(ROLES).select(['name', 'strategy', 'resources']));
    const rows = await runSql<Record<string, unknown>>(this.database.executor, text, []);
    const fields = ['name', 'strategy', 'resources'].map((name) => roles.fields.get(name)!);
    const scopes = scopeRows(await this.#readScopes());
    return new Map(rows.map((row) => [String(row.name), roleDef(roles.decode(row, fields), scopes)]));
  }

  /** The `rolesResourcesScopes` rows, decoded (read with the roles: a scope is part of the grants naming it). */
  async #readScopes(): Promise<Record<string, unknown>[]> {
    const scopes = this.snapshot().get(SCOPES);
    if (scopes === undefined) return [];
    const fields = ['id', 'resourceName', 'scope'].map((name) => scopes.fields.get(name)!);
    const text = this.#readSqlOf(scopes, () => this.database.db.selectFrom(SCOPES).select(['id', 'resourceName', 'scope']));
    return (await runSql<Record<string, unknown>>(this.database.executor, text, [])).map((row) => scopes.decode(row, fields));
  }

  /**
   * The role resource actions naming scope `id`, read now (not from the cache): a scope still
   * named cannot be destroyed, and a changed one must still fit every collection naming it.
   */
  async scopeUses(id: number): Promise<Array<{ role: string; collection: string }>> {
    const roles = this.snapshot().get(ROLES);
    if (roles === undefined) return [];
    const fields = ['name', 'resources'].map((name) => roles.fields.get(name)!);
    const rows = await this.database.db.selectFrom(ROLES).select(['name', 'resources']).execute();
    return scopeUses(rows.map((row) => roles.decode(row as Record<string, unknown>, fields)), id);
  }

  /**
   * `apiKeys:create` `{name, role, expiresIn?}`: the key acts as its creator restricted to
   * `role` (one the creator holds). Returns the token once; only its digest is stored.
   */
  createApiKey(principal: Principal, body: unknown): Promise<{ id: number; token: string }> {
    return createApiKey(this.database, this.snapshot().get(API_KEYS)!, principal, body, (claims, ttl) => this.sign(claims, ttl));
  }


  async refreshRevocations(now = Date.now()): Promise<void> {
    const since = this.#revokedSeenAt - REVOCATION_OVERLAP_MS;
    const rows = await revokedSince(this.database.db, since);
    for (const row of rows) this.#revoked.set(row.jti, row.expiresAt);
    this.#revokedSeenAt = now;
    if (now - this.#lastPrune > PRUNE_EVERY_MS) {
      this.#lastPrune = now;
      for (const [jti, expiresAt] of this.#revoked) if (expiresAt < now) this.#revoked.delete(jti);
      await pruneRevocations(this.database.db, now);
    }
  }

  async signIn(body: unknown, address: string): Promise<{ user: User; token: string }> {
    const { account, password } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (typeof account !== 'string' || typeof password !== 'string' || account === '') {
      throw new ApiError('BODY_INVALID', 'auth:signIn needs {"account": <email or username>, "password": <string>}');
    }
    const row = await this.database.db
      .selectFrom(USERS)
      .select(['id', 'password'])
      .where((eb) => eb.or([eb('email', '=', account), eb('username', '=', account)]))
      .executeTakeFirst();
    // Failures count per user whatever the spelling (email or username), and per address.
    const attempt = await this.#limiter.begin(accountKey(row?.id, account), address, row !== undefined);
    const hash = typeof row?.password === 'string' ? row.password : undefined;
    // A user without a password is compared against the dummy too (same time), and never matches.
    const matches = await verifyPassword(password, hash ?? (await DUMMY_HASH));
    if (row === undefined || hash === undefined || !matches) throw new ApiError('AUTH_BAD_CREDENTIALS');
    await attempt.succeeded();
    const entry = await this.#user(String(row.id), true);
    if (entry === undefined) throw new ApiError('AUTH_BAD_CREDENTIALS');
    if (entry.user.disabled === true) throw new ApiError('AUTH_BAD_CREDENTIALS', 'this account is disabled');
    // The token holds the credential of the password just verified: if it changed meanwhile, the token is born revoked.
    return { user: entry.user, token: await this.#signInToken(entry.user, credentialOf(hash), this.config.tokenTtlSeconds) };
  }

  /** A sign-in token for a user as stored now (tests use it for tokens of a chosen lifetime). */
  async tokenFor(userId: string, ttlSeconds: number): Promise<string> {
    const entry = await this.#user(userId, true);
    if (entry === undefined) throw new Error(`no user ${userId}`);
    return this.#signInToken(entry.user, entry.credential, ttlSeconds);
  }

  /** `cv`: the password's credential; `rl`: the roles held now (a token stops when one is taken away). */
  #signInToken(user: User, credential: string, ttlSeconds: number): Promise<string> {
    return this.sign({ sub: String(user.id), cv: credential, rl: rolesOf(user) }, ttlSeconds);
  }

  /** A signed token with a fresh id, expiring in `ttlSeconds`. */
  async sign(claims: Record<string, string | string[]>, ttlSeconds: number, jti: string = randomUUID()): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM })
      .setIssuer(ISSUER)
      .setIssuedAt()
      .setJti(jti)
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
      .sign(this.#secret);
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
      const now = Date.now();
      if (now < known.until && !this.#revoked.has(known.principal.tokenId) && this.#users.get(known.sub) === known.user && now - known.user.at < USER_CACHE_MS) {
        return Promise.resolve(known.principal);
      }
    }
    return this.#authenticate(authorization, requestedRole);
  }

  async #authenticate(authorization: string | undefined, requestedRole: string | undefined): Promise<Principal> {
    if (authorization === undefined || authorization === '') throw new ApiError('AUTH_REQUIRED');
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined) throw new ApiError('AUTH_INVALID_TOKEN', 'the Authorization header must be "Bearer <token>"');
    const payload = await this.#verify(token);
    const { sub, jti, exp } = payload;
    if (typeof sub !== 'string' || typeof jti !== 'string' || typeof exp !== 'number') throw new ApiError('AUTH_INVALID_TOKEN');
    if (this.#revoked.has(jti)) throw new ApiError('AUTH_INVALID_TOKEN', 'the token has been revoked');
    const userEntry = await this.#user(sub, false);
    if (userEntry === undefined) throw new ApiError('AUTH_INVALID_TOKEN', 'the token names a user that no longer exists');
    const user = userEntry.user;
    // A disabled user's every token stops, API keys included (they act as the user).
    if (user.disabled === true) throw new ApiError('AUTH_INVALID_TOKEN', 'the user is disabled');
    let held = rolesOf(user);
    let apiKeyId: string | undefined;
    if (typeof payload.key === 'string') {
      apiKeyId = payload.key;
      held = await apiKeyRoles(this.database, this.snapshot().get(API_KEYS)!, { id: apiKeyId, token, user, held });
    }
    const refused = refusal(payload, userEntry.credential, held, apiKeyId !== undefined);
    if (refused !== undefined) throw new ApiError('AUTH_INVALID_TOKEN', refused);
    let roles = held;
    // X-Role: __union__ is every role held, the same as no X-Role (docs/auth.md).
    if (requestedRole !== undefined && requestedRole !== '' && requestedRole !== UNION_ROLE) {
      if (!held.includes(requestedRole)) throw new ApiError('FORBIDDEN', `you do not have the role ${requestedRole}`);
      roles = [requestedRole];
    }
    const principal: Principal = { user, roles, tokenId: jti, expiresAt: exp * 1000, ...(apiKeyId === undefined ? {} : { apiKeyId }) };
    const entry = this.#users.get(sub);
    const verified = this.#verified.get(token);
    if (apiKeyId === undefined && entry === userEntry && verified !== undefined) {
      if (this.#principals.size >= MAX_KNOWN_PRINCIPALS) this.#principals.delete(this.#principals.keys().next().value!);
      this.#principals.set(principalKey(authorization), { authorization, role: requestedRole, principal, sub, user: entry, until: verified.until });
    }
    return principal;
  }

  /** The claims of a well-signed, unexpired token (cached by token text for a short while). */
  async #verify(token: string): Promise<JWTPayload> {
    const now = Date.now();
    const cached = this.#verified.get(token);
    if (cached !== undefined) {
      if (now < cached.until) return cached.payload;
      this.#verified.delete(token);
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.#secret, { algorithms: [ALGORITHM], issuer: ISSUER }));
    } catch (error) {
      const expired = error instanceof joseErrors.JWTExpired;
      throw new ApiError('AUTH_INVALID_TOKEN', expired ? 'the token has expired' : undefined, { cause: error });
    }
    if (typeof payload.exp === 'number') {
      if (this.#verified.size >= MAX_VERIFIED_TOKENS) this.#verified.delete(this.#verified.keys().next().value!);
      this.#verified.set(token, { payload, until: Math.min(now + VERIFIED_TOKEN_MS, payload.exp * 1000) });
    }
    return payload;
  }

  /**
   * Revokes the token on every node: at once here and (through `onRevoked`, the cluster's
   * message) on this node's other workers, within a poll interval on other nodes.
   */
  async signOut(principal: Principal): Promise<void> {
    await insertRevocation(this.database.db, principal.tokenId, principal.expiresAt, Date.now());
    this.noteRevoked(principal.tokenId, principal.expiresAt);
    this.#onRevoked?.(principal.tokenId, principal.expiresAt);
  }

  /** A revocation learnt from elsewhere (another worker of this node). */
  noteRevoked(jti: string, expiresAt: number): void {
    this.#revoked.set(jti, expiresAt);
  }

  /** Called after each sign-out on this process (the worker passes it to its siblings). */
  onRevoked(listener: (jti: string, expiresAt: number) => void): void {
    this.#onRevoked = listener;
  }

  async #user(id: string, fresh: boolean): Promise<UserEntry | undefined> {
    const now = Date.now();
    const cached = this.#users.get(id);
    if (!fresh && cached !== undefined && now - cached.at < USER_CACHE_MS) return cached;
    const users = this.snapshot().get(USERS);
    if (users === undefined) return undefined;
    // The visible fields and the (hidden) password hash, whose credential the user's tokens must carry.
    const text = this.#readSqlOf(users, () => this.database.db.selectFrom(USERS).select([...users.visible.map((field) => field.name), 'password']).where('id', '=', ''));
    const [row] = await runSql<Record<string, unknown>>(this.database.executor, text, [id], true);
    if (row === undefined) {
      this.#users.delete(id);
      return undefined;
    }
    const user = users.decode(row, users.visible) as User;
    const hash = row.password;
    const entry: UserEntry = { user, at: now, credential: credentialOf(typeof hash === 'string' ? hash : undefined) };
    if (this.#users.size >= MAX_CACHED_USERS) this.#users.clear();
    this.#users.set(id, entry);
    return entry;
  }
}

/** The role names of a user row (`roles` is a JSON list of names). */
export function rolesOf(user: User): string[] {
  const roles = user.roles;
  return Array.isArray(roles) ? roles.filter((role): role is string => typeof role === 'string') : [];
}
