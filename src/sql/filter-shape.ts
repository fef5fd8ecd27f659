import type { FilterNode } from '../plan/filter-node.js';
import type { Dialect } from '../schema/types.js';
import { TOKEN_END } from '../plan/search-tokens.js';
import { operatorParams, operatorShape } from './filter-operators.js';

/**
 * The shape of a bound filter (its structure without values) and, pushed onto `params`, its
 * driver values in the order `filterToSql` binds them. Two filters with one shape compile to
 * the same SQL text.
 */
export function filterShape(node: FilterNode, dialect: Dialect, params: unknown[]): string {
  switch (node.kind) {
    case 'const':
      return node.value ? 'T' : 'F';
    case 'and':
    case 'or':
      return `${node.kind}(${node.items.map((item) => filterShape(item, dialect, params)).join(',')})`;
    case 'not':
      return `not(${filterShape(node.item, dialect, params)})`;
    case 'isNull':
      return `${node.negate ? 'nn' : 'n'}:${node.field.name}`;
    case 'in':
      for (const value of node.values) params.push(node.field.type.toDb(value, dialect));
      return `${node.negate ? 'ni' : 'i'}:${node.field.name}:${node.values.length}`;
    case 'compare':
      params.push(node.field.type.toDb(node.value, dialect));
      return `${node.op}:${node.field.name}`;
    case 'text':
    case 'like':
    case 'array':
      params.push(...operatorParams(node, dialect));
      return operatorShape(node);
    case 'exists':
      return `e:${node.relation.name}(${filterShape(node.where, dialect, params)})`;
    case 'search':
      for (const word of node.words) params.push(node.collection, word, `${word}${TOKEN_END}`);
      return `s:${node.key.name}:${node.words.length}`;
    case 'linkedThrough':
      params.push(node.relation.sourceColumn.type.toDb(node.value, dialect));
      return `l:${node.relation.name}`;
  }
}
