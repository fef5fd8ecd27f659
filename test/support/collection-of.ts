import { compileCollection, type Collection } from '../../src/schema/collection.js';
import { normalizeCollection } from '../../src/schema/normalize-collection.js';
import type { CollectionDef, Dialect } from '../../src/schema/types.js';

/** A collection compiled from a schema-API definition, without a database (pure tests). */
export function collectionOf(input: Record<string, unknown>, dialect: Dialect = 'sqlite'): Collection {
  // normalizeCollection returns the definition, or `{ def, … }` once relations are read too.
  const normalized: unknown = normalizeCollection(input);
  const def = (typeof normalized === 'object' && normalized !== null && 'def' in normalized ? normalized.def : normalized) as CollectionDef;
  return compileCollection(def, dialect);
}
