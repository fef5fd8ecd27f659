import { beforeAll, describe, expect, it } from 'vitest';
import { bindFilter } from '../../src/plan/bind-filter.js';
import { evaluateFilter } from '../../src/plan/evaluate-filter.js';
import type { Item } from '../../src/schema/collection.js';
import { parseTimeZone } from '../../src/request/time-zone.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type TestApi } from '../support/test-app.js';

/**
 * NocoBase's date operator tests, ported in our words and run over HTTP on every dialect:
 * packages/core/database/src/__tests__/operator/date-operator.test.ts (the same cases as
 * operator/date/datetime-tz.test.ts) on a `date` field with the database in UTC, and
 * operator/date/date-only.test.ts on a `dateOnly` field with the database in +08:00 (here the
 * request's `X-Timezone`). Each NocoBase test's rows carry a `batch`; a case ANDs it in, so the
 * expected count is the one NocoBase's test expects. The in-memory evaluator must agree.
 */

const encode = (value: unknown): string => encodeURIComponent(JSON.stringify(value));

const INSTANTS = {
  u0: '2023-01-01T00:00:00.000Z',
  u1: '2023-01-01T00:00:00.001Z',
  u2: '2022-12-31T16:00:00.000Z',
  u3: '2022-12-31T16:00:00.001Z',
  u4: '2022-12-30T15:59:59.999Z',
  u5: '2023-01-05T16:00:00.000Z',
  u6: '2023-01-04T16:00:00.000Z',
} as const;

/** The rows each NocoBase test creates (its `$dateBetween` test has u0, u5, u2, u3, u4, u6). */
const BATCHES: Record<string, (keyof typeof INSTANTS)[]> = {
  four: ['u0', 'u1', 'u2', 'u3'],
  five: ['u0', 'u1', 'u2', 'u3', 'u4'],
  between: ['u0', 'u5', 'u2', 'u3', 'u4', 'u6'],
};

type Case = [title: string, batch: string, filter: unknown, count: number];

const DATE_CASES: Case[] = [
  ['$dateOn', 'four', { 'date1.$dateOn': '2023' }, 2],
  ['$dateOn (zone suffix)', 'four', { 'date1.$dateOn': '2023+08:00' }, 4],
  ['$dateNotOn', 'four', { 'date1.$dateNotOn': '2023' }, 2],
  ['$dateNotOn (zone suffix)', 'four', { 'date1.$dateNotOn': '2023+08:00' }, 0],
  ['$dateBefore', 'five', { 'date1.$dateBefore': '2023' }, 3],
  ['$dateBefore (zone suffix)', 'five', { 'date1.$dateBefore': '2023+08:00' }, 1],
  ['$dateNotBefore', 'five', { 'date1.$dateNotBefore': '2023' }, 2],
  ['$dateNotBefore (zone suffix)', 'five', { 'date1.$dateNotBefore': '2023+08:00' }, 4],
  ['$dateAfter', 'five', { 'date1.$dateAfter': '2022' }, 2],
  ['$dateAfter (zone suffix)', 'five', { 'date1.$dateAfter': '2022+08:00' }, 4],
  ['$dateNotAfter', 'five', { 'date1.$dateNotAfter': '2022' }, 3],
  ['$dateNotAfter (zone suffix)', 'five', { 'date1.$dateNotAfter': '2022+08:00' }, 1],
  ['$dateBetween (range text)', 'between', { 'date1.$dateBetween': '[2023-01-01,2023-01-05]' }, 3],
  ['$dateBetween (range text, zone suffix)', 'between', { 'date1.$dateBetween': '[2023-01-01,2023-01-05]+08:00' }, 4],
  // The other forms of the same periods (utils/src/__tests__/parse-date.test.ts: parse date between).
  ['$dateBetween (array)', 'between', { 'date1.$dateBetween': ['2023-01-01', '2023-01-05'] }, 3],
  ['$dateBetween (array, brackets and zone)', 'between', { 'date1.$dateBetween': ['2023-01-01', '2023-01-05', '[]', '+08:00'] }, 4],
  ['$dateBetween (open end)', 'between', { 'date1.$dateBetween': '[2023-01-01,2023-01-05)+08:00' }, 3],
  ['$dateOn (range text)', 'four', { 'date1.$dateOn': '[2023,2023]' }, 2],
  ['$dateOn (the nested form)', 'four', { date1: { $dateOn: '2023+08:00' } }, 4],
];

/** operator/date/date-only.test.ts: u0, u1 on 2023-01-01, u2, u3 on 2022-12-31, read in +08:00. */
const DATE_ONLY_CASES: [title: string, filter: unknown, count: number][] = [
  ['$dateOn', { 'date1.$dateOn': '2022-12-31' }, 2],
  ['$dateOn (the other day)', { 'date1.$dateOn': '2023-01-01' }, 2],
  ['$dateBefore', { 'date1.$dateBefore': '2023-01-01' }, 2],
  ['$dateBefore (nothing earlier)', { 'date1.$dateBefore': '2022-12-31' }, 0],
  ['dateBetween', { 'date1.$dateBetween': ['2022-12-31', '2023-01-01'] }, 4],
  ['dateBetween (one day)', { 'date1.$dateBetween': ['2022-12-31', '2022-12-31'] }, 2],
  ['dateBetween (range text)', { 'date1.$dateBetween': '[2022-12-31,2022-12-31]' }, 2],
  // A zone the value names replaces the request's, for the days too.
  ['$dateOn (zone suffix)', { 'date1.$dateOn': '2023-01-01-02:00' }, 2],
];

for (const dialect of DIALECTS) {
  describe(`NocoBase date operator cases on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let api: TestApi;

    async function count(collection: string, batch: string, filter: unknown, zone?: string): Promise<number> {
      const scoped = { $and: [{ batch }, filter] };
      const headers: Record<string, string> = zone === undefined ? {} : { 'x-timezone': zone };
      const reply = await api.request('GET', `/api/${collection}:list?paginate=false&sort=id&filter=${encode(scoped)}`, undefined, headers);
      expect(reply.status, reply.text).toBe(200);
      const items = reply.body.data as Item[];
      const all = (await api.get(`/api/${collection}:list?paginate=false&sort=id`)).body.data as Item[];
      const node = bindFilter(scoped, ctx.built.schema.snapshot.get(collection)!, zone === undefined ? undefined : parseTimeZone(zone));
      expect(all.filter((item) => evaluateFilter(node, item)).map((item) => item.id)).toEqual(items.map((item) => item.id));
      const counted = await api.request('GET', `/api/${collection}:count?filter=${encode(scoped)}`, undefined, headers);
      expect(counted.body.data).toBe(items.length);
      return items.length;
    }

    beforeAll(async () => {
      api = ctx.api;
      await api.collection({ name: 'moments', fields: [{ name: 'date1', type: 'date' }, { name: 'name', type: 'string' }, { name: 'batch', type: 'string' }] });
      await api.collection({ name: 'days', fields: [{ name: 'date1', type: 'dateOnly' }, { name: 'name', type: 'string' }, { name: 'batch', type: 'string' }] });
      const moments = Object.entries(BATCHES).flatMap(([batch, names]) => names.map((name) => ({ name, batch, date1: INSTANTS[name] })));
      const days = [['u0', '2023-01-01'], ['u1', '2023-01-01'], ['u2', '2022-12-31'], ['u3', '2022-12-31']].map(([name, date1]) => ({ name, date1, batch: 'd' }));
      for (const [collection, rows] of [['moments', moments], ['days', days]] as const) {
        const reply = await api.post(`/api/${collection}:create`, rows);
        expect(reply.status, reply.text).toBe(201);
      }
    });

    it.each(DATE_CASES)('operator/date-operator.test.ts: %s', async (_title, batch, filter, want) => {
      expect(await count('moments', batch, filter)).toBe(want);
    });

    it.each(DATE_ONLY_CASES)('operator/date/date-only.test.ts: %s', async (_title, filter, want) => {
      expect(await count('days', 'd', filter, '+08:00')).toBe(want);
    });

    it('refuses a zone suffix or range that is none with 400 FILTER_OPERATOR_TYPE', async () => {
      for (const value of ['2023+25:00', '[2023,2024', '[2023;2024]', '[2023,nope]', ['2023', '2024', '[['], ['2023', '2024', '[]', 'Mars/Olympus']]) {
        const reply = await api.get(`/api/moments:list?filter=${encode({ 'date1.$dateOn': value })}`);
        expect(reply.status, JSON.stringify(value)).toBe(400);
        expect(reply.body.errors[0].code).toBe('FILTER_OPERATOR_TYPE');
      }
    });
  });
}
