import { ApiError } from '../errors/api-error.js';
import type { Collection, Field, Relation } from '../schema/collection.js';

export interface SortTerm {
  field: Field;
  desc: boolean;
  /** To-one relations to follow from the sorted collection to `field` (`author.name`). */
  path?: Relation[];
}

export const MAX_SORT_TERMS = 10;

function resolve(collection: Collection, name: string): { field: Field; path: Relation[] } {
  const parts = name.split('.');
  const path: Relation[] = [];
  let current = collection;
  for (const part of parts.slice(0, -1)) {
    const relation = current.relations.get(part);
    if (relation === undefined || relation.toMany) {
      throw new ApiError('SORT_UNKNOWN_FIELD', `${name}: ${current.name}.${part} is not a to-one association`, { field: name });
    }
    path.push(relation);
    current = relation.target;
  }
  const field = current.fields.get(parts[parts.length - 1]!);
  if (field === undefined || field.hidden || field.type.capability === 'none') {
    throw new ApiError('SORT_UNKNOWN_FIELD', `${collection.name} cannot be sorted by ${name}`, { field: name });
  }
  return { field, path };
}

/**
 * Reads `sort` (`-createdAt,title,author.name`). The key is always added last, so pages are
 * stable; with no sort the list is in key order.
 */
export function bindSort(collection: Collection, sort?: string[]): SortTerm[] {
  const terms: SortTerm[] = [];
  if ((sort?.length ?? 0) > MAX_SORT_TERMS) throw new ApiError('PARAM_INVALID', `sort takes at most ${MAX_SORT_TERMS} terms`, { field: 'sort' });
  for (const entry of sort ?? []) {
    const desc = entry.startsWith('-');
    const name = desc || entry.startsWith('+') ? entry.slice(1) : entry;
    const { field, path } = resolve(collection, name);
    if (path.length > 0) terms.push({ field, desc, path });
    else if (!terms.some((term) => term.field === field && term.path === undefined)) terms.push({ field, desc });
  }
  const key = collection.primaryKey;
  const unique = (term: SortTerm) => term.path === undefined && (term.field === key || (term.field.def.unique && !term.field.nullable));
  if (!terms.some(unique)) terms.push({ field: key, desc: false });
  return terms;
}
