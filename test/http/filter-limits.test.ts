import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_FILTER_CONDITIONS, MAX_FILTER_DEPTH, MAX_FILTER_TEXT, MAX_IN_VALUES, MAX_SEARCH_WORDS } from '../../src/request/filter-limits.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';

/**
 * Each filter limit (API.md §5) on every path a filter arrives by: the `filter` query
 * parameter as JSON text (list, count, destroy), qs's nested form, and a JSON body (`query`).
 * One catalogue code, FILTER_TOO_COMPLEX, with the limit's own message and
 * `details: {limit, max, actual}`; a filter exactly at a limit is accepted.
 */

const nested = (levels: number): Record<string, unknown> => {
  let filter: Record<string, unknown> = { views: 1 };
  for (let i = 1; i < levels; i++) filter = { $not: filter };
  return filter;
};
const conditions = (n: number) => ({ $or: Array.from({ length: n }, (_, i) => ({ views: i })) });
const words = (n: number) => ({ $search: Array.from({ length: n }, (_, i) => `w${i}`).join(' ') });
const values = (n: number) => ({ views: { $in: Array.from({ length: n }, (_, i) => i) } });
/** A filter whose JSON text is `bytes` long (one long string value). */
const sized = (bytes: number) => {
  const filter = { title: { $includes: '' } };
  const overhead = JSON.stringify(filter).length;
  return { title: { $includes: 'x'.repeat(bytes - overhead) } };
};

interface LimitCase {
  limit: 'text' | 'depth' | 'conditions' | 'values' | 'searchWords';
  max: number;
  /** A filter at the limit (accepted) and one past it, with its measured size. */
  within: unknown;
  past: unknown;
  actual: number;
  message: RegExp;
}

const CASES: LimitCase[] = [
  { limit: 'text', max: MAX_FILTER_TEXT, within: sized(MAX_FILTER_TEXT), past: sized(MAX_FILTER_TEXT + 100), actual: MAX_FILTER_TEXT + 100, message: /filter text is \d+ bytes, longer than 16384/ },
  { limit: 'depth', max: MAX_FILTER_DEPTH, within: nested(MAX_FILTER_DEPTH), past: nested(MAX_FILTER_DEPTH + 3), actual: MAX_FILTER_DEPTH + 3, message: /nests at most 8 levels, this one 11/ },
  { limit: 'conditions', max: MAX_FILTER_CONDITIONS, within: conditions(MAX_FILTER_CONDITIONS), past: conditions(MAX_FILTER_CONDITIONS + 50), actual: MAX_FILTER_CONDITIONS + 50, message: /at most 200 conditions, this one 250/ },
  { limit: 'values', max: MAX_IN_VALUES, within: values(MAX_IN_VALUES), past: values(MAX_IN_VALUES + 1), actual: MAX_IN_VALUES + 1, message: /\$in takes at most 1000 values, got 1001/ },
  { limit: 'searchWords', max: MAX_SEARCH_WORDS, within: words(MAX_SEARCH_WORDS), past: words(MAX_SEARCH_WORDS + 2), actual: MAX_SEARCH_WORDS + 2, message: /\$search takes at most 16 words, got 18/ },
];

const f = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));

/** The paths a filter arrives by: [name, request]. */
const PATHS: [string, (api: TestApi, filter: unknown) => ReturnType<TestApi['get']>][] = [
  ['list ?filter= (URL)', (api, filter) => api.get(`/api/posts:list?filter=${f(filter)}`)],
  ['count ?filter= (URL)', (api, filter) => api.get(`/api/posts:count?filter=${f(filter)}`)],
  ['destroy ?filter= (URL)', (api, filter) => api.post(`/api/posts:destroy?filter=${f(filter)}`)],
  ['query body filter (POST)', (api, filter) => api.post('/api/posts:query', { measures: [{ aggregation: 'count', alias: 'n' }], filter })],
];

for (const dialect of DIALECTS) {
  describe(`filter limits on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);

    beforeAll(async () => {
      await ctx.api.collection({ name: 'posts', fields: [{ name: 'title', type: 'string', searchable: true }, { name: 'views', type: 'integer' }] });
      expect((await ctx.api.post('/api/posts:create', [{ title: 'w0 w1', views: 1 }, { title: 'other', views: 2 }])).status).toBe(201);
    });

    for (const c of CASES) {
      for (const [path, send] of PATHS) {
        // A destroy that passes its limit would delete rows: the accepted side runs on the reads only.
        it(`${c.limit}: accepts ${c.max} and refuses more with 400 FILTER_TOO_COMPLEX {limit, max, actual} via ${path}`, async () => {
          if (!path.startsWith('destroy')) {
            const ok = await send(ctx.api, c.within);
            expect(ok.status, ok.text.slice(0, 300)).toBe(200);
          }
          const reply = await send(ctx.api, c.past);
          expect(reply.status, reply.text.slice(0, 300)).toBe(400);
          expect(reply.body.errors).toHaveLength(1);
          const [error] = reply.body.errors;
          expect(error.code).toBe('FILTER_TOO_COMPLEX');
          expect(error.message).toMatch(c.message);
          expect(error.details).toEqual({ limit: c.limit, max: c.max, actual: c.limit === 'text' ? expect.any(Number) : c.actual });
          if (c.limit === 'text') expect(error.details.actual).toBeGreaterThan(MAX_FILTER_TEXT);
        });
      }
    }

    it('measures the text in UTF-8 bytes, not characters', async () => {
      // 6,000 three-byte characters: 18,000 bytes in under 16,384 characters.
      const reply = await ctx.api.get(`/api/posts:list?filter=${f({ title: '€'.repeat(6000) })}`);
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0].details).toEqual({ limit: 'text', max: MAX_FILTER_TEXT, actual: Buffer.byteLength(JSON.stringify({ title: '€'.repeat(6000) })) });
    });

    it('bounds the qs nested form by the same text limit', async () => {
      const query = Array.from({ length: 700 }, (_, i) => `filter[$or][${i}][title]=${'y'.repeat(20)}`).join('&');
      const reply = await ctx.api.get(`/api/posts:list?${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0]).toMatchObject({ code: 'FILTER_TOO_COMPLEX', details: { limit: 'text', max: MAX_FILTER_TEXT } });
    });

    it('reports a size limit before what else is wrong further in, and deletes nothing', async () => {
      const deep = nested(MAX_FILTER_DEPTH + 1);
      let inner = deep;
      while ('$not' in inner) inner = inner.$not as Record<string, unknown>;
      inner.nope = 1;
      const reply = await ctx.api.post(`/api/posts:destroy?filter=${f(deep)}`);
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0]).toMatchObject({ code: 'FILTER_TOO_COMPLEX', details: { limit: 'depth', max: MAX_FILTER_DEPTH, actual: MAX_FILTER_DEPTH + 1 } });
      expect((await ctx.api.get('/api/posts:count')).body.data).toBe(2);
    });
  });
}
