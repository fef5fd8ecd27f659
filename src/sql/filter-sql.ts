import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { DynamicDb } from '../db/database.js';
import type { CompareOp, FilterNode } from '../plan/filter-node.js';
import type { Relation } from '../schema/collection.js';
import type { Dialect } from '../schema/types.js';
import { DIALECT_TRAITS } from './dialect-traits.js';
import { TOKEN_END } from '../plan/search-tokens.js';
import { keyColumn, SEARCH_TABLE } from '../schema/search-table.js';
import { arraySql, likeSql, textSql } from './filter-operators.js';

const SQL_OPERATOR: Record<CompareOp, '=' | '<>' | '>' | '>=' | '<' | '<='> = {
  eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=',
};

type Eb = ExpressionBuilder<DynamicDb, string>;

const col = (alias: string, name: string) => sql.ref(`${alias}.${name}`);

/**
 * `exists (…)` over the rows related to the row aliased `outer`; `inner` is the alias the
 * condition inside refers to. One subquery per association level, never a join that could
 * repeat the outer row.
 */
function relatedExists(relation: Relation, outer: string, inner: string, condition: Expression<SqlBool>): Expression<SqlBool> {
  const target = sql.table(`${relation.target.name}`);
  if (relation.type === 'belongsToMany') {
    const link = `${inner}_link`;
    return sql<SqlBool>`exists (select 1 from ${sql.table(relation.through.name)} as ${sql.id(link)} inner join ${target} as ${sql.id(inner)} on ${col(inner, relation.targetColumn.name)} = ${col(link, relation.otherKey.name)} where ${col(link, relation.foreignKey.name)} = ${col(outer, relation.sourceColumn.name)} and ${condition})`;
  }
  return sql<SqlBool>`exists (select 1 from ${target} as ${sql.id(inner)} where ${col(inner, relation.targetColumn.name)} = ${col(outer, relation.sourceColumn.name)} and ${condition})`;
}

/**
 * Compiles a bound filter to a WHERE expression over `table` (the query's own table name or
 * alias; every column is qualified, so association subqueries can refer outwards). Values are
 * always parameters. NOT wraps its operand in COALESCE(…, false) so a comparison on NULL
 * counts as false under negation too, which keeps the meaning two-valued, as the in-memory
 * evaluator has it.
 */
export function filterToSql(node: FilterNode, eb: Eb, dialect: Dialect, table: string): Expression<SqlBool> {
  let aliases = 0;
  const compile = (n: FilterNode, alias: string): Expression<SqlBool> => {
    switch (n.kind) {
      case 'const':
        return n.value ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`;
      case 'and':
        return eb.and(n.items.map((item) => compile(item, alias)));
      case 'or':
        return eb.or(n.items.map((item) => compile(item, alias)));
      case 'not':
        return sql<SqlBool>`not coalesce(${compile(n.item, alias)}, ${sql.raw(DIALECT_TRAITS[dialect].falseLiteral)})`;
      case 'isNull':
        return n.negate ? sql<SqlBool>`${col(alias, n.field.name)} is not null` : sql<SqlBool>`${col(alias, n.field.name)} is null`;
      case 'in': {
        const values = n.values.map((value) => n.field.type.toDb(value, dialect));
        return eb(col(alias, n.field.name), n.negate ? 'not in' : 'in', values);
      }
      case 'compare':
        return eb(col(alias, n.field.name), SQL_OPERATOR[n.op], n.field.type.toDb(n.value, dialect));
      case 'text':
        return textSql(n, col(alias, n.field.name), dialect);
      case 'like':
        return likeSql(n, col(alias, n.field.name), dialect);
      case 'array':
        return arraySql(n, col(alias, n.field.name), dialect);
      case 'exists': {
        const inner = `r${++aliases}`;
        return relatedExists(n.relation, alias, inner, compile(n.where, inner));
      }
      case 'search': {
        const name = keyColumn(n.key.type.name);
        // PostgreSQL compares a uuid column with uuids only.
        const column = n.key.type.name === 'uuid' && dialect === 'postgres' ? sql`cast(${sql.ref(name)} as uuid)` : sql.ref(name);
        const keyRef = col(alias, n.key.name);
        return eb.and(
          n.words.map(
            (word) =>
              sql<SqlBool>`${keyRef} in (select ${column} from ${sql.table(SEARCH_TABLE)} where ${sql.ref('collection')} = ${n.collection} and ${sql.ref('token')} >= ${word} and ${sql.ref('token')} < ${`${word}${TOKEN_END}`})`,
          ),
        );
      }
      case 'linkedThrough': {
        const link = `l${++aliases}`;
        const { relation } = n;
        const value = relation.sourceColumn.type.toDb(n.value, dialect);
        return sql<SqlBool>`exists (select 1 from ${sql.table(relation.through.name)} as ${sql.id(link)} where ${col(link, relation.otherKey.name)} = ${col(alias, relation.targetColumn.name)} and ${col(link, relation.foreignKey.name)} = ${value})`;
      }
    }
  };
  return compile(node, table);
}
