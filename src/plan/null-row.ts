import type { FilterNode } from './filter-node.js';

/**
 * Whether a condition holds for a row whose every field is NULL and which has no related
 * rows: what a row without a related row is tested as below an association path (NocoBase
 * reads those paths through a LEFT JOIN, where the missing row's columns are NULL).
 */
export function matchesNullRow(node: FilterNode): boolean {
  switch (node.kind) {
    case 'const':
      return node.value;
    case 'and':
      return node.items.every(matchesNullRow);
    case 'or':
      return node.items.some(matchesNullRow);
    case 'not':
      return !matchesNullRow(node.item);
    case 'isNull':
      return !node.negate;
    // Every other test is false on NULL (negative operators add their own IS NULL), and a
    // missing row has no related rows, no search tokens, no links.
    case 'compare':
    case 'in':
    case 'text':
    case 'like':
    case 'array':
    case 'exists':
    case 'search':
    case 'linkedThrough':
      return false;
  }
}
