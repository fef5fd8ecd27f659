import { beforeAll, describe, expect, it, vi } from 'vitest';
import { bindFilter } from '../../src/plan/bind-filter.js';
import { evaluateFilter } from '../../src/plan/evaluate-filter.js';
import type { FilterNode } from '../../src/plan/filter-node.js';
import type { Item } from '../../src/schema/collection.js';
import { filterToSql } from '../../src/sql/filter-sql.js';
import type { SearchLimits } from '../../src/store/search-stats.js';
import { DIALECTS } from '../support/test-database.js';
import { apiFor, useDialectApp, type TestApi } from '../support/test-app.js';

// Small thresholds, so 300 rows hold common words: a word in 20 token rows is at the cap, a
// search in a tenth of the rows walks, and a common search's count samples 25 matches.
const LIMITS: SearchLimits = { countCap: 20, probeMax: 10, sampleRows: 25, walkShare: 0.1 };
const ROWS = 300;
const WORDS = ['alpha', 'beta', 'gamma'];
/** Row i (1-based): `post` in every row, one of three words in a third each, `rare` in every 50th; every 4th row on the open shelf. */
const row = (i: number) => ({ title: `Post ${WORDS[i % 3]} ${i % 50 === 0 ? 'rare' : ''}`.trim(), body: `number ${i}`, shelf: i % 4 === 0 ? 'open' : 'hidden' });

for (const dialect of DIALECTS) {
  describe(`$search of common words on ${dialect}`, () => {
    const ctx = useDialectApp(dialect, {}, { store: { search: LIMITS } });
    let items: Item[] = [];
    let reader: TestApi;

    const search = (text: string) => bindFilter({ $search: text }, ctx.built.schema.snapshot.get('memos')!);
    const arranged = (text: string, limited = true) => ctx.built.store.searchStats.arrange(search(text), limited);

    beforeAll(async () => {
      await ctx.api.collection({
        name: 'memos',
        fields: [
          { name: 'title', type: 'string', searchable: true },
          { name: 'body', type: 'text', searchable: true },
          { name: 'shelf', type: 'string' },
        ],
      });
      const rows = Array.from({ length: ROWS }, (_, i) => row(i + 1));
      expect((await ctx.api.post('/api/memos:create', rows)).status).toBe(201);
      items = (await ctx.api.get('/api/memos:list?paginate=false&sort=id')).body.data as Item[];
      const role = await ctx.api.post('/api/roles:create', {
        name: 'shelfReader',
        strategy: { actions: [] },
        resources: [{ name: 'memos', actions: [{ name: 'view', filter: { shelf: 'open' } }] }],
      });
      expect(role.status, role.text).toBe(201);
      expect((await ctx.api.post('/api/users:create', { email: 'reader@corral.test', password: 'reader-password', roles: ['shelfReader'] })).status).toBe(201);
      reader = apiFor(ctx.built, { account: 'reader@corral.test', password: 'reader-password' });
      // The words are counted (and their shares sampled) in the background after a first search.
      for (const text of ['post', 'alpha', 'rare']) await ctx.api.get(`/api/memos:list?q=${text}`);
      await vi.waitFor(() => {
        expect(arranged('post')).toMatchObject({ common: true });
        expect(arranged('alpha')).toMatchObject({ common: true });
        expect(ctx.built.store.searchStats.count('memos', 'rare')).toBeLessThan(LIMITS.countCap);
      });
    });

    it('takes the walk only for words in a large share of the rows, rarest first, and only under a LIMIT', () => {
      expect(arranged('post alpha')).toMatchObject({ common: true, words: ['alpha', 'post'] });
      expect(arranged('post', false)).not.toHaveProperty('common');
      expect(arranged('rare').kind === 'search' && arranged('rare')).not.toHaveProperty('common');
      expect(arranged('post rare')).not.toHaveProperty('common');
    });

    it('finds exactly the rows of the plain evaluation, walked or not', async () => {
      const { db } = ctx.built.database;
      for (const text of ['post', 'alpha', 'post alpha', 'beta post', 'post rare', 'number 7']) {
        const node = search(text);
        if (node.kind !== 'search') throw new Error('a search node');
        const want = items.filter((item) => evaluateFilter(node, item)).map((item) => item.id);
        for (const common of [false, true]) {
          const walk: FilterNode = { ...node, common };
          const rows = await db.selectFrom('memos').select('id').where((eb) => filterToSql(walk, eb, dialect, 'memos')).orderBy('id').execute();
          expect(rows.map((r) => Number(r.id)), `${text} common ${common}`).toEqual(want);
        }
      }
    });

    it('answers each page as the plain evaluation does, with the count estimated for common searches only', async () => {
      const sorts: [string, (a: Item, b: Item) => number][] = [
        ['', (a, b) => Number(a.id) - Number(b.id)],
        ['&sort=-id', (a, b) => Number(b.id) - Number(a.id)],
        ['&sort=title', (a, b) => String(a.title).localeCompare(String(b.title), 'en') || Number(a.id) - Number(b.id)],
      ];
      const cases: [string, boolean][] = [
        ['post', true],
        ['alpha', true],
        ['post alpha', true],
        ['rare', false],
        ['post rare', false],
        ['number 12', false],
      ];
      for (const [text, estimated] of cases) {
        const node = search(text);
        const matches = items.filter((item) => evaluateFilter(node, item));
        for (const [sort, compare] of sorts) {
          for (const page of [1, 3]) {
            const reply = await ctx.api.get(`/api/memos:list?q=${encodeURIComponent(text)}&pageSize=10&page=${page}${sort}`);
            expect(reply.status, reply.text).toBe(200);
            const want = [...matches].sort(compare).slice((page - 1) * 10, page * 10);
            const label = `${text}${sort} page ${page}`;
            if (sort !== '&sort=title') expect(reply.body.data.map((item: Item) => item.id), label).toEqual(want.map((item) => item.id));
            else expect(reply.body.data.map((item: Item) => item.title), label).toEqual(want.map((item) => item.title));
            if (reply.body.data.length === 10) {
              expect(reply.body.meta.countEstimated === true, label).toBe(estimated);
              if (estimated) expect(Math.abs(reply.body.meta.count - matches.length), label).toBeLessThanOrEqual(matches.length * 0.3);
              else expect(reply.body.meta.count, label).toBe(matches.length);
            }
          }
        }
      }
      // `count` stays exact: only a list's total is estimated.
      expect((await ctx.api.get('/api/memos:count?q=post')).body.data).toBe(ROWS);
    });

    it('never returns rows outside the caller scope, and estimates from the visible rows alone', async () => {
      const visible = items.filter((item) => item.shelf === 'open');
      for (const text of ['post', 'alpha', 'post alpha']) {
        const node = search(text);
        const want = visible.filter((item) => evaluateFilter(node, item)).map((item) => item.id);
        const all = items.filter((item) => evaluateFilter(node, item)).length;
        const reply = await reader.get(`/api/memos:list?q=${encodeURIComponent(text)}&pageSize=10`);
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body.data.map((item: Item) => item.id), text).toEqual(want.slice(0, 10));
        expect(reply.body.data.every((item: Item) => item.shelf === 'open'), text).toBe(true);
        // All matches of the reader's view: fewer than a sample, so exact (a full sample may be all of them: then estimated); else an estimate of the visible ones.
        if (want.length < LIMITS.sampleRows) {
          expect(reply.body.meta, text).toMatchObject({ count: want.length });
          expect(reply.body.meta, text).not.toHaveProperty('countEstimated');
        } else {
          expect(reply.body.meta.countEstimated, text).toBe(true);
          expect(Math.abs(reply.body.meta.count - want.length), text).toBeLessThanOrEqual(want.length * 0.3);
        }
        expect(reply.body.meta.count, text).not.toBe(all);
        expect(reply.body.meta.count, text).not.toBe(all - want.length);
      }
    });
  });
}
