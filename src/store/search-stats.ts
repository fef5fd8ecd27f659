import { sql } from 'kysely';
import type { FilterNode } from '../plan/filter-node.js';
import { TOKEN_END } from '../text/search-tokens.js';
import { keyColumn, SEARCH_TABLE } from '../schema/search-table.js';
import type { Field } from '../schema/collection.js';
import type { Executor } from '../sql/select-rows.js';

/** Token rows counted per word at most: past this a word is "common", and its exact count does not matter. */
export const SEARCH_COUNT_CAP = 2000;
/** A rarest word under this many token rows drives the search: every other word is probed per candidate row. */
export const SEARCH_PROBE_MAX = 1000;
/** How long a word's count is trusted. */
export const SEARCH_STATS_TTL_MS = 60_000;
/** Words remembered per store (the oldest go first). */
export const SEARCH_STATS_ENTRIES = 10_000;
/** Rows read in key order to measure a common word's share of the rows, and matches read to estimate a common search's count (store/search-count.ts). */
export const SEARCH_SAMPLE_ROWS = 500;
/**
 * A search whose words are known to be in at least this share of the rows together (the
 * product of the words' sampled shares) walks the rows in the statement's order and probes
 * each for the words (`common`): a page of 20 reads about 20 / share rows.
 */
export const SEARCH_WALK_SHARE = 0.1;

/** The thresholds of `$search` evaluation; the defaults above, smaller in tests (StoreOptions.search). */
export interface SearchLimits {
  /** SEARCH_COUNT_CAP */
  readonly countCap: number;
  /** SEARCH_PROBE_MAX */
  readonly probeMax: number;
  /** SEARCH_SAMPLE_ROWS */
  readonly sampleRows: number;
  /** SEARCH_WALK_SHARE */
  readonly walkShare: number;
}

export const SEARCH_LIMITS: SearchLimits = { countCap: SEARCH_COUNT_CAP, probeMax: SEARCH_PROBE_MAX, sampleRows: SEARCH_SAMPLE_ROWS, walkShare: SEARCH_WALK_SHARE };

interface Known {
  count: number;
  /** The word's share of the first SEARCH_SAMPLE_ROWS rows in key order; measured only for a word at the cap. */
  share: number | undefined;
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
    readonly limits: SearchLimits = SEARCH_LIMITS,
  ) {}

  /**
   * `node` with the words of every `search` in it ordered rarest first, and each search's probe
   * choice made. `limited`: the statement has a LIMIT, so a search of common words walks the
   * rows (`common`); without one (a count, a write, a stream) the walk would probe every row,
   * and the lists are cheaper.
   */
  arrange(node: FilterNode, limited = false): FilterNode {
    // Unchanged subtrees are returned as they are: most filters hold no search.
    switch (node.kind) {
      case 'and':
      case 'or': {
        const items = node.items.map((item) => this.arrange(item, limited));
        return items.every((item, i) => item === node.items[i]) ? node : { kind: node.kind, items };
      }
      case 'not': {
        const item = this.arrange(node.item, limited);
        return item === node.item ? node : { kind: 'not', item };
      }
      case 'exists': {
        // An association's subquery has no LIMIT of its own.
        const where = this.arrange(node.where);
        return where === node.where ? node : { ...node, where };
      }
      case 'search': {
        const known = new Map(node.words.map((word) => [word, this.known(node.collection, node.key, word)]));
        // Every word at the cap, in a large share of the rows together: walk the rows in the
        // statement's order and probe each, the word in the fewest rows first (`common`).
        const shares = node.words.map((word) => known.get(word)?.share ?? 0);
        if (limited && shares.reduce((product, share) => product * share, 1) >= this.limits.walkShare) {
          const share = (word: string) => known.get(word)!.share!;
          return { ...node, words: [...node.words].sort((a, b) => share(a) - share(b)), common: true };
        }
        if (node.words.length < 2) return node;
        const count = (word: string) => known.get(word)?.count ?? this.limits.countCap;
        const words = [...node.words].sort((a, b) => count(a) - count(b));
        return { ...node, words, probe: count(words[0]!) < this.limits.probeMax };
      }
      default:
        return node;
    }
  }

  /** The known (capped) count of a word, the cap when not known yet. */
  count(collection: string, word: string): number {
    return this.#known.get(`${collection}\u0000${word}`)?.count ?? this.limits.countCap;
  }

  /** What is known of a word (undefined: nothing yet); starts a refresh when due. */
  known(collection: string, key: Field, word: string): Readonly<Known> | undefined {
    const id = `${collection}\u0000${word}`;
    const known = this.#known.get(id);
    if (known === undefined || this.now() - known.at > SEARCH_STATS_TTL_MS) this.#refresh(collection, key, word, id);
    return known;
  }

  #refresh(collection: string, key: Field, word: string, id: string): void {
    if (this.#pending.has(id)) return;
    this.#pending.add(id);
    const { countCap, sampleRows } = this.limits;
    countTokens(this.db, collection, word, countCap)
      .then(async (count) => ({ count, share: count < countCap ? undefined : await sampleShare(this.db, collection, key, word, sampleRows) }))
      .then(({ count, share }) => {
        this.#known.delete(id);
        this.#known.set(id, { count, share, at: this.now() });
        if (this.#known.size > SEARCH_STATS_ENTRIES) this.#known.delete(this.#known.keys().next().value!);
      }, this.onError)
      .finally(() => this.#pending.delete(id));
  }

  /** Forgets what is known of a collection (its tokens were rebuilt). */
  forget(collection: string): void {
    for (const id of this.#known.keys()) if (id.startsWith(`${collection}\u0000`)) this.#known.delete(id);
  }
}

/**
 * The share of the first `rows` rows of a collection in key order that hold a word (as a
 * prefix): `rows` keys, then one index range of the word narrowed to them. Statistics only:
 * a skewed sample changes how fast a search runs, never what it finds.
 */
export async function sampleShare(db: Executor, collection: string, key: Field, word: string, rows: number): Promise<number> {
  const keys = (await db.selectFrom(collection).select(key.name).orderBy(key.name).limit(rows).execute()).map((row) => (row as Record<string, unknown>)[key.name]);
  if (keys.length === 0) return 0;
  const column = keyColumn(key.type.name);
  const row = await db
    .selectFrom(SEARCH_TABLE)
    .select(sql<number>`count(distinct ${sql.ref(column)})`.as('n'))
    .where('collection', '=', collection)
    .where('token', '>=', word)
    .where('token', '<', `${word}${TOKEN_END}`)
    .where(column, 'in', keys)
    .executeTakeFirstOrThrow();
  return Number(row.n) / keys.length;
}

/** Token rows of one word (as a prefix), counted up to `cap`: an index range, read no further than the cap. */
export async function countTokens(db: Executor, collection: string, word: string, cap = SEARCH_COUNT_CAP): Promise<number> {
  const row = await db
    .selectFrom((eb) =>
      eb
        .selectFrom(SEARCH_TABLE)
        .select(sql<number>`1`.as('one'))
        .where('collection', '=', collection)
        .where('token', '>=', word)
        .where('token', '<', `${word}${TOKEN_END}`)
        .limit(cap)
        .as('capped'),
    )
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
