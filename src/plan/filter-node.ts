import type { BelongsToMany, Field, Relation } from '../schema/collection.js';

/** Comparison operators of the bound filter tree. */
export type CompareOp = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte';

/** Substring operators (the positive forms). */
export type TextOp = 'includes' | 'startsWith' | 'endsWith';

/** Raw pattern operators (the positive forms). */
export type LikeOp = 'like' | 'iLike';

/** Array field operators (the positive forms). */
export type ArrayOp = 'anyOf' | 'match' | 'empty';

/** An element an array operator compares: a string or a finite number. */
export type ArrayElement = string | number;

/**
 * A filter bound to the schema: fields resolved, values parsed to their canonical form.
 * Two-valued: a comparison on a NULL field is false, and every negative operator matches NULL.
 */
export type FilterNode =
  | { kind: 'and'; items: FilterNode[] }
  | { kind: 'or'; items: FilterNode[] }
  | { kind: 'not'; item: FilterNode }
  | { kind: 'compare'; field: Field; op: CompareOp; value: unknown }
  | { kind: 'isNull'; field: Field; negate: boolean }
  | { kind: 'in'; field: Field; values: unknown[]; negate: boolean }
  | { kind: 'const'; value: boolean }
  /** Some row related through `relation` matches `where` (association paths in filters). */
  | { kind: 'exists'; relation: Relation; where: FilterNode }
  /**
   * Substring test, ASCII case-insensitive, the value literal (`%` and `_` match themselves);
   * true when any of `values` matches. Negative forms are NOT of this, ORed with IS NULL.
   */
  | { kind: 'text'; field: Field; op: TextOp; values: string[] }
  /** A raw LIKE pattern (`%` any run, `_` one character, `\\` escapes); `iLike` folds ASCII case. */
  | { kind: 'like'; field: Field; op: LikeOp; pattern: string }
  /**
   * An `array` field's elements (strings and numbers, compared by JSON type and value):
   * `anyOf` shares an element with `values`, `match` holds exactly the set `values`
   * (distinct, in canonical order), `empty` is `[]`. NULL never matches.
   */
  | { kind: 'array'; field: Field; op: ArrayOp; values: ArrayElement[] }
  /**
   * `$search`: every word is a prefix of some token of the row's searchable `fields`
   * (text/search-tokens.ts), found through the token table by the row's `key`.
   */
  | {
      kind: 'search';
      collection: string;
      key: Field;
      fields: Field[];
      /** Normalised, distinct; the store orders them rarest first (store/search-stats.ts). */
      words: string[];
      /**
       * The first word is rare: it alone is read as a list of rows, and every other word is
       * tested per candidate row through the (collection, key, token) index. Otherwise each
       * word is a list of rows and the database intersects them. Set by the store; the
       * meaning is the same either way.
       */
      probe?: boolean;
      /**
       * Every word is common (in a large share of the rows, store/search-stats.ts): the
       * statement walks the rows in its own order and tests each for every word through the
       * (collection, key, token) index, so ORDER BY … LIMIT stops after a page of matches
       * instead of reading every match. Set by the store; the meaning is the same.
       */
      common?: boolean;
    }
  /** belongsToMany scope: the target row is linked to the source row whose sourceKey is `value`. */
  | { kind: 'linkedThrough'; relation: BelongsToMany; value: unknown };

export const TRUE_NODE: FilterNode = { kind: 'const', value: true };
export const FALSE_NODE: FilterNode = { kind: 'const', value: false };

export function and(items: FilterNode[]): FilterNode {
  const kept = items.filter((item) => !(item.kind === 'const' && item.value));
  if (kept.some((item) => item.kind === 'const' && !item.value)) return FALSE_NODE;
  if (kept.length === 0) return TRUE_NODE;
  return kept.length === 1 ? kept[0]! : { kind: 'and', items: kept };
}

export function or(items: FilterNode[]): FilterNode {
  const kept = items.filter((item) => !(item.kind === 'const' && !item.value));
  if (kept.some((item) => item.kind === 'const' && item.value)) return TRUE_NODE;
  if (kept.length === 0) return FALSE_NODE;
  return kept.length === 1 ? kept[0]! : { kind: 'or', items: kept };
}
