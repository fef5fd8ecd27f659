import { compileCollection, linkRelations, type Collection } from './collection.js';
import type { CollectionDef, Dialect } from './types.js';

/** An immutable view of every collection; replaced whole when the schema changes. */
export class SchemaSnapshot {
  readonly collections: ReadonlyMap<string, Collection>;

  constructor(
    readonly version: number,
    readonly defs: readonly CollectionDef[],
    dialect: Dialect,
  ) {
    this.collections = new Map(defs.map((def) => [def.name, compileCollection(def, dialect)]));
    linkRelations(this.collections);
  }

  get(name: string): Collection | undefined {
    return this.collections.get(name);
  }

  /** Names compare without case: SQLite and MySQL on some systems fold table names. */
  findByNameIgnoringCase(name: string): Collection | undefined {
    const lower = name.toLowerCase();
    for (const collection of this.collections.values()) if (collection.name.toLowerCase() === lower) return collection;
    return undefined;
  }
}
