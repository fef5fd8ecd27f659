import { createHash, randomUUID } from 'node:crypto';
import { ApiError } from '../errors/api-error.js';
import type { SignInFailures } from '../store/system/sign-in-failures.js';
import type { Clock } from './ttl-cache.js';

/** Failed sign-ins allowed per account, and per client address, inside one window. */
export const ACCOUNT_FAILURES = 5;
export const ADDRESS_FAILURES = 20;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** How often a process deletes failures older than the window. */
export const PRUNE_FAILURES_EVERY_MS = 10 * 60 * 1000;

export type { Clock } from './ttl-cache.js';

/** The account a sign-in names: the user once resolved, else the spelling (lower case, hashed to a fixed length). */
export function accountKey(userId: unknown, spelling: string): string {
  if (userId !== undefined && userId !== null) return `user:${String(userId)}`;
  return `name:${createHash('sha256').update(spelling.toLowerCase()).digest('base64url')}`;
}

/** A sign-in in progress: recorded as a failure until `succeeded` clears it. */
export interface SignInAttempt {
  /** The password was right: the account's failures (this attempt's included) are forgotten. */
  succeeded(): Promise<void>;
}

/**
 * Counts failed sign-ins per account and per client address in a sliding window, in a table
 * every worker and node shares (corral_sign_in_failures, one row per failure).
 *
 * An attempt is written as a failure before the password is checked, and only then are the
 * counts read: concurrent guesses see each other, so no burst gets past a limit. A refused
 * attempt (429) is taken back; a right password clears the account's rows.
 *
 * The address limit stops guessing spread over many accounts from one address (and the
 * password hashing it costs), but behind a shared address (a NAT, a proxy not listed in
 * CORRAL_TRUSTED_PROXIES) it must not lock everyone out: it applies only to accounts that are
 * unknown or have failures of their own in the window.
 */
export class SignInLimiter {
  #lastPrune = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly failures: SignInFailures,
    private readonly clock: Clock,
  ) {}

  /** Records the attempt, or refuses it with 429 RATE_LIMITED and Retry-After when a limit is reached. */
  async begin(account: string, client: string, known: boolean): Promise<SignInAttempt> {
    // The column's width; an address is at most 45 characters (IPv6 with an IPv4 tail) plus a zone.
    const address = client.slice(0, 64);
    const now = this.clock();
    const since = now - FAILURE_WINDOW_MS;
    if (now - this.#lastPrune >= PRUNE_FAILURES_EVERY_MS) {
      this.#lastPrune = now;
      // A scan of a table that holds one window of failures, once per PRUNE_FAILURES_EVERY_MS per process.
      await this.failures.prune(since);
    }
    const id = randomUUID();
    await this.failures.record(account, address, now, id);
    const byAccount = await this.#others('account', account, since, id, ACCOUNT_FAILURES);
    let wait = this.#wait(byAccount, ACCOUNT_FAILURES, now);
    if (!known || byAccount.length > 0) wait = Math.max(wait, this.#wait(await this.#others('address', address, since, id, ADDRESS_FAILURES), ADDRESS_FAILURES, now));
    if (wait > 0) {
      await this.failures.takeBack(account, now, id);
      throw new ApiError('RATE_LIMITED', 'too many failed sign-ins; try again later', { headers: { 'retry-after': String(wait) } });
    }
    return {
      succeeded: async () => {
        await this.failures.clear(account);
      },
    };
  }

  /** When the other recent failures of one key happened, newest first (at most `limit` of them). */
  #others(column: 'account' | 'address', key: string, since: number, own: string, limit: number): Promise<number[]> {
    return this.failures.recent(column, key, since, own, limit);
  }

  /** Seconds until the oldest of `limit` failures leaves the window, or 0 when there are fewer. */
  #wait(recent: readonly number[], limit: number, now: number): number {
    if (recent.length < limit) return 0;
    return Math.max(1, Math.ceil((recent[limit - 1]! + FAILURE_WINDOW_MS - now) / 1000));
  }
}
