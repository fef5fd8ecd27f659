import { asciiLower, escapeLike, type LikeToken } from '../../text/like-pattern.js';

/**
 * Driver values of the text and pattern operators, shared by the adapters: a LIKE pattern
 * (SQLite, PostgreSQL) or a PCRE / ICU regular expression (MySQL, whose LOWER folds all of
 * Unicode while Corral folds ASCII only).
 */

/** A substring (prefix, suffix) term as a LIKE pattern, ASCII-lowered for a folding LIKE / ILIKE. */
export function likeSubstring(term: string, anchorStart: boolean, anchorEnd: boolean): string {
  return `${anchorStart ? '' : '%'}${escapeLike(asciiLower(term))}${anchorEnd ? '' : '%'}`;
}

const ASCII_LETTER = /^[A-Za-z]$/;
const ASCII_ALNUM = /^[A-Za-z0-9]$/;

/** One character in a regular expression: literal, or `[aA]` when folding case. */
function regexChar(char: string, foldCase: boolean): string {
  if (foldCase && ASCII_LETTER.test(char)) return `[${char.toLowerCase()}${char.toUpperCase()}]`;
  // A backslash before any ASCII character other than a letter or digit makes it literal.
  if (char.length === 1 && char.charCodeAt(0) < 0x80 && !ASCII_ALNUM.test(char)) return `\\${char}`;
  return char;
}

/** `(?s)` lets `.` match a newline as LIKE's `_` does; `\z` is the very end (`$` allows a final newline). */
export function regexOf(tokens: readonly LikeToken[], foldCase: boolean, anchorStart: boolean, anchorEnd: boolean): string {
  const body = tokens.map((t) => (t.kind === 'any' ? '.*' : t.kind === 'one' ? '.' : regexChar(t.char, foldCase))).join('');
  return `(?s)${anchorStart ? '^' : ''}${body}${anchorEnd ? '\\z' : ''}`;
}

export const literalTokens = (text: string): LikeToken[] => [...text].map((char) => ({ kind: 'char', char }));
