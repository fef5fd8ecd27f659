import { matchesSearch } from '../text/search-tokens.js';
import type { Field, Item } from '../schema/collection.js';
import { DEFAULT_SCALE } from '../schema/field-types/decimal-type.js';
import type { ArrayElement, ArrayOp, FilterNode, TextOp } from './filter-node.js';
import { asciiLower, likeMatches } from '../text/like-pattern.js';

/**
 * Canonical values made comparable: Dates to numbers, decimal strings to exact scaled
 * bigints; bigints stay bigints (a number would merge neighbours beyond 2^53).
 */
function comparable(value: unknown, field: Field): unknown {
  if (value instanceof Date) return value.getTime();
  if (field.type.name === 'decimal' && typeof value === 'string') return scaledDecimal(value, field.def.scale ?? DEFAULT_SCALE);
  return value;
}

/** '-1.5' at scale 3 → -1500n; parse already refused more fraction digits than the scale. */
function scaledDecimal(text: string, scale: number): bigint {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = text.replace(/^-/, '').split('.');
  const n = BigInt(whole + fraction.padEnd(scale, '0'));
  return negative ? -n : n;
}

/** Wire value of an item to the canonical domain, using the field type's own parser. */
function itemValue(item: Item, field: Field): unknown {
  const raw = item[field.name];
  if (raw === null || raw === undefined) return null;
  const parsed = field.type.parse(raw, field.def);
  return comparable(parsed.ok ? parsed.value : raw, field);
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
  // Numbers and bigints compare exactly with each other in JS.
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/** API.md §5: substring tests fold case (ASCII letters only) and read `%` and `_` literally. */
function textMatches(value: string, op: TextOp, term: string): boolean {
  const text = asciiLower(value);
  const wanted = asciiLower(term);
  switch (op) {
    case 'includes': return text.includes(wanted);
    case 'startsWith': return text.startsWith(wanted);
    case 'endsWith': return text.endsWith(wanted);
  }
}

/** An array element equals an operand element: same JSON type (string or number) and value. */
const sameElement = (element: unknown, wanted: ArrayElement): boolean => element === wanted;

function arrayMatches(elements: readonly unknown[], op: ArrayOp, values: readonly ArrayElement[]): boolean {
  const wanted = (element: unknown) => values.some((value) => sameElement(element, value));
  switch (op) {
    case 'empty': return elements.length === 0;
    case 'anyOf': return elements.some(wanted);
    // The same set: nothing outside the operand, every operand member present.
    case 'match': return elements.every(wanted) && values.every((value) => elements.some((element) => sameElement(element, value)));
  }
}

/**
 * The plain in-memory meaning of a bound filter over wire items. Tests compare it with what
 * each database returns for the same filter.
 */
export function evaluateFilter(node: FilterNode, item: Item): boolean {
  switch (node.kind) {
    case 'const':
      return node.value;
    case 'exists':
    case 'linkedThrough':
      throw new Error('the in-memory evaluator covers scalar conditions only');
    case 'search':
      return matchesSearch(node.words, node.fields.map((field) => item[field.name]));
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
      const found = node.values.some((candidate) => compare(value, comparable(candidate, node.field)) === 0);
      return found !== node.negate;
    }
    case 'text': {
      const value = item[node.field.name];
      if (typeof value !== 'string') return false;
      return node.values.some((term) => textMatches(value, node.op, term));
    }
    case 'like': {
      const value = item[node.field.name];
      return typeof value === 'string' && likeMatches(value, node.pattern, node.op === 'iLike');
    }
    case 'array': {
      const value = item[node.field.name];
      if (!Array.isArray(value)) return false;
      return arrayMatches(value, node.op, node.values);
    }
    case 'compare': {
      const value = itemValue(item, node.field);
      if (value === null) return false;
      const c = compare(value, comparable(node.value, node.field));
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
