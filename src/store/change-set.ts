import type { Row } from '../schema/collection.js';
import { keyText } from './canonical.js';

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

/** Where each key sits in its list, so recording stays O(1) however many rows a unit writes (an import). */
type Positions = Record<ChangeKind, Map<string, number>>;

/**
 * What a unit of work changed, per collection. A row created and then updated in the same
 * unit is reported once, as created (with its latest row).
 */
export class ChangeSet {
  readonly #byCollection = new Map<string, CollectionChanges>();
  readonly #positions = new Map<string, Positions>();

  record(collection: string, kind: ChangeKind, key: unknown, after?: Row): void {
    let changes = this.#byCollection.get(collection);
    let positions = this.#positions.get(collection);
    if (changes === undefined || positions === undefined) {
      changes = { created: [], updated: [], deleted: [] };
      positions = { created: new Map(), updated: new Map(), deleted: new Map() };
      this.#byCollection.set(collection, changes);
      this.#positions.set(collection, positions);
    }
    const text = keyText(key);
    const change: Change = after === undefined ? { key } : { key, after };
    if (kind === 'updated') {
      const created = positions.created.get(text);
      if (created !== undefined) {
        if (after !== undefined) changes.created[created] = change;
        return;
      }
    }
    const list = changes[kind];
    const seen = positions[kind].get(text);
    if (seen !== undefined) list[seen] = change;
    else {
      positions[kind].set(text, list.length);
      list.push(change);
    }
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
    this.#positions.clear();
  }

  /**
   * Forgets the rows recorded so far once the beforeCommit hooks have taken them (a long write's
   * batch: store.flushChanges), keeping which collections changed for the afterCommit hooks.
   * A row recorded before and changed again after counts as a new change.
   */
  drain(): void {
    for (const [name, changes] of this.#byCollection) {
      changes.created.length = 0;
      changes.updated.length = 0;
      changes.deleted.length = 0;
      const positions = this.#positions.get(name);
      if (positions !== undefined) for (const map of Object.values(positions)) map.clear();
    }
  }
}
