import { collectionNameProblem, fieldNameProblem } from './reserved-names.js';
import { singular } from './resolve-relation.js';
import { NAME_PATTERN } from './types.js';

/**
 * API names for what a catalogue names (docs/existing-databases.md#names): a name Corral accepts
 * is kept as it is (mixed case too); any other becomes a valid one, deterministically, and the
 * original stays in `tableName` / `columnName`. Names compare without case (SQLite and MySQL
 * fold them), so two originals that differ only in case get distinct API names.
 */

const MAX_NAME_LENGTH = 63;

/** `zip code` → `zip_code`, `1st` → `_1st`, `größe` → `gr_e`: runs of other characters become one `_`. */
export function sanitizeName(original: string): string {
  if (NAME_PATTERN.test(original)) return original;
  let name = original.replace(/[^A-Za-z0-9_]+/g, '_').replace(/^_+(?=[A-Za-z])/, '').replace(/_+$/, '');
  if (name === '' || name === '_') name = 'unnamed';
  if (/^[0-9]/.test(name)) name = `_${name}`;
  return name.slice(0, MAX_NAME_LENGTH);
}

/** A table's API name before collisions: reserved names (`users`, `collections`) get a trailing `_`, reserved prefixes (`pg_`) a leading `t_`. */
export function collectionBaseName(table: string): string {
  const name = sanitizeName(table);
  if (collectionNameProblem(name) === undefined) return name;
  const withSuffix = `${name.slice(0, MAX_NAME_LENGTH - 1)}_`;
  if (collectionNameProblem(withSuffix) === undefined) return withSuffix;
  return `t_${name}`.slice(0, MAX_NAME_LENGTH);
}

/** A column's API name before collisions: reserved field names (`oid`, `rowid`, `constructor`) get a trailing `_`. */
export function fieldBaseName(column: string): string {
  const name = sanitizeName(column);
  if (fieldNameProblem(name) === undefined) return name;
  return `${name.slice(0, MAX_NAME_LENGTH - 1)}_`;
}

/** Hands out names without regard to case: the first asker keeps its wish, later ones get `_2`, `_3`… */
export class NameRegistry {
  readonly #taken = new Set<string>();

  constructor(taken: Iterable<string> = []) {
    for (const name of taken) this.#taken.add(name.toLowerCase());
  }

  has(name: string): boolean {
    return this.#taken.has(name.toLowerCase());
  }

  /** Takes `name` exactly; false when it is taken already. */
  claim(name: string): boolean {
    if (this.has(name)) return false;
    this.#taken.add(name.toLowerCase());
    return true;
  }

  /** The first free one of `wishes`, else the first wish numbered. */
  take(...wishes: string[]): string {
    for (const wish of wishes) if (this.claim(wish)) return wish;
    const base = wishes[0]!;
    for (let n = 2; ; n++) {
      const suffix = `_${n}`;
      const candidate = `${base.slice(0, MAX_NAME_LENGTH - suffix.length)}${suffix}`;
      if (this.claim(candidate)) return candidate;
    }
  }
}

export const lowerFirst = (name: string): string => (/^[A-Z][a-z]/.test(name) || /^[A-Z]$/.test(name) ? `${name[0]!.toLowerCase()}${name.slice(1)}` : name);
export const upperFirst = (name: string): string => `${name.slice(0, 1).toUpperCase()}${name.slice(1)}`;

/** `album` → `albums`, `category` → `categories`, `box` → `boxes`; a name already ending in `s` stays. */
export function plural(name: string): string {
  if (/[^s]s$/i.test(name)) return name;
  if (/[^aeiou]y$/i.test(name)) return `${name.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(name)) return `${name}es`;
  return `${name}s`;
}

/** `customer_id` → `customer`, `CustomerId` → `customer`, `authorID` → `author`; a column without an id suffix keeps its name (`ReportsTo` → `reportsTo`). */
export function relationBaseName(column: string): string {
  const stripped = column.replace(/(_id|Id|ID|_fk|_key)$/, '').replace(/_+$/, '');
  return lowerFirst(stripped === '' ? column : stripped);
}

/** The readable singular of a collection name, for a relation named after its target (`employees` → `employee`). */
export const singularOf = (collection: string): string => lowerFirst(singular(collection));
