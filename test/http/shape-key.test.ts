import { beforeAll, describe, expect, it, vi } from 'vitest';
import { bindFilter } from '../../src/plan/bind-filter.js';
import { matchesSearch, tokenize } from '../../src/text/search-tokens.js';
import { SEARCH_COUNT_CAP } from '../../src/store/search-stats.js';
import { random } from '../support/filter-arbitraries.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

/**
 * The shape cache over HTTP: requests of one structure with other values (substrings,
 * `$search` words, association paths, sorts through associations, keyset cursors of any page)
 * share one cached statement, in a shuffled order, and every answer is still the right rows in
 * the right order (computed here from the rows), on every database. A key shared by two SQL
 * texts would run the first one's text with the second one's values and answer wrong rows.
 */

interface Owner {
  id: number;
  label: string | null;
  rank: number | null;
}
interface Widget {
  id: number;
  label: string | null;
  rank: number | null;
  ownerId: number | null;
}

const OWNERS: Omit<Owner, 'id'>[] = [
  { label: 'al', rank: 3 },
  { label: null, rank: null },
  { label: 'Bea', rank: 1 },
  { label: 'cy', rank: 2 },
  { label: 'al', rank: null },
];
const PHRASES = ['apple pie', 'red fruit', 'Apple tart', 'blue berry', 'pie crust'];
const WIDGETS: Omit<Widget, 'id'>[] = Array.from({ length: 40 }, (_, i) => ({
  label: i % 7 === 0 ? null : `${PHRASES[i % 5]} ${i % 3}`,
  rank: i % 6 === 0 ? null : i % 4,
  ownerId: i % 9 === 0 ? null : (i % 5) + 1,
}));

type Value = string | number | null;

/** Ascending or descending with NULLs last either way; ties go to the next term, and finally to the id. */
function ordered(rows: Widget[], terms: [(row: Widget) => Value, 'asc' | 'desc'][]): number[] {
  const compare = (a: Widget, b: Widget): number => {
    for (const [value, direction] of terms) {
      const x = value(a);
      const y = value(b);
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * (direction === 'asc' ? 1 : -1);
    }
    return a.id - b.id;
  };
  return [...rows].sort(compare).map((row) => row.id);
}

const f = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));

for (const dialect of DIALECTS) {
  describe(`requests of one shape with other values share one cached statement on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const owners: Owner[] = OWNERS.map((owner, i) => ({ id: i + 1, ...owner }));
    const widgets: Widget[] = WIDGETS.map((widget, i) => ({ id: i + 1, ...widget }));
    const ownerOf = (row: Widget): Owner | undefined => owners.find((owner) => owner.id === row.ownerId);

    beforeAll(async () => {
      await ctx.api.collection({ name: 'owners', fields: [{ name: 'label', type: 'string' }, { name: 'rank', type: 'integer' }] });
      await ctx.api.collection({
        name: 'widgets',
        fields: [
          { name: 'label', type: 'string', searchable: true },
          { name: 'rank', type: 'integer' },
          { name: 'owner', type: 'belongsTo', target: 'owners' },
        ],
      });
      expect((await ctx.api.post('/api/owners:create', OWNERS)).status).toBe(201);
      expect((await ctx.api.post('/api/widgets:create', WIDGETS)).status).toBe(201);
    });

    /** [query, the ids it must answer in order]; each family is one structure with other values. */
    const requests = (): [string, number[]][] => [
      ...['pie', 'APPLE', 'r', 'zzz'].map((term): [string, number[]] => [
        `filter=${f({ label: { $includes: term } })}&sort=-rank`,
        ordered(widgets.filter((w) => w.label !== null && w.label.toLowerCase().includes(term.toLowerCase())), [[(w) => w.rank, 'desc']]),
      ]),
      ...['apple', 'pie cr', 'FRU', 'ber 1', 'nothing'].map((text): [string, number[]] => [
        `filter=${f({ $search: text })}&sort=rank`,
        ordered(widgets.filter((w) => matchesSearch(tokenize(text), [w.label])), [[(w) => w.rank, 'asc']]),
      ]),
      ...['al', 'Bea', 'cy', 'none'].map((label): [string, number[]] => [
        `filter=${f({ owner: { label: { $eq: label } } })}&sort=-owner.rank`,
        ordered(widgets.filter((w) => ownerOf(w)?.label === label), [[(w) => ownerOf(w)?.rank ?? null, 'desc']]),
      ]),
      ...[0, 1, 2].map((min): [string, number[]] => [
        `filter=${f({ rank: { $gte: min } })}&sort=owner.rank,-rank`,
        ordered(widgets.filter((w) => w.rank !== null && w.rank >= min), [[(w) => ownerOf(w)?.rank ?? null, 'asc'], [(w) => w.rank, 'desc']]),
      ]),
    ];

    /** Every id of a query, page by page through cursors. */
    async function walk(query: string, pageSize: number): Promise<number[]> {
      const ids: number[] = [];
      let cursor = '';
      for (let page = 0; page < 100; page++) {
        const reply = await ctx.api.get(`/api/widgets:list?${query}&fields=id&pageSize=${pageSize}&cursor=${encodeURIComponent(cursor)}`);
        expect(reply.status, reply.text).toBe(200);
        ids.push(...(reply.body.data as { id: number }[]).map((item) => item.id));
        if (!reply.body.meta.hasNext) return ids;
        cursor = reply.body.meta.nextCursor as string;
      }
      throw new Error('too many pages');
    }

    it('answers every request of a shuffled mix (one page, and every cursor page) with the right rows in order, caching each shape once', async () => {
      const r = random(0x5eed2026);
      const runs = [...requests().map(([query, ids]) => ({ query, ids, pageSize: 100 })), ...requests().map(([query, ids]) => ({ query, ids, pageSize: 4 }))];
      for (let i = runs.length - 1; i > 0; i--) {
        const j = r.int(0, i);
        [runs[i], runs[j]] = [runs[j]!, runs[i]!];
      }
      let requestsSent = 0;
      for (const { query, ids, pageSize } of runs) {
        expect(await walk(query, pageSize), `${query} pageSize ${pageSize}`).toEqual(ids);
        requestsSent += Math.max(1, Math.ceil(ids.length / pageSize));
      }
      const collection = ctx.built.schema.snapshot.get('widgets')!;
      const stats = ctx.built.store.shapes.stats(collection);
      expect(stats.refused).toBe(0);
      // Shapes differ by structure only (filter, sort, page size, which cursor values are NULL,
      // how many `$search` words): far fewer than the runs, let alone the requests.
      expect(stats.cached).toBeLessThan(runs.length);
      expect(requestsSent).toBeGreaterThan(3 * stats.cached);
    });

    it('answers a multi-word $search alike before and after the store counts its words: each SQL form under its own key', async () => {
      const collection = ctx.built.schema.snapshot.get('widgets')!;
      const { shapes, searchStats } = ctx.built.store;
      // Words no earlier request counted (a one-word search counts its word too: `apple` was), under a sort no earlier search used: every shape here is new.
      const texts = ['tart appl', 'blue berry', 'fruit red'];
      const round = async (): Promise<number> => {
        for (const text of texts) {
          const want = ordered(widgets.filter((w) => matchesSearch(tokenize(text), [w.label])), [[(w) => w.rank, 'desc']]);
          expect(want.length, text).toBeGreaterThan(0);
          expect(await walk(`filter=${f({ $search: text })}&sort=-rank`, 100), text).toEqual(want);
        }
        expect(shapes.stats(collection).refused).toBe(0);
        return shapes.stats(collection).cached;
      };
      const before = shapes.stats(collection).cached;
      // Counts unknown: every word counts as common (a list per word, nested on PostgreSQL).
      const unknown = await round();
      expect(unknown).toBe(before + 1);
      await vi.waitFor(() => {
        for (const word of texts.flatMap((text) => tokenize(text))) expect(searchStats.count('widgets', word), word).toBeLessThan(SEARCH_COUNT_CAP);
      });
      for (const text of texts) expect(searchStats.arrange(bindFilter({ $search: text }, collection))).toMatchObject({ probe: true });
      // Counted: the rarest word is the list and the other is probed, another text under another key.
      expect(await round()).toBe(unknown + 1);
    });
  });
}
