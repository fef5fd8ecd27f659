/**
 * The compressed bodies of recent answers, so that a page asked for again (a dashboard that
 * polls, a list every visitor opens) is compressed once. Keyed by the answer's strong entity tag
 * and coding, and an entry is used only when its source bytes equal the answer's: compression is
 * a function of those bytes alone, so no caller can be given what another was shown. Bounded by
 * the bytes it holds (source and output), the least recently used dropped first.
 */
export class CompressedCache {
  readonly #entries = new Map<string, { source: Buffer; output: Buffer }>();
  #bytes = 0;

  constructor(readonly maxBytes: number) {}

  get(key: string, source: Buffer): Buffer | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || !entry.source.equals(source)) return undefined;
    // Most recently used last: Map keeps insertion order.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.output;
  }

  set(key: string, source: Buffer, output: Buffer): void {
    const size = source.length + output.length;
    if (size > this.maxBytes / 8) return;
    const old = this.#entries.get(key);
    if (old !== undefined) {
      this.#entries.delete(key);
      this.#bytes -= old.source.length + old.output.length;
    }
    this.#entries.set(key, { source, output });
    this.#bytes += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.source.length + entry.output.length;
    }
  }

  /** Bytes held now (tests). */
  get bytes(): number {
    return this.#bytes;
  }
}
