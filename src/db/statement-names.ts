/** Named statements a connection may keep prepared; beyond this a text runs unnamed (still correct). */
export const MAX_NAMED_STATEMENTS = 20_000;

/**
 * SQL texts worth preparing once per connection, each with a stable name. The shape cache
 * registers the text of every statement it keeps; on PostgreSQL the pool's clients send a
 * registered text as the named prepared statement (see database.ts), others ignore it.
 */
export class StatementNames {
  readonly #names = new Map<string, string>();

  /** The name of a registered text (its hash is cached on the string, so lookups stay cheap). */
  nameOf(text: string): string | undefined {
    return this.#names.get(text);
  }

  register(text: string): void {
    if (this.#names.has(text) || this.#names.size >= MAX_NAMED_STATEMENTS) return;
    this.#names.set(text, `q${this.#names.size + 1}`);
  }
}
