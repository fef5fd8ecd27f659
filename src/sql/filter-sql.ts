import { sql, type Expression, type SqlBool } from 'kysely';
import type { CompareOp, FilterNode } from '../plan/filter-node.js';
import type { Relation } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { DIALECT_TRAITS } from '../db/dialects/dialect-traits.js';
import { arraySql, likeSql, textSql } from './filter-operators.js';
import { searchSql } from './search-sql.js';
import { KEY_ONLY, SqlPass, type Eb } from './sql-pass.js';

const SQL_OPERATOR: Record<CompareOp, '=' | '<>' | '>' | '>=' | '<' | '<='> = {
  eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=',
};

const col = (alias: string, name: string) => sql.ref(`${alias}.${name}`);

/**
 * `exists (…)` over the rows related to the row aliased `outer`; `inner` is the alias the
 * condition inside refers to. One subquery per association level, never a join that could
 * repeat the outer row.
 */
function relatedExists(relation: Relation, outer: string, inner: string, condition: Expression<SqlBool>): Expression<SqlBool> {
  const target = sql.table(relation.target.table);
  if (relation.type === 'belongsToMany') {
    const link = `${inner}_link`;
    return sql<SqlBool>`exists (select 1 from ${sql.table(relation.through.table)} as ${sql.id(link)} inner join ${target} as ${sql.id(inner)} on ${col(inner, relation.targetColumn.column)} = ${col(link, relation.otherKey.column)} where ${col(link, relation.foreignKey.column)} = ${col(outer, relation.sourceColumn.column)} and ${condition})`;
  }
  return sql<SqlBool>`exists (select 1 from ${target} as ${sql.id(inner)} where ${col(inner, relation.targetColumn.column)} = ${col(outer, relation.sourceColumn.column)} and ${condition})`;
}

/**
 * Writes a bound filter as a WHERE expression over `table` (the query's own table name or
 * alias; every column is qualified, so association subqueries can refer outwards), in one
 * pass with its shape key and values (`sql-pass.ts`). Values are always parameters. NOT wraps
 * its operand in COALESCE(…, false) so a comparison on NULL counts as false under negation
 * too, which keeps the meaning two-valued, as the in-memory evaluator has it.
 */
export function whereSql(node: FilterNode, pass: SqlPass, table: string): Expression<SqlBool> {
  const outer = pass.aliases;
  pass.aliases = 0;
  const where = writeNode(node, pass, table);
  pass.aliases = outer;
  return where;
}

/** The WHERE expression of a bound filter, for a statement the shape cache does not keep. */
export function filterToSql(node: FilterNode, eb: Eb, dialect: Dialect, table: string): Expression<SqlBool> {
  return whereSql(node, new SqlPass(dialect, true, eb), table);
}

/** A filter's shape key and values in binding order, from a key-only pass (what a cache hit binds). */
export function filterKey(node: FilterNode, dialect: Dialect): { key: string; params: unknown[] } {
  const pass = new SqlPass(dialect, false);
  whereSql(node, pass, '');
  return { key: pass.key, params: pass.params };
}

/** One node over the row aliased `alias`: its key fragment, its values, its SQL when emitting. */
function writeNode(n: FilterNode, pass: SqlPass, alias: string): Expression<SqlBool> {
  const { emit, dialect } = pass;
  switch (n.kind) {
    case 'const':
      pass.key += n.value ? 'T' : 'F';
      if (!emit) return KEY_ONLY;
      return n.value ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`;
    case 'and':
    case 'or': {
      pass.key += n.kind === 'and' ? '&(' : '|(';
      const items: Expression<SqlBool>[] = [];
      for (let i = 0; i < n.items.length; i++) {
        if (i > 0) pass.key += ',';
        const item = writeNode(n.items[i]!, pass, alias);
        if (emit) items.push(item);
      }
      pass.key += ')';
      if (!emit) return KEY_ONLY;
      return n.kind === 'and' ? pass.eb.and(items) : pass.eb.or(items);
    }
    case 'not': {
      pass.key += '!(';
      const item = writeNode(n.item, pass, alias);
      pass.key += ')';
      if (!emit) return KEY_ONLY;
      return sql<SqlBool>`not coalesce(${item}, ${sql.raw(DIALECT_TRAITS[dialect].falseLiteral)})`;
    }
    case 'isNull':
      pass.key += `${n.negate ? 'nn' : 'n'}:${n.field.name}`;
      if (!emit) return KEY_ONLY;
      return n.negate ? sql<SqlBool>`${col(alias, n.field.column)} is not null` : sql<SqlBool>`${col(alias, n.field.column)} is null`;
    case 'in': {
      pass.key += `${n.negate ? 'ni' : 'i'}:${n.field.name}:${n.values.length}`;
      const values = n.values.map((value) => n.field.type.toDb(value, dialect));
      pass.params.push(...values);
      if (!emit) return KEY_ONLY;
      return pass.eb(col(alias, n.field.column), n.negate ? 'not in' : 'in', values);
    }
    case 'compare': {
      pass.key += `${n.op}:${n.field.name}`;
      const value = n.field.type.toDb(n.value, dialect);
      pass.params.push(value);
      if (!emit) return KEY_ONLY;
      return pass.eb(col(alias, n.field.column), SQL_OPERATOR[n.op], value);
    }
    case 'text':
      return textSql(n, emit ? col(alias, n.field.column) : KEY_ONLY, pass);
    case 'like':
      return likeSql(n, emit ? col(alias, n.field.column) : KEY_ONLY, pass);
    case 'array':
      return arraySql(n, emit ? col(alias, n.field.column) : KEY_ONLY, pass);
    case 'exists': {
      // The alias only names SQL: a key-only pass counts it without spelling it.
      const inner = emit ? `r${++pass.aliases}` : alias;
      pass.key += `e:${n.relation.name}(`;
      const where = writeNode(n.where, pass, inner);
      pass.key += ')';
      if (!emit) return KEY_ONLY;
      return relatedExists(n.relation, alias, inner, where);
    }
    case 'search':
      return searchSql(n, pass, alias);
    case 'linkedThrough': {
      const { relation } = n;
      pass.key += `l:${relation.name}`;
      const value = pass.value(relation.sourceColumn.type.toDb(n.value, dialect));
      if (!emit) return KEY_ONLY;
      const link = `l${++pass.aliases}`;
      return sql<SqlBool>`exists (select 1 from ${sql.table(relation.through.table)} as ${sql.id(link)} where ${col(link, relation.otherKey.column)} = ${col(alias, relation.targetColumn.column)} and ${col(link, relation.foreignKey.column)} = ${value})`;
    }
  }
}
