/** Milliseconds since the epoch; injected so tests move time instead of sleeping. */
export type Clock = () => number;

interface Slot<V> {
  readonly value: V;
  readonly until: number;
}

/**
 * A bounded map whose entries expire: each lives `ttlMs` by the injected clock (or less,
 * given to `set`), and past `max` entries the oldest one is dropped (a Map iterates in insertion
 * order). A hit does not move its entry: a read costs one lookup, which every authenticated
 * request pays, and an entry lives no longer than its lifetime anyway. The auth layer's caches
 * (verified tokens, users, principals, role definitions) are all one of these.
 */
export class TtlCache<K, V> {
  readonly #slots = new Map<K, Slot<V>>();

  constructor(
    readonly ttlMs: number,
    readonly max: number,
    readonly clock: Clock = Date.now,
  ) {
    if (!(max >= 1)) throw new Error('a cache holds at least one entry');
  }

  /** The value, or undefined when absent or expired (an expired entry is dropped). */
  get(key: K): V | undefined {
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    if (this.clock() >= slot.until) {
      this.#slots.delete(key);
      return undefined;
    }
    return slot.value;
  }

  /** Keeps `value` for `ttlMs` (at most the cache's own lifetime); nothing is kept for 0 or less. */
  set(key: K, value: V, ttlMs: number = this.ttlMs): void {
    this.#slots.delete(key);
    const life = Math.min(ttlMs, this.ttlMs);
    if (!(life > 0)) return;
    if (this.#slots.size >= this.max) this.#slots.delete(this.#slots.keys().next().value as K);
    this.#slots.set(key, { value, until: this.clock() + life });
  }

  /** How long `key` has left, in ms (0 when absent or expired). */
  remaining(key: K): number {
    const slot = this.#slots.get(key);
    return slot === undefined ? 0 : Math.max(0, slot.until - this.clock());
  }

  delete(key: K): void {
    this.#slots.delete(key);
  }

  clear(): void {
    this.#slots.clear();
  }

  /** Entries held, expired ones not yet dropped included. */
  get size(): number {
    return this.#slots.size;
  }
}
