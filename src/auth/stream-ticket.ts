import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import type { QueryParams } from '../request/query-params.js';
import type { Principal } from '../request/principal.js';
import type { Clock } from './rate-limiter.js';

/** How long a stream ticket may be redeemed: long enough to open an EventSource, too short to be worth stealing. */
export const STREAM_TICKET_TTL_MS = 60_000;
/** Redeemed tickets remembered at most (each only until it expires); a flood beyond is refused, not forgotten. */
export const MAX_REDEEMED_TICKETS = 100_000;

const VERSION = 'st1';

/** What a ticket stands for, as signed. */
interface TicketClaims {
  /** The user. */
  readonly u: string;
  /** The one role the stream acts with (X-Role), or none: every role the user holds. */
  readonly r?: string;
  /** The collection. */
  readonly c: string;
  /** A digest of the subscription: filter, fields, except, time zone (subscriptionDigest). */
  readonly s: string;
  /** The id of the token the ticket was asked with: signing that token out voids the ticket. */
  readonly t: string;
  /** The token's password credential (a sign-in token; none for an API key): a password change since voids the ticket. */
  readonly v?: string;
  /** The roles the ticket was asked with: taking one from the user voids the ticket. */
  readonly l: readonly string[];
  /** The API key it was asked with (id and credential): destroying the key voids the ticket. */
  readonly k?: string;
  readonly kv?: string;
  /** Expiry, ms since the epoch. */
  readonly e: number;
  /** A random id, what makes it single-use. */
  readonly n: string;
}

/** Who a redeemed ticket lets open the stream. */
export interface TicketHolder {
  readonly userId: string;
  readonly role?: string;
  /** The credential the ticket was asked with (none: asked with an API key, which a password change leaves alone). */
  readonly credential?: string;
  /** The roles the ticket was asked with: the user must still hold each (an API key's: its row decides). */
  readonly roles: readonly string[];
  /** The API key it was asked with: the key must still stand (not destroyed, its creator holding its role). */
  readonly apiKey?: { readonly id: string; readonly credential: string };
}

/**
 * The subscription a ticket is bound to: the parameters that choose what the stream shows
 * (`after` and Last-Event-ID only choose where it starts, so a stream resumes with a new ticket
 * without asking for a different one).
 */
export function subscriptionDigest(params: QueryParams): string {
  const shape = JSON.stringify([params.filter ?? null, params.fields ?? null, params.except ?? null, params.timeZone ?? null]);
  return createHash('sha256').update(shape).digest('base64url').slice(0, 22);
}

/**
 * Short-lived, single-purpose tickets for opening an event stream where no header can be sent
 * (a browser's EventSource): `POST /api/<c>:subscribe` issues one, `GET /api/<c>:subscribe?ticket=`
 * redeems it (docs/events.md). A ticket is HMAC-signed with a key derived from the token secret,
 * so every node and worker checks it without a database write; it names the user, the role,
 * the collection, the subscription, the token it was asked with and that token's generation
 * (its password credential and roles: a password change or a role taken away since voids the
 * ticket, STREAM_TICKET_REVOKED, checked by Authenticator.ticketToken), lives a minute, and each
 * process redeems it once. Stateless signing was chosen over a stored ticket: opening a stream
 * costs no write, and a ticket replayed on another worker within its minute opens only the very
 * stream its user may open anyway, checked afresh (user, roles, token not signed out).
 */
export class StreamTickets {
  #key: Buffer | undefined;
  /** Redeemed nonces until their expiry (this process). */
  readonly #redeemed = new Map<string, number>();

  constructor(
    private readonly secret: () => Uint8Array,
    private readonly revoked: (tokenId: string) => boolean,
    private readonly clock: Clock = Date.now,
  ) {}

  /** The signing key: derived, so a ticket's MAC can never stand for a token's signature. */
  #mac(text: string): Buffer {
    this.#key ??= createHmac('sha256', this.secret()).update('corral stream ticket key').digest();
    return createHmac('sha256', this.#key).update(text).digest();
  }

  /** A ticket for `principal` to open the stream of `collection` with these parameters. */
  issue(principal: Principal, collection: string, params: QueryParams): { ticket: string; expiresAt: string } {
    // An API key acts with its own role: the stream must not widen it to the user's other roles.
    const role = principal.roles.length === 1 ? principal.roles[0] : undefined;
    if (role === undefined && principal.apiKeyId !== undefined) throw new ApiError('FORBIDDEN', 'a stream ticket for an API key needs the one role it acts with (X-Role)');
    const expires = this.clock() + STREAM_TICKET_TTL_MS;
    const claims: TicketClaims = {
      u: String(principal.user.id),
      ...(role === undefined ? {} : { r: role }),
      c: collection,
      s: subscriptionDigest(params),
      t: principal.tokenId,
      ...(principal.credential === undefined ? {} : { v: principal.credential }),
      l: principal.roles,
      ...(principal.apiKeyId === undefined ? {} : { k: principal.apiKeyId, kv: principal.keyCredential ?? '' }),
      e: expires,
      n: randomBytes(12).toString('base64url'),
    };
    const body = `${VERSION}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return { ticket: `${body}.${this.#mac(body).toString('base64url')}`, expiresAt: new Date(expires).toISOString() };
  }

  /**
   * The holder of a valid ticket for this collection and subscription; 401 STREAM_TICKET_INVALID
   * (malformed, tampered, another collection or subscription, its token signed out),
   * STREAM_TICKET_EXPIRED, or STREAM_TICKET_USED.
   */
  redeem(ticket: string, collection: string, params: QueryParams): TicketHolder {
    const parts = ticket.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION) throw new ApiError('STREAM_TICKET_INVALID');
    const given = Buffer.from(parts[2]!, 'base64url');
    const expected = this.#mac(`${parts[0]}.${parts[1]}`);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new ApiError('STREAM_TICKET_INVALID');
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as TicketClaims;
    const now = this.clock();
    if (!(now < claims.e)) throw new ApiError('STREAM_TICKET_EXPIRED');
    if (claims.c !== collection) throw new ApiError('STREAM_TICKET_INVALID', `the ticket opens the stream of another collection, not ${collection}`);
    if (claims.s !== subscriptionDigest(params)) throw new ApiError('STREAM_TICKET_INVALID', 'the ticket was issued for another filter, fields or except: send the query it was asked with');
    if (this.revoked(claims.t)) throw new ApiError('STREAM_TICKET_INVALID', 'the token the ticket was asked with has been signed out');
    this.#forgetExpired(now);
    if (this.#redeemed.has(claims.n)) throw new ApiError('STREAM_TICKET_USED');
    if (this.#redeemed.size >= MAX_REDEEMED_TICKETS) throw new ApiError('RATE_LIMITED', 'too many stream tickets redeemed in the last minute');
    this.#redeemed.set(claims.n, claims.e);
    const roles = Array.isArray(claims.l) ? claims.l.filter((role): role is string => typeof role === 'string') : [];
    const apiKey = typeof claims.k === 'string' && typeof claims.kv === 'string' ? { apiKey: { id: claims.k, credential: claims.kv } } : {};
    return { userId: claims.u, ...(claims.r === undefined ? {} : { role: claims.r }), ...(typeof claims.v === 'string' ? { credential: claims.v } : {}), roles, ...apiKey };
  }

  #forgetExpired(now: number): void {
    // Insertion order is nearly expiry order (one lifetime for all): stop at the first live one.
    for (const [nonce, expires] of this.#redeemed) {
      if (expires > now) break;
      this.#redeemed.delete(nonce);
    }
  }
}
