import type { CollectionDef } from './types.js';

/**
 * The real table of a definition: `tableName` (an unmanaged table's, or a system collection's
 * `corral_…` table), else the collection's name; `schema.table` with a schema. Every piece of
 * DDL and SQL names this, never the API name (Collection.table is the same).
 */
export const tableOf = (def: Pick<CollectionDef, 'name' | 'tableName' | 'schema'>): string => (def.schema === undefined ? '' : `${def.schema}.`) + (def.tableName ?? def.name);

/** The table of a collection by its name, for the foreign keys DDL writes (they name the table pointed at). */
export type TableOfCollection = (collection: string) => string;

/** A resolver over a set of definitions; a name it does not know is its own table. */
export function tablesOf(defs: Iterable<CollectionDef>): TableOfCollection {
  const tables = new Map<string, string>();
  for (const def of defs) tables.set(def.name, tableOf(def));
  return (collection) => tables.get(collection) ?? collection;
}
