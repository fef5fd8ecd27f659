import type { Row } from '../schema/collection.js';

export type ChangeKind = 'created' | 'updated' | 'deleted';

/** One changed row: its key (the collection's filterTargetKey, canonical value) and, when the write had it, the row after. */
export interface Change {
  readonly key: unknown;
  readonly after?: Row;
}

export interface CollectionChanges {
  readonly created: Change[];
  readonly updated: Change[];
  readonly deleted: Change[];
}

/**
 * What a unit of work changed, per collection. A row created and then updated in the same
 * unit is reported once, as created (with its latest row).
 */
export class ChangeSet {
  readonly #byCollection = new Map<string, CollectionChanges>();

  record(collection: string, kind: ChangeKind, key: unknown, after?: Row): void {
    let changes = this.#byCollection.get(collection);
    if (changes === undefined) {
      changes = { created: [], updated: [], deleted: [] };
      this.#byCollection.set(collection, changes);
    }
    const text = String(key);
    const change: Change = after === undefined ? { key } : { key, after };
    if (kind === 'updated') {
      const created = changes.created.findIndex((entry) => String(entry.key) === text);
      if (created >= 0) {
        if (after !== undefined) changes.created[created] = change;
        return;
      }
    }
    const list = changes[kind];
    const seen = list.findIndex((entry) => String(entry.key) === text);
    if (seen >= 0) list[seen] = change;
    else list.push(change);
  }

  get(collection: string): CollectionChanges | undefined {
    return this.#byCollection.get(collection);
  }

  collections(): ReadonlyMap<string, CollectionChanges> {
    return this.#byCollection;
  }

  get empty(): boolean {
    return this.#byCollection.size === 0;
  }

  clear(): void {
    this.#byCollection.clear();
  }
}
