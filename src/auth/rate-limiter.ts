/** Failed sign-ins allowed per account, and per client address, inside one window. */
export const ACCOUNT_FAILURES = 5;
export const ADDRESS_FAILURES = 20;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** Keys tracked at most, so a flood of made-up accounts cannot grow memory without bound. */
const MAX_KEYS = 100_000;

/**
 * Counts failures per key in a sliding window (per node: a client spreading guesses over N
 * nodes gets N times the budget, still far from a useful guessing rate).
 */
export class FailureLimiter {
  readonly #failures = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number = FAILURE_WINDOW_MS,
  ) {}

  /** Seconds until `key` may try again, or 0 when it may now. */
  retryAfter(key: string, now = Date.now()): number {
    const recent = this.#recent(key, now);
    if (recent.length < this.limit) return 0;
    return Math.max(1, Math.ceil((recent[recent.length - this.limit]! + this.windowMs - now) / 1000));
  }

  fail(key: string, now = Date.now()): void {
    if (this.#failures.size >= MAX_KEYS) this.#failures.delete(this.#failures.keys().next().value!);
    const recent = this.#recent(key, now);
    recent.push(now);
    this.#failures.set(key, recent);
  }

  reset(key: string): void {
    this.#failures.delete(key);
  }

  #recent(key: string, now: number): number[] {
    const list = this.#failures.get(key);
    if (list === undefined) return [];
    const kept = list.filter((at) => at > now - this.windowMs);
    if (kept.length === 0) this.#failures.delete(key);
    else this.#failures.set(key, kept);
    return kept;
  }
}
