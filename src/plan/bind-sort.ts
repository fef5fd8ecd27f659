import { ApiError } from '../errors/api-error.js';
import type { Collection, Field } from '../schema/collection.js';

export interface SortTerm {
  field: Field;
  desc: boolean;
}

/**
 * Reads `sort` (`-createdAt,title`). The key is always added last, so pages are stable;
 * with no sort the list is in key order.
 */
export function bindSort(collection: Collection, sort?: string[]): SortTerm[] {
  const terms: SortTerm[] = [];
  for (const entry of sort ?? []) {
    const desc = entry.startsWith('-');
    const name = desc || entry.startsWith('+') ? entry.slice(1) : entry;
    const field = collection.fields.get(name);
    if (field === undefined || field.hidden || field.type.capability === 'none') {
      throw new ApiError('SORT_UNKNOWN_FIELD', `${collection.name} cannot be sorted by ${name}`, { field: name });
    }
    if (!terms.some((term) => term.field === field)) terms.push({ field, desc });
  }
  const key = collection.primaryKey;
  if (!terms.some((term) => term.field === key || (term.field.def.unique && !term.field.nullable))) terms.push({ field: key, desc: false });
  return terms;
}
