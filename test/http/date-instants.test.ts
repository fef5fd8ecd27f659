import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { utcInstantText } from '../../src/db/postgres-instant.js';
import type { Dialect } from '../../src/schema/types.js';
import { apiFor, testConfig, type TestApi } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

/** Instants whose PostgreSQL text has no, one, two or three fraction digits, and edge years. */
const INSTANTS = [
  '2026-01-02T03:04:05.000Z',
  '2026-01-02T03:04:05.500Z',
  '2026-01-02T03:04:05.120Z',
  '2026-01-02T03:04:05.123Z',
  '1999-12-31T23:59:59.999Z',
  '1000-01-01T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '2024-02-29T12:00:00.001Z',
];

describe('utcInstantText (PostgreSQL timestamptz text → wire form)', () => {
  it.each([
    ['2026-11-22 18:49:36.036+00', '2026-11-22T18:49:36.036Z'],
    ['2026-11-22 18:49:36+00', '2026-11-22T18:49:36.000Z'],
    ['2026-11-22 18:49:36.5+00', '2026-11-22T18:49:36.500Z'],
    ['2026-11-22 18:49:36.12+00', '2026-11-22T18:49:36.120Z'],
    ['2026-11-22 18:49:36.123456+00', '2026-11-22T18:49:36.123Z'],
    ['2026-11-22 18:49:36.999999+00', '2026-11-22T18:49:36.999Z'],
    ['0099-01-01 00:00:00+00', '0099-01-01T00:00:00.000Z'],
  ])('reads %s as %s', (text, wire) => {
    expect(utcInstantText(text)).toBe(wire);
    // The same instant the driver's Date would give.
    expect(new Date(wire).getTime()).toBe(Date.parse(`${text.replace(' ', 'T').replace('+00', '').replace(/(\.\d{3})\d+/, '$1')}Z`));
  });

  it.each(['2026-11-22 18:49:36.036+05:30', '2026-11-22 18:49:36-08', '2026-11-22 18:49:36+00 BC', 'infinity', '-infinity', '12026-01-01 00:00:00+00'])(
    'leaves %s to the driver',
    (text) => {
      expect(utcInstantText(text)).toBeUndefined();
    },
  );
});

/** Session time zones to read under: PostgreSQL prints timestamptz in the session's zone. */
function zonesOf(dialect: Dialect): Array<string | undefined> {
  return dialect === 'postgres' ? ['UTC', 'Asia/Kolkata', 'America/St_Johns'] : [undefined];
}

for (const dialect of DIALECTS) {
  describe.each(zonesOf(dialect))(`date values on ${dialect} (session time zone %s)`, (zone) => {
    let database: TestDatabase;
    let built: BuiltApp;
    let api: TestApi;
    beforeAll(async () => {
      database = await createTestDatabase(dialect);
      if (zone !== undefined) {
        const { default: pg } = await import('pg');
        const client = new pg.Client({ connectionString: database.url });
        await client.connect();
        await client.query(`alter database "${new URL(database.url).pathname.slice(1)}" set timezone = '${zone}'`);
        await client.end();
      }
      built = await buildApp(testConfig(database));
      api = apiFor(built);
      await api.collection({ name: 'events', fields: [{ name: 'at', type: 'date' }] });
    });
    afterAll(async () => {
      await built?.close();
      await database?.drop();
    });

    it('answers every instant exactly as written, in get, list, filter and automatic timestamps', async () => {
      const ids: number[] = [];
      for (const at of INSTANTS) {
        const created = await api.post('/api/events', { at });
        expect(created.status, at).toBe(201);
        expect(created.body.data.at).toBe(at);
        expect(created.body.data.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        ids.push(created.body.data.id);
      }
      for (const [i, at] of INSTANTS.entries()) {
        expect((await api.get(`/api/events/${ids[i]}`)).body.data.at).toBe(at);
        const filter = encodeURIComponent(JSON.stringify({ at: { $eq: at } }));
        const listed = await api.get(`/api/events:list?filter=${filter}`);
        expect(listed.body.data.map((item: { at: string }) => item.at)).toEqual([at]);
      }
      const all = await api.get('/api/events:list?sort=at&pageSize=100');
      expect(all.body.data.map((item: { at: string }) => item.at)).toEqual([...INSTANTS].sort());
    });
  });
}
