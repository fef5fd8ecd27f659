import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { ArrayElement, FilterNode } from '../plan/filter-node.js';
import { asciiLower, escapeLike, likeText, likeTokens, type LikeToken } from '../plan/like-pattern.js';
import type { Dialect } from '../schema/types.js';

/**
 * SQL for the text, pattern and array operators, per dialect. Every function takes the bound
 * node and the column expression and binds exactly `operatorParams(node, dialect)`, in order,
 * so the query cache can check a shape's parameters.
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

/** Canonical driver form of an array element: JSON text on PostgreSQL and MySQL, the value on SQLite. */
const elementParam = (value: ArrayElement, dialect: Dialect): unknown => (dialect === 'sqlite' ? value : JSON.stringify(value));

const strings = (node: ArrayNode): string[] => node.values.filter((v): v is string => typeof v === 'string');
const numbers = (node: ArrayNode): number[] => node.values.filter((v): v is number => typeof v === 'number');

/** Parameters of an array element test, in binding order (strings, then numbers on SQLite). */
function elementParams(node: ArrayNode, dialect: Dialect): unknown[] {
  if (dialect === 'sqlite') return [...strings(node), ...numbers(node)];
  return node.values.map((value) => elementParam(value, dialect));
}

/** The driver values an operator binds, in order. */
export function operatorParams(node: OperatorNode, dialect: Dialect): unknown[] {
  switch (node.kind) {
    case 'text':
      return node.values.map((term) => textParam(node.op, term, dialect));
    case 'like':
      return [likeParam(node, dialect)];
    case 'array':
      if (node.op === 'empty') return [];
      return node.op === 'match' ? [...elementParams(node, dialect), ...elementParams(node, dialect)] : elementParams(node, dialect);
  }
}

/** The operator's part of a query shape: everything but the values that decides its SQL text. */
export function operatorShape(node: OperatorNode): string {
  switch (node.kind) {
    case 'text':
      return `t:${node.op}:${node.field.name}:${node.values.length}`;
    case 'like':
      return `k:${node.op}:${node.field.name}`;
    case 'array':
      return `a:${node.op}:${node.field.name}:${strings(node).length}:${numbers(node).length}`;
  }
}

function likeParam(node: LikeNode, dialect: Dialect): string {
  const tokens = likeTokens(node.pattern);
  if (dialect === 'mysql') return regexOf(tokens, node.op === 'iLike', true, true);
  if (dialect === 'sqlite' && node.op === 'like') {
    // GLOB is SQLite's case-sensitive LIKE: `*` any run, `?` one character, `[x]` a literal x.
    return tokens.map((t) => (t.kind === 'any' ? '*' : t.kind === 'one' ? '?' : '*?['.includes(t.char) ? `[${t.char}]` : t.char)).join('');
  }
  return likeText(tokens);
}

const params = (values: readonly unknown[]): RawBuilder<unknown> => sql.join(values.map((value) => sql`${value}`));

/** The substring test of one term, on a dialect; `term` is already the driver value. */
function textTerm(column: Expression<unknown>, term: unknown, dialect: Dialect): RawBuilder<SqlBool> {
  if (dialect === 'mysql') return sql<SqlBool>`${column} regexp ${term}`;
  if (dialect === 'postgres') return sql<SqlBool>`${column} ilike ${term} escape '\\'`;
  return sql<SqlBool>`${column} like ${term} escape '\\'`;
}

export function textSql(node: TextNode, column: Expression<unknown>, dialect: Dialect): Expression<SqlBool> {
  const terms = operatorParams(node, dialect).map((term) => textTerm(column, term, dialect));
  if (terms.length === 0) return sql<SqlBool>`1 = 0`;
  return terms.length === 1 ? terms[0]! : sql<SqlBool>`(${sql.join(terms, sql` or `)})`;
}

export function likeSql(node: LikeNode, column: Expression<unknown>, dialect: Dialect): Expression<SqlBool> {
  const pattern = likeParam(node, dialect);
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

/** An element of `corral_el` equals one of the node's values (same JSON type and value). */
function elementIn(node: ArrayNode, dialect: Dialect): RawBuilder<SqlBool> {
  if (dialect === 'sqlite') {
    const parts: RawBuilder<SqlBool>[] = [];
    if (strings(node).length > 0) parts.push(sql<SqlBool>`(corral_el.type = 'text' and corral_el.value in (${params(strings(node))}))`);
    if (numbers(node).length > 0) parts.push(sql<SqlBool>`(corral_el.type in ('integer', 'real') and corral_el.value in (${params(numbers(node))}))`);
    return sql<SqlBool>`(${sql.join(parts, sql` or `)})`;
  }
  const values = elementParams(node, dialect);
  if (dialect === 'postgres') return sql<SqlBool>`corral_el.v in (${sql.join(values.map((value) => sql`cast(${value} as jsonb)`))})`;
  // JSON text compared byte for byte: Corral writes arrays with JSON.stringify, as the values are spelled.
  return sql<SqlBool>`cast(corral_el.v as binary) in (${sql.join(values.map((value) => sql`cast(${value} as binary)`))})`;
}

/** A distinct key of an element, for counting how many of the wanted values a row holds. */
const elementKey = (dialect: Dialect): RawBuilder<unknown> =>
  dialect === 'sqlite' ? sql`corral_el.value` : dialect === 'postgres' ? sql`corral_el.v` : sql`cast(corral_el.v as binary)`;

export function arraySql(node: ArrayNode, column: Expression<unknown>, dialect: Dialect): Expression<SqlBool> {
  switch (node.op) {
    case 'empty':
      if (dialect === 'sqlite') return sql<SqlBool>`json_array_length(${column}) = 0`;
      if (dialect === 'postgres') return sql<SqlBool>`jsonb_array_length(${column}) = 0`;
      return sql<SqlBool>`json_length(${column}) = 0`;
    case 'anyOf':
      if (node.values.length === 0) return sql<SqlBool>`1 = 0`;
      return sql<SqlBool>`exists (select 1 from ${elements(column, dialect)} where ${elementIn(node, dialect)})`;
    case 'match': {
      if (node.values.length === 0) return arraySql({ ...node, op: 'empty' }, column, dialect);
      const no = dialect === 'postgres' ? sql`false` : sql`0`;
      // Nothing outside the set, and every member of the set present (values are distinct).
      return sql<SqlBool>`(not exists (select 1 from ${elements(column, dialect)} where not coalesce(${elementIn(node, dialect)}, ${no})) and (select count(distinct ${elementKey(dialect)}) from ${elements(column, dialect)} where ${elementIn(node, dialect)}) = ${sql.lit(node.values.length)})`;
    }
  }
}
