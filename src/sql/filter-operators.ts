import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { FilterNode } from '../plan/filter-node.js';
import { asciiLower, escapeLike, likeText, likeTokens, type LikeToken } from '../plan/like-pattern.js';
import type { Dialect } from '../schema/types.js';
import { KEY_ONLY, type SqlPass } from './sql-pass.js';

/**
 * SQL for the text, pattern and array operators, per dialect, written in one pass with their
 * shape key (see `sql-pass.ts`): each writer appends the operator's key fragment, pushes its
 * driver values in binding order and, when the pass emits, builds the SQL binding exactly
 * those values. `column` is the column expression (`KEY_ONLY` when the pass does not emit).
 *
 * Case folding is ASCII-only everywhere (non-ASCII letters compare exactly): SQLite's LIKE
 * and PostgreSQL's ILIKE under the columns' "C" collation fold A–Z only; MySQL's LOWER folds
 * all of Unicode, so MySQL matches with REGEXP, spelling each ASCII letter as `[aA]`.
 */

type TextNode = Extract<FilterNode, { kind: 'text' }>;
type LikeNode = Extract<FilterNode, { kind: 'like' }>;
type ArrayNode = Extract<FilterNode, { kind: 'array' }>;
export type OperatorNode = TextNode | LikeNode | ArrayNode;

const ASCII_LETTER = /^[A-Za-z]$/;
const ASCII_ALNUM = /^[A-Za-z0-9]$/;

/** One character in a PCRE / ICU regular expression: literal, or `[aA]` when folding case. */
function regexChar(char: string, foldCase: boolean): string {
  if (foldCase && ASCII_LETTER.test(char)) return `[${char.toLowerCase()}${char.toUpperCase()}]`;
  // A backslash before any ASCII character other than a letter or digit makes it literal.
  if (char.length === 1 && char.charCodeAt(0) < 0x80 && !ASCII_ALNUM.test(char)) return `\\${char}`;
  return char;
}

/** `(?s)` lets `.` match a newline as LIKE's `_` does; `\z` is the very end (`$` allows a final newline). */
function regexOf(tokens: readonly LikeToken[], foldCase: boolean, anchorStart: boolean, anchorEnd: boolean): string {
  const body = tokens.map((t) => (t.kind === 'any' ? '.*' : t.kind === 'one' ? '.' : regexChar(t.char, foldCase))).join('');
  return `(?s)${anchorStart ? '^' : ''}${body}${anchorEnd ? '\\z' : ''}`;
}

const literalTokens = (text: string): LikeToken[] => [...text].map((char) => ({ kind: 'char', char }));

/** The driver value of one substring term. */
function textParam(op: TextNode['op'], term: string, dialect: Dialect): string {
  if (dialect === 'mysql') return regexOf(literalTokens(term), true, op === 'startsWith', op === 'endsWith');
  const escaped = escapeLike(asciiLower(term));
  return `${op === 'startsWith' ? '' : '%'}${escaped}${op === 'endsWith' ? '' : '%'}`;
}

const strings = (node: ArrayNode): string[] => node.values.filter((v): v is string => typeof v === 'string');
const numbers = (node: ArrayNode): number[] => node.values.filter((v): v is number => typeof v === 'number');

function likeParam(node: LikeNode, dialect: Dialect): string {
  const tokens = likeTokens(node.pattern);
  if (dialect === 'mysql') return regexOf(tokens, node.op === 'iLike', true, true);
  if (dialect === 'sqlite' && node.op === 'like') {
    // GLOB is SQLite's case-sensitive LIKE: `*` any run, `?` one character, `[x]` a literal x.
    return tokens.map((t) => (t.kind === 'any' ? '*' : t.kind === 'one' ? '?' : '*?['.includes(t.char) ? `[${t.char}]` : t.char)).join('');
  }
  return likeText(tokens);
}

/** The substring test of one term, on a dialect; `term` is already the driver value. */
function textTerm(column: Expression<unknown>, term: RawBuilder<unknown>, dialect: Dialect): RawBuilder<SqlBool> {
  if (dialect === 'mysql') return sql<SqlBool>`${column} regexp ${term}`;
  if (dialect === 'postgres') return sql<SqlBool>`${column} ilike ${term} escape '\\'`;
  return sql<SqlBool>`${column} like ${term} escape '\\'`;
}

/** Any of the terms is a substring (a prefix, a suffix) of the column; no terms is false. */
export function textSql(node: TextNode, column: Expression<unknown>, pass: SqlPass): Expression<SqlBool> {
  const { dialect } = pass;
  pass.key += `t:${node.op}:${node.field.name}:${node.values.length}`;
  const terms: RawBuilder<SqlBool>[] = [];
  for (const term of node.values) {
    const value = pass.value(textParam(node.op, term, dialect));
    if (pass.emit) terms.push(textTerm(column, value, dialect));
  }
  if (!pass.emit) return KEY_ONLY;
  if (terms.length === 0) return sql<SqlBool>`1 = 0`;
  return terms.length === 1 ? terms[0]! : sql<SqlBool>`(${sql.join(terms, sql` or `)})`;
}

export function likeSql(node: LikeNode, column: Expression<unknown>, pass: SqlPass): Expression<SqlBool> {
  const { dialect } = pass;
  pass.key += `k:${node.op}:${node.field.name}`;
  const pattern = pass.value(likeParam(node, dialect));
  if (!pass.emit) return KEY_ONLY;
  if (dialect === 'mysql') return sql<SqlBool>`${column} regexp ${pattern}`;
  if (dialect === 'sqlite') return node.op === 'like' ? sql<SqlBool>`${column} glob ${pattern}` : sql<SqlBool>`${column} like ${pattern} escape '\\'`;
  return node.op === 'like' ? sql<SqlBool>`${column} like ${pattern} escape '\\'` : sql<SqlBool>`${column} ilike ${pattern} escape '\\'`;
}

/** The elements of an array column as a row source aliased `corral_el`. */
function elements(column: Expression<unknown>, dialect: Dialect): RawBuilder<unknown> {
  if (dialect === 'sqlite') return sql`json_each(${column}) as corral_el`;
  if (dialect === 'postgres') return sql`jsonb_array_elements(${column}) as corral_el(v)`;
  return sql`json_table(${column}, '$[*]' columns (v json path '$')) as corral_el`;
}

/**
 * An element of `corral_el` equals one of the node's values (same JSON type and value). The
 * values bind as the value itself on SQLite (strings, then numbers), as JSON text elsewhere;
 * the key was written by the caller (`arraySql`, which counts strings and numbers).
 */
function elementIn(node: ArrayNode, pass: SqlPass): RawBuilder<SqlBool> {
  const { dialect } = pass;
  if (dialect === 'sqlite') {
    const texts = strings(node).map((value) => pass.value(value));
    const nums = numbers(node).map((value) => pass.value(value));
    if (!pass.emit) return KEY_ONLY;
    const parts: RawBuilder<SqlBool>[] = [];
    if (texts.length > 0) parts.push(sql<SqlBool>`(corral_el.type = 'text' and corral_el.value in (${sql.join(texts)}))`);
    if (nums.length > 0) parts.push(sql<SqlBool>`(corral_el.type in ('integer', 'real') and corral_el.value in (${sql.join(nums)}))`);
    return sql<SqlBool>`(${sql.join(parts, sql` or `)})`;
  }
  const values = node.values.map((value) => pass.value(JSON.stringify(value)));
  if (!pass.emit) return KEY_ONLY;
  if (dialect === 'postgres') return sql<SqlBool>`corral_el.v in (${sql.join(values.map((value) => sql`cast(${value} as jsonb)`))})`;
  // JSON text compared byte for byte: Corral writes arrays with JSON.stringify, as the values are spelled.
  return sql<SqlBool>`cast(corral_el.v as binary) in (${sql.join(values.map((value) => sql`cast(${value} as binary)`))})`;
}

/** A distinct key of an element, for counting how many of the wanted values a row holds. */
const elementKey = (dialect: Dialect): RawBuilder<unknown> =>
  dialect === 'sqlite' ? sql`corral_el.value` : dialect === 'postgres' ? sql`corral_el.v` : sql`cast(corral_el.v as binary)`;

function emptyArraySql(column: Expression<unknown>, pass: SqlPass): Expression<SqlBool> {
  if (!pass.emit) return KEY_ONLY;
  if (pass.dialect === 'sqlite') return sql<SqlBool>`json_array_length(${column}) = 0`;
  if (pass.dialect === 'postgres') return sql<SqlBool>`jsonb_array_length(${column}) = 0`;
  return sql<SqlBool>`json_length(${column}) = 0`;
}

export function arraySql(node: ArrayNode, column: Expression<unknown>, pass: SqlPass): Expression<SqlBool> {
  const { dialect } = pass;
  const count = node.values.length;
  const op = node.op === 'match' && count === 0 ? 'empty' : node.op;
  pass.key += `a:${op}:${node.field.name}`;
  // The element test's text depends on how many strings and numbers it holds (on SQLite, which of the two).
  if (op !== 'empty') pass.key += dialect === 'sqlite' ? `:${strings(node).length}:${numbers(node).length}` : `:${count}`;
  switch (op) {
    case 'empty':
      return emptyArraySql(column, pass);
    case 'anyOf': {
      if (count === 0) return pass.emit ? sql<SqlBool>`1 = 0` : KEY_ONLY;
      const test = elementIn(node, pass);
      return pass.emit ? sql<SqlBool>`exists (select 1 from ${elements(column, dialect)} where ${test})` : KEY_ONLY;
    }
    case 'match': {
      // Nothing outside the set, and every member of the set present (values are distinct):
      // the element test appears twice, so its values bind twice.
      const outside = elementIn(node, pass);
      const inside = elementIn(node, pass);
      if (!pass.emit) return KEY_ONLY;
      const no = dialect === 'postgres' ? sql`false` : sql`0`;
      return sql<SqlBool>`(not exists (select 1 from ${elements(column, dialect)} where not coalesce(${outside}, ${no})) and (select count(distinct ${elementKey(dialect)}) from ${elements(column, dialect)} where ${inside}) = ${sql.lit(count)})`;
    }
  }
}
