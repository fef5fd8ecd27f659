/**
 * Text matching rules shared by the SQL compiler and the in-memory evaluator: ASCII-only case
 * folding and LIKE pattern tokens (`%` any run, `_` one character, `\` makes the next one literal).
 */

/** A–Z to a–z; every other character, non-ASCII letters included, stays as it is. */
export const asciiLower = (text: string): string => text.replace(/[A-Z]+/g, (run) => run.toLowerCase());

export type LikeToken = { kind: 'any' } | { kind: 'one' } | { kind: 'char'; char: string };

/** Splits a raw LIKE pattern into tokens (by code point). A trailing lone `\` is a literal `\`. */
export function likeTokens(pattern: string): LikeToken[] {
  const chars = [...pattern];
  const tokens: LikeToken[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) tokens.push({ kind: 'char', char: chars[++i]! });
    else if (c === '%') tokens.push({ kind: 'any' });
    else if (c === '_') tokens.push({ kind: 'one' });
    else tokens.push({ kind: 'char', char: c });
  }
  return tokens;
}

/** A term made literal inside a LIKE pattern with `\` as the escape character. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Tokens back to a LIKE pattern in the canonical escaped form (escape character `\`). */
export const likeText = (tokens: readonly LikeToken[]): string =>
  tokens.map((t) => (t.kind === 'any' ? '%' : t.kind === 'one' ? '_' : escapeLike(t.char))).join('');

/** Whether `value` matches the pattern; `foldCase` folds ASCII letters only. */
export function likeMatches(value: string, pattern: string, foldCase: boolean): boolean {
  const fold = foldCase ? asciiLower : (text: string) => text;
  const source = likeTokens(pattern)
    .map((t) => (t.kind === 'any' ? '.*' : t.kind === 'one' ? '.' : fold(t.char).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')))
    .join('');
  return new RegExp(`^(?:${source})$`, 'su').test(fold(value));
}
