import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import type { FilterNode } from '../plan/filter-node.js';
import { likeTokens } from '../text/like-pattern.js';
import { KEY_ONLY, type SqlPass } from './sql-pass.js';

/**
 * SQL for the text, pattern and array operators, written in one pass with their shape key
 * (see `sql-pass.ts`): each writer appends the operator's key fragment, pushes its driver
 * values in binding order and, when the pass emits, builds the SQL binding exactly those
 * values. `column` is the column expression (`KEY_ONLY` when the pass does not emit). The
 * dialect's spelling of each piece comes from its adapter (`pass.adapter.operators`).
 *
 * Case folding is ASCII-only everywhere (non-ASCII letters compare exactly): SQLite's LIKE
 * and PostgreSQL's ILIKE under the columns' "C" collation fold A–Z only; MySQL's LOWER folds
 * all of Unicode, so MySQL matches with REGEXP, spelling each ASCII letter as `[aA]`.
 */

type TextNode = Extract<FilterNode, { kind: 'text' }>;
type LikeNode = Extract<FilterNode, { kind: 'like' }>;
type ArrayNode = Extract<FilterNode, { kind: 'array' }>;
export type OperatorNode = TextNode | LikeNode | ArrayNode;

/** Any of the terms is a substring (a prefix, a suffix) of the column; no terms is false. */
/** The column as the text operators read it: a column of an existing table (it has a `rawType`) may hold another type than text. */
const textOf = (node: TextNode | LikeNode, column: Expression<unknown>, pass: SqlPass): Expression<unknown> =>
  node.field.def.rawType === undefined ? column : pass.adapter.operators.asText(column);

export function textSql(node: TextNode, given: Expression<unknown>, pass: SqlPass): Expression<SqlBool> {
  const ops = pass.adapter.operators;
  const column = pass.emit ? textOf(node, given, pass) : given;
  pass.key += `t:${node.op}:${node.field.name}:${node.values.length}`;
  const terms: RawBuilder<SqlBool>[] = [];
  for (const term of node.values) {
    const value = pass.value(ops.substringParam(term, node.op === 'startsWith', node.op === 'endsWith'));
    if (pass.emit) terms.push(ops.substringTest(column, value));
  }
  if (!pass.emit) return KEY_ONLY;
  if (terms.length === 0) return sql<SqlBool>`1 = 0`;
  return terms.length === 1 ? terms[0]! : sql<SqlBool>`(${sql.join(terms, sql` or `)})`;
}

export function likeSql(node: LikeNode, given: Expression<unknown>, pass: SqlPass): Expression<SqlBool> {
  const ops = pass.adapter.operators;
  const column = pass.emit ? textOf(node, given, pass) : given;
  const foldCase = node.op === 'iLike';
  pass.key += `k:${node.op}:${node.field.name}`;
  const pattern = pass.value(ops.likeParam(likeTokens(node.pattern), foldCase));
  if (!pass.emit) return KEY_ONLY;
  return ops.likeTest(column, pattern, foldCase);
}

/**
 * An element of `corral_el` equals one of the node's values (same JSON type and value),
 * binding them as the adapter says; the key was written by the caller (`arraySql`).
 */
function elementIn(node: ArrayNode, pass: SqlPass): RawBuilder<SqlBool> {
  const test = pass.adapter.operators.arrayElementIn;
  const bound = test.params(node.values).map((value) => pass.value(value));
  return pass.emit ? test.test(node.values, bound) : KEY_ONLY;
}

export function arraySql(node: ArrayNode, column: Expression<unknown>, pass: SqlPass): Expression<SqlBool> {
  const ops = pass.adapter.operators;
  const count = node.values.length;
  const op = node.op === 'match' && count === 0 ? 'empty' : node.op;
  pass.key += `a:${op}:${node.field.name}`;
  // The element test's text depends on how its values bind (on SQLite, how many strings and numbers).
  if (op !== 'empty') pass.key += ops.arrayElementIn.valuesKey(node.values);
  switch (op) {
    case 'empty':
      return pass.emit ? ops.arrayEmpty(column) : KEY_ONLY;
    case 'anyOf': {
      if (count === 0) return pass.emit ? sql<SqlBool>`1 = 0` : KEY_ONLY;
      const test = elementIn(node, pass);
      return pass.emit ? sql<SqlBool>`exists (select 1 from ${ops.arrayElements(column)} where ${test})` : KEY_ONLY;
    }
    case 'match': {
      // Nothing outside the set, and every member of the set present (values are distinct):
      // the element test appears twice, so its values bind twice.
      const outside = elementIn(node, pass);
      const inside = elementIn(node, pass);
      if (!pass.emit) return KEY_ONLY;
      const elements = ops.arrayElements(column);
      return sql<SqlBool>`(not exists (select 1 from ${elements} where not coalesce(${outside}, ${ops.falseSql})) and (select count(distinct ${ops.arrayElementKey}) from ${elements} where ${inside}) = ${sql.lit(count)})`;
    }
  }
}
