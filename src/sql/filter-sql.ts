import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { CompareOp, FilterNode } from '../plan/filter-node.js';
import type { Dialect } from '../schema/types.js';

const SQL_OPERATOR: Record<CompareOp, '=' | '<>' | '>' | '>=' | '<' | '<='> = {
  eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=',
};

type Eb = ExpressionBuilder<DynamicDb, string>;

/**
 * Compiles a bound filter to a WHERE expression. Values are always parameters. NOT wraps its
 * operand in COALESCE(…, false) so a comparison on NULL counts as false under negation too,
 * which keeps the meaning two-valued, as the in-memory evaluator has it.
 */
export function filterToSql(node: FilterNode, eb: Eb, dialect: Dialect, table?: string): Expression<SqlBool> {
  const ref = (name: string) => sql.ref(table === undefined ? name : `${table}.${name}`);
  const compile = (n: FilterNode): Expression<SqlBool> => {
    switch (n.kind) {
      case 'const':
        return n.value ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`;
      case 'and':
        return eb.and(n.items.map(compile));
      case 'or':
        return eb.or(n.items.map(compile));
      case 'not':
        return sql<SqlBool>`not coalesce(${compile(n.item)}, ${dialect === 'postgres' ? sql`false` : sql`0`})`;
      case 'isNull':
        return n.negate ? sql<SqlBool>`${ref(n.field.name)} is not null` : sql<SqlBool>`${ref(n.field.name)} is null`;
      case 'in': {
        const values = n.values.map((value) => n.field.type.toDb(value, dialect));
        return eb(ref(n.field.name), n.negate ? 'not in' : 'in', values);
      }
      case 'compare':
        return eb(ref(n.field.name), SQL_OPERATOR[n.op], n.field.type.toDb(n.value, dialect));
    }
  };
  return compile(node);
}
