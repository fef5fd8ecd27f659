import type { Field, Item } from '../schema/collection.js';
import type { FilterNode } from './filter-node.js';

/** Canonical values made comparable: Dates and bigints to numbers, the rest as they are. */
function comparable(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'bigint') return Number(value);
  return value;
}

/** Wire value of an item to the canonical domain, using the field type's own parser. */
function itemValue(item: Item, field: Field): unknown {
  const raw = item[field.name];
  if (raw === null || raw === undefined) return null;
  const parsed = field.type.parse(raw, field.def);
  return comparable(parsed.ok ? parsed.value : raw);
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') {
    // Code point order, as the columns' binary collations compare.
    const x = [...a].map((c) => c.codePointAt(0)!);
    const y = [...b].map((c) => c.codePointAt(0)!);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/**
 * The plain in-memory meaning of a bound filter over wire items. Tests compare it with what
 * each database returns for the same filter.
 */
export function evaluateFilter(node: FilterNode, item: Item): boolean {
  switch (node.kind) {
    case 'const':
      return node.value;
    case 'and':
      return node.items.every((child) => evaluateFilter(child, item));
    case 'or':
      return node.items.some((child) => evaluateFilter(child, item));
    case 'not':
      return !evaluateFilter(node.item, item);
    case 'isNull':
      return (item[node.field.name] === null) !== node.negate;
    case 'in': {
      const value = itemValue(item, node.field);
      if (value === null) return false;
      const found = node.values.some((candidate) => compare(value, comparable(candidate)) === 0);
      return found !== node.negate;
    }
    case 'compare': {
      const value = itemValue(item, node.field);
      if (value === null) return false;
      const c = compare(value, comparable(node.value));
      switch (node.op) {
        case 'eq': return c === 0;
        case 'ne': return c !== 0;
        case 'gt': return c > 0;
        case 'gte': return c >= 0;
        case 'lt': return c < 0;
        case 'lte': return c <= 0;
      }
    }
  }
}
