/**
 * One piece of work at a time per storage key in this process: an upload stores its object and
 * commits its row, and a release checks for rows and removes the object, never interleaved, so a
 * release cannot remove the bytes of an upload of the same content that is about to commit.
 */
export class KeyLocks {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve();
    const mine = before.then(work, work);
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    try {
      return await mine;
    } finally {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
