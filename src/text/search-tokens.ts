/** Longest token kept; longer words are cut (a search word is cut the same way). */
export const MAX_TOKEN_LENGTH = 64;
/** Most words a `$search` term holds (a named limit with its own error, request/filter-limits.ts). */
export const MAX_SEARCH_WORDS = 16;

const MARKS = /\p{M}+/gu;
const SEPARATORS = /[^\p{L}\p{N}]+/u;

/**
 * The words of a text as search tokens: compatibility-decomposed (NFKD), marks stripped,
 * lower-cased, split on every run of characters that are neither letters nor digits, cut to
 * MAX_TOKEN_LENGTH code points. The one normalisation of `$search`: the token table, the
 * search words and the in-memory evaluator all use it.
 */
export function tokenize(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(MARKS, '')
    .toLowerCase()
    .split(SEPARATORS)
    .filter((word) => word !== '')
    .map((word) => (word.length > MAX_TOKEN_LENGTH ? [...word].slice(0, MAX_TOKEN_LENGTH).join('') : word));
}

/** The distinct tokens of several texts (a row's searchable fields), NULLs skipped. */
export function rowTokens(texts: readonly unknown[]): string[] {
  const tokens = new Set<string>();
  for (const text of texts) if (typeof text === 'string') for (const token of tokenize(text)) tokens.add(token);
  return [...tokens];
}

/** A character after every other one, so `[word, word + TOKEN_END)` holds exactly the tokens starting with `word` under binary order. */
export const TOKEN_END = '\u{10FFFF}';

/** True when every word is a prefix of some token of the texts: the meaning of `$search`. */
export function matchesSearch(words: readonly string[], texts: readonly unknown[]): boolean {
  const tokens = rowTokens(texts);
  return words.every((word) => tokens.some((token) => token.startsWith(word)));
}
