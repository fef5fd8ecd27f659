import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { isReadOnlyRefusal } from '../db/driver-error.js';
import { ApiError } from '../errors/api-error.js';
import type { TokenRows } from '../store/system/auth-tables.js';
import { TtlCache, type Clock } from './ttl-cache.js';

const ALGORITHM = 'HS256';
const ISSUER = 'corral';
/** Revocations are read again with this overlap, so one committed late is not missed. */
const REVOCATION_OVERLAP_MS = 5000;
const PRUNE_EVERY_MS = 10 * 60 * 1000;
/**
 * A verified token's claims are reused for this long (never past its expiry): verifying an
 * HS256 JWT costs more than the rest of a small read. Revocation is still checked on every
 * request (against the jti), so a cached token stops working at sign-out like any other.
 */
const VERIFIED_TOKEN_MS = 60_000;
const MAX_VERIFIED_TOKENS = 10_000;

/**
 * Token text → claims: signs tokens, verifies them (caching the claims of good ones), and
 * knows which token ids are revoked. Every node shares the secret and the revocation table;
 * each keeps a copy of the revocations it refreshes every poll (its own apply at once).
 */
export class TokenVerifier {
  #secret!: Uint8Array;
  readonly #revoked = new Map<string, number>();
  #revokedSeenAt = 0;
  #lastPrune = 0;
  readonly #verified: TtlCache<string, JWTPayload>;
  #onRevoked: ((jti: string, expiresAt: number) => void) | undefined;

  constructor(
    private readonly rows: TokenRows,
    private readonly clock: Clock,
  ) {
    this.#verified = new TtlCache(VERIFIED_TOKEN_MS, MAX_VERIFIED_TOKENS, clock);
  }

  async init(configuredSecret: string | undefined): Promise<void> {
    this.#secret = await this.rows.loadSecret(configuredSecret);
    await this.refreshRevocations();
  }

  /** A signed token with a fresh id, expiring in `ttlSeconds`. */
  async sign(claims: Record<string, string | string[]>, ttlSeconds: number, jti: string = randomUUID()): Promise<string> {
    const now = Math.floor(this.clock() / 1000);
    return new SignJWT(claims).setProtectedHeader({ alg: ALGORITHM }).setIssuer(ISSUER).setIssuedAt(now).setJti(jti).setExpirationTime(now + ttlSeconds).sign(this.#secret);
  }

  /** The claims of a well-signed, unexpired token (401 AUTH_INVALID_TOKEN otherwise). */
  async verify(token: string): Promise<JWTPayload> {
    const cached = this.#verified.get(token);
    if (cached !== undefined) return cached;
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.#secret, { algorithms: [ALGORITHM], issuer: ISSUER, currentDate: new Date(this.clock()) }));
    } catch (error) {
      const expired = error instanceof joseErrors.JWTExpired;
      throw new ApiError('AUTH_INVALID_TOKEN', expired ? 'the token has expired' : undefined, { cause: error });
    }
    if (typeof payload.exp === 'number') this.#verified.set(token, payload, payload.exp * 1000 - this.clock());
    return payload;
  }

  /** How much longer the token's verified claims are reused (0: verified again next time). */
  verifiedFor(token: string): number {
    return this.#verified.remaining(token);
  }

  /** The signing secret, for keys derived from it (stream tickets). */
  get secret(): Uint8Array {
    return this.#secret;
  }

  isRevoked(jti: string): boolean {
    return this.#revoked.has(jti);
  }

  async refreshRevocations(now = this.clock()): Promise<void> {
    const since = this.#revokedSeenAt - REVOCATION_OVERLAP_MS;
    const rows = await this.rows.revokedSince(since);
    for (const row of rows) this.#revoked.set(row.jti, row.expiresAt);
    this.#revokedSeenAt = now;
    if (now - this.#lastPrune > PRUNE_EVERY_MS) {
      this.#lastPrune = now;
      for (const [jti, expiresAt] of this.#revoked) if (expiresAt < now) this.#revoked.delete(jti);
      // A role that may only read keeps the expired rows (docs/existing-databases.md#read-only-roles).
      await this.rows.pruneRevocations(now).catch((error: unknown) => {
        if (!isReadOnlyRefusal(error)) throw error;
      });
    }
  }

  /**
   * Revokes the token on every node: at once here and (through `onRevoked`, the cluster's
   * message) on this node's other workers, within a poll interval on other nodes.
   */
  async revoke(jti: string, expiresAt: number): Promise<void> {
    await this.rows.insertRevocation(jti, expiresAt, this.clock());
    this.noteRevoked(jti, expiresAt);
    this.#onRevoked?.(jti, expiresAt);
  }

  /** A revocation learnt from elsewhere (another worker of this node). */
  noteRevoked(jti: string, expiresAt: number): void {
    this.#revoked.set(jti, expiresAt);
  }

  /** Called after each sign-out on this process (the worker passes it to its siblings). */
  onRevoked(listener: (jti: string, expiresAt: number) => void): void {
    this.#onRevoked = listener;
  }
}
