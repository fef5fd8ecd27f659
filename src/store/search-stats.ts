import { sql } from 'kysely';
import type { FilterNode } from '../plan/filter-node.js';
import { TOKEN_END } from '../text/search-tokens.js';
import { SEARCH_TABLE } from '../schema/search-table.js';
import type { Executor } from '../sql/select-rows.js';

/** Token rows counted per word at most: past this a word is "common", and its exact count does not matter. */
export const SEARCH_COUNT_CAP = 2000;
/** A rarest word under this many token rows drives the search: every other word is probed per candidate row. */
export const SEARCH_PROBE_MAX = 1000;
/** How long a word's count is trusted. */
export const SEARCH_STATS_TTL_MS = 60_000;
/** Words remembered per store (the oldest go first). */
export const SEARCH_STATS_ENTRIES = 10_000;

interface Known {
  count: number;
  at: number;
}

/**
 * How common each `$search` word is, per collection, so a search evaluates its words
 * rarest first. A word's count is a capped count of its token rows (`SEARCH_COUNT_CAP`
 * index entries at most), fetched in the background the first time the word is seen and
 * again after `SEARCH_STATS_TTL_MS`: `order` never waits for I/O. The order only changes
 * how fast a search runs, never what it finds, so a stale or missing count is harmless
 * (an unknown word counts as common).
 */
export class SearchStats {
  readonly #known = new Map<string, Known>();
  readonly #pending = new Set<string>();

  constructor(
    readonly db: Executor,
    /** Where a failed background count is reported (it changes no answer). */
    readonly onError: (error: unknown) => void,
    readonly now: () => number = Date.now,
  ) {}

  /** `node` with the words of every `search` in it ordered rarest first, and each search's probe choice made. */
  arrange(node: FilterNode): FilterNode {
    // Unchanged subtrees are returned as they are: most filters hold no search.
    switch (node.kind) {
      case 'and':
      case 'or': {
        const items = node.items.map((item) => this.arrange(item));
        return items.every((item, i) => item === node.items[i]) ? node : { kind: node.kind, items };
      }
      case 'not': {
        const item = this.arrange(node.item);
        return item === node.item ? node : { kind: 'not', item };
      }
      case 'exists': {
        const where = this.arrange(node.where);
        return where === node.where ? node : { ...node, where };
      }
      case 'search': {
        if (node.words.length < 2) return node;
        const counts = new Map(node.words.map((word) => [word, this.count(node.collection, word)]));
        const words = [...node.words].sort((a, b) => counts.get(a)! - counts.get(b)!);
        return { ...node, words, probe: counts.get(words[0]!)! < SEARCH_PROBE_MAX };
      }
      default:
        return node;
    }
  }

  /** The known (capped) count of a word, SEARCH_COUNT_CAP when not known yet; starts a refresh when due. */
  count(collection: string, word: string): number {
    const id = `${collection}\u0000${word}`;
    const known = this.#known.get(id);
    if (known === undefined || this.now() - known.at > SEARCH_STATS_TTL_MS) this.#refresh(collection, word, id);
    return known?.count ?? SEARCH_COUNT_CAP;
  }

  #refresh(collection: string, word: string, id: string): void {
    if (this.#pending.has(id)) return;
    this.#pending.add(id);
    countTokens(this.db, collection, word)
      .then((count) => {
        this.#known.delete(id);
        this.#known.set(id, { count, at: this.now() });
        if (this.#known.size > SEARCH_STATS_ENTRIES) this.#known.delete(this.#known.keys().next().value!);
      }, this.onError)
      .finally(() => this.#pending.delete(id));
  }

  /** Forgets what is known of a collection (its tokens were rebuilt). */
  forget(collection: string): void {
    for (const id of this.#known.keys()) if (id.startsWith(`${collection}\u0000`)) this.#known.delete(id);
  }
}

/** Token rows of one word (as a prefix), counted up to SEARCH_COUNT_CAP: an index range, read no further than the cap. */
export async function countTokens(db: Executor, collection: string, word: string): Promise<number> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom(SEARCH_TABLE)
        .select(sql<number>`1`.as('one'))
        .where('collection', '=', collection)
        .where('token', '>=', word)
        .where('token', '<', `${word}${TOKEN_END}`)
        .limit(SEARCH_COUNT_CAP)
        .as('capped'),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
