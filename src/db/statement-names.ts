/** Named statements a connection may keep prepared; beyond this a text runs unnamed (still correct). */
export const MAX_NAMED_STATEMENTS = 20_000;

/**
 * SQL texts worth preparing once per connection, each with a stable name. The shape cache
 * registers the text of every statement it keeps; on PostgreSQL the pool's clients send a
 * registered text as the named prepared statement (see database.ts), others ignore it.
 */
export class StatementNames {
  readonly #names = new Map<string, string>();
  #issued = 0;

  /** The name of a registered text (its hash is cached on the string, so lookups stay cheap). */
  nameOf(text: string): string | undefined {
    return this.#names.get(text);
  }

  /**
   * Gives the text a new name. The shape cache registers a text once per schema snapshot, so
   * after a schema change the same text is prepared afresh under a new name: a statement
   * PostgreSQL prepared before a column changed type would fail with "cached plan must not
   * change result type" on every run. Past the limit a text runs unnamed.
   */
  register(text: string): void {
    if (this.#issued >= MAX_NAMED_STATEMENTS) {
      this.#names.delete(text);
      return;
    }
    this.#names.set(text, `q${++this.#issued}`);
  }
}
