import type { FastifyBaseLogger } from 'fastify';
import type { AuthConfig } from '../config/config.js';
import { ApiError } from '../errors/api-error.js';
import { hashPassword, verifyPassword } from '../schema/field-types/password-type.js';
import type { SchemaSnapshot } from '../schema/schema-snapshot.js';
import type { SystemDoor } from '../store/system/system-door.js';
import type { SystemReads } from '../store/system/system-reads.js';
import { apiKeyRoles } from './api-keys.js';
import { scopeUses } from './resource-scopes.js';
import type { Access } from './permissions.js';
import type { Principal } from '../request/principal.js';
import { credentialOf } from './credentials.js';
import { PrincipalLoader, rolesOf, type User, type UserEntry } from './principal-loader.js';
import { accountKey, SignInLimiter } from './rate-limiter.js';
import { StreamTickets, type TicketHolder } from './stream-ticket.js';
import { RoleAccess } from './role-access.js';
import { API_KEYS, ROLES, USERS } from './system-collections.js';
import { TokenVerifier } from './token-verifier.js';
import type { Clock } from './ttl-cache.js';

export { rolesOf } from './principal-loader.js';

/** A password hash to compare against when the account does not exist (same cost either way). */
const DUMMY_HASH = hashPassword('not a real password');

/**
 * Signs users in and out and turns a bearer token into a principal and its Access. The work
 * is split three ways: `TokenVerifier` (token text → claims, revocations), `PrincipalLoader`
 * (claims → user and roles, cached) and `RoleAccess` (roles → Access, cached); this class
 * wires them and keeps sign-in.
 */
export class Authenticator {
  readonly tokens: TokenVerifier;
  readonly #principals: PrincipalLoader;
  readonly #roles: RoleAccess;
  readonly #limiter: SignInLimiter;
  /** Tickets that open one event stream without a header (a browser's EventSource; docs/events.md). */
  readonly streamTickets: StreamTickets;
  readonly #reads: SystemReads;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    /** The store's system door: every read and write of users, roles, keys, tokens and failures. */
    system: SystemDoor,
    private readonly config: AuthConfig,
    private readonly snapshot: () => SchemaSnapshot,
    private readonly log?: FastifyBaseLogger,
    /** The clock of the sign-in limiter, token lifetimes and caches (tests move it instead of sleeping). */
    clock: Clock = Date.now,
  ) {
    const reads = system.reads;
    this.#reads = reads;
    this.tokens = new TokenVerifier(system.tokens, clock);
    this.#principals = new PrincipalLoader(reads, snapshot, this.tokens, clock);
    this.#roles = new RoleAccess(reads, snapshot, clock);
    this.#limiter = new SignInLimiter(system.failures, clock);
    this.streamTickets = new StreamTickets(() => this.tokens.secret, (jti) => this.tokens.isRevoked(jti), clock);
  }

  async init(pollMs: number): Promise<void> {
    await this.tokens.init(this.config.secret);
    this.#timer = setInterval(() => {
      this.tokens.refreshRevocations().catch((error: unknown) => this.log?.warn({ err: error }, 'reading new token revocations failed; trying again at the next poll'));
    }, pollMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }

  /** Forget cached users and roles (after a write to users, roles, apiKeys or scopes). */
  forgetUsers(): void {
    this.#principals.forget();
    this.#roles.forget();
  }

  /** What the principal's roles allow (the same principal gets the same Access while the roles are unchanged). */
  access(principal: Principal): Access | Promise<Access> {
    return this.#roles.access(principal);
  }

  /** See PrincipalLoader.authenticate. */
  authenticate(authorization: string | undefined, requestedRole: string | undefined): Promise<Principal> {
    return this.#principals.authenticate(authorization, requestedRole);
  }

  /**
   * The role resource actions naming scope `id`, read now (not from the cache): a scope still
   * named cannot be destroyed, and a changed one must still fit every collection naming it.
   */
  async scopeUses(id: number): Promise<Array<{ role: string; collection: string }>> {
    const roles = this.snapshot().get(ROLES);
    if (roles === undefined) return [];
    return scopeUses(await this.#reads.all(roles, ['name', 'resources']), id);
  }

  refreshRevocations(now?: number): Promise<void> {
    return this.tokens.refreshRevocations(now);
  }

  async signIn(body: unknown, address: string): Promise<{ user: User; token: string }> {
    const { account, password } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (typeof account !== 'string' || typeof password !== 'string' || account === '') {
      throw new ApiError('BODY_INVALID', 'auth:signIn needs {"account": <email or username>, "password": <string>}');
    }
    const users = this.snapshot().get(USERS);
    if (users === undefined) throw new ApiError('AUTH_BAD_CREDENTIALS');
    const row = await this.#reads.signInRow(users, account);
    // Failures count per user whatever the spelling (email or username), and per address.
    const attempt = await this.#limiter.begin(accountKey(row?.id, account), address, row !== undefined);
    const hash = typeof row?.password === 'string' ? row.password : undefined;
    // A user without a password is compared against the dummy too (same time), and never matches.
    const matches = await verifyPassword(password, hash ?? (await DUMMY_HASH));
    if (row === undefined || hash === undefined || !matches) throw new ApiError('AUTH_BAD_CREDENTIALS');
    await attempt.succeeded();
    const entry = await this.#principals.user(String(row.id), true);
    if (entry === undefined) throw new ApiError('AUTH_BAD_CREDENTIALS');
    if (entry.user.disabled === true) throw new ApiError('AUTH_BAD_CREDENTIALS', 'this account is disabled');
    // The token holds the credential of the password just verified: if it changed meanwhile, the token is born revoked.
    return { user: entry.user, token: await this.#signInToken(entry.user, credentialOf(hash), this.config.tokenTtlSeconds) };
  }

  /** A sign-in token for a user as stored now (tests use it for tokens of a chosen lifetime). */
  async tokenFor(userId: string, ttlSeconds: number): Promise<string> {
    const entry = await this.#principals.user(userId, true);
    if (entry === undefined) throw new Error(`no user ${userId}`);
    return this.#signInToken(entry.user, entry.credential, ttlSeconds);
  }

  /**
   * The token a redeemed stream ticket opens its stream with, for its user as stored now: 401
   * STREAM_TICKET_REVOKED when the user is gone or disabled, its password changed since the
   * ticket was asked (a sign-in token's ticket), a role the ticket was asked with was taken
   * away, or the API key it was asked with was destroyed or lost its role. The token carries
   * what was just checked (the credential and roles, or the key and its credential), so the
   * open stream stops at the next such change too (its re-check compares with it).
   */
  async ticketToken(holder: TicketHolder, ttlSeconds: number): Promise<string> {
    const entry = await this.#principals.user(holder.userId, true);
    let refused = entry === undefined ? 'the user of the ticket no longer exists' : ticketRefusal(entry, holder);
    if (refused === undefined && holder.apiKey !== undefined) refused = await this.#keyRefusal(entry!, holder.apiKey);
    if (refused !== undefined) throw new ApiError('STREAM_TICKET_REVOKED', refused);
    // A key's stream acts as the key (its role, its row checked); the key's own token is never re-sent.
    if (holder.apiKey !== undefined) return this.sign({ sub: String(entry!.user.id), key: holder.apiKey.id, kc: holder.apiKey.credential }, ttlSeconds);
    return this.#signInToken(entry!.user, entry!.credential, ttlSeconds);
  }

  /**
   * The principal of an open event stream as its user (and API key) is stored now (read again
   * after a change of users, roles or keys: the caches were dropped), or 401 STREAM_REVOKED when
   * it no longer stands: the user is gone or disabled, the password changed (a sign-in token),
   * a role it acts with was taken away, the API key it acts with was destroyed or its creator
   * lost the key's role, or its token was signed out. The token's expiry is not checked again:
   * a stream outlives it as before.
   */
  async recheck(principal: Principal): Promise<Principal> {
    const entry = await this.#principals.user(String(principal.user.id), false);
    const key = principal.apiKeyId === undefined ? undefined : { id: principal.apiKeyId, credential: principal.keyCredential ?? '' };
    let refused = entry === undefined ? 'the user no longer exists' : ticketRefusal(entry, { ...principal, ...(key === undefined ? {} : { apiKey: key }) });
    if (refused === undefined && key !== undefined) refused = await this.#keyRefusal(entry!, key);
    if (refused === undefined && this.tokens.isRevoked(principal.tokenId)) refused = 'the token has been signed out';
    if (refused !== undefined) throw new ApiError('STREAM_REVOKED', refused);
    return { ...principal, user: entry!.user };
  }

  /** Why an API key no longer stands for its creator as stored now (destroyed, another key, the role taken away), or undefined. */
  async #keyRefusal(entry: UserEntry, key: { readonly id: string; readonly credential: string }): Promise<string | undefined> {
    const keys = this.snapshot().get(API_KEYS);
    if (keys === undefined) return 'the API key has been revoked';
    try {
      await apiKeyRoles(this.#reads, keys, { id: key.id, proof: { credential: key.credential }, user: entry.user, held: rolesOf(entry.user) });
      return undefined;
    } catch (error) {
      if (error instanceof ApiError) return error.message;
      throw error;
    }
  }

  /** `cv`: the password's credential; `rl`: the roles held now (a token stops when one is taken away). */
  #signInToken(user: User, credential: string, ttlSeconds: number): Promise<string> {
    return this.sign({ sub: String(user.id), cv: credential, rl: rolesOf(user) }, ttlSeconds);
  }

  /** A signed token with a fresh id, expiring in `ttlSeconds`. */
  sign(claims: Record<string, string | string[]>, ttlSeconds: number, jti?: string): Promise<string> {
    return this.tokens.sign(claims, ttlSeconds, jti);
  }

  /** Revokes the principal's token on every node (TokenVerifier.revoke). */
  signOut(principal: Principal): Promise<void> {
    return this.tokens.revoke(principal.tokenId, principal.expiresAt);
  }

  /** A revocation learnt from elsewhere (another worker of this node). */
  noteRevoked(jti: string, expiresAt: number): void {
    this.tokens.noteRevoked(jti, expiresAt);
  }

  /** Called after each sign-out on this process (the worker passes it to its siblings). */
  onRevoked(listener: (jti: string, expiresAt: number) => void): void {
    this.tokens.onRevoked(listener);
  }
}

/**
 * Why a ticket (or an open stream's principal) no longer stands for its user as stored now, or
 * undefined when it does. An API key's role is checked with its row (#keyRefusal): root's keys
 * may act with a role root does not hold.
 */
function ticketRefusal(entry: UserEntry, holder: Pick<TicketHolder, 'credential' | 'roles' | 'apiKey'>): string | undefined {
  if (entry.user.disabled === true) return 'the user has been disabled';
  if (holder.credential !== undefined && holder.credential !== entry.credential) return 'the password has changed since; sign in again';
  if (holder.apiKey !== undefined) return undefined;
  const held = rolesOf(entry.user);
  if (holder.roles.some((role) => !held.includes(role))) return 'a role it acts with has been taken from the user; sign in again';
  return undefined;
}
