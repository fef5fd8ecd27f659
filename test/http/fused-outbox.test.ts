import { beforeAll, describe, expect, it } from 'vitest';
import { useDialectApp, type TestApi } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';
import { everyFieldTypeFields } from '../fixtures/every-field-type.js';
import { eventsAfter as eventsAfterOf, inTransaction as inTransactionOf, type ChangeEvent } from '../support/change-event.js';

/**
 * PostgreSQL writes the event of a flat create or update in the write's own statement
 * (src/write-paths/postgres-fused.ts). Its `key` and `data` must be what the transaction path
 * (outbox.ts, in JS) writes: the same writes go through both paths (a no-op beforeCommit
 * hook turns fusing off) and the events read through changes:list must be equal, for every
 * field type and its edge values.
 */
const FIELDS = [
  ...everyFieldTypeFields({
    string: { name: 'str' },
    text: { name: 'txt' },
    integer: { name: 'int' },
    bigInt: { name: 'big' },
    float: { name: 'flt' },
    double: { name: 'dbl' },
    decimal: { name: 'dec', precision: 20, scale: 4 },
    boolean: { name: 'bool' },
    date: { name: 'at' },
    dateOnly: { name: 'day' },
    time: { name: 'clock' },
    json: { name: 'doc' },
    array: { name: 'list' },
    uuid: { name: 'ref' },
    nanoid: { name: 'tag' },
    sort: { name: 'rank' },
    password: { name: 'secret' },
  }),
  { name: 'code', type: 'string', unique: true },
  { name: 'owner', type: 'belongsTo', target: 'owners' },
];

const TRICKY = `quote" back\\ slash/ new\nline\ttab \u0001\u001f del\u007f ünï 😀 \u2028 'single'`;

/** Rows of edge values; each is created (and later written as an update) through both paths. */
const ROWS: Record<string, unknown>[] = [
  {},
  { str: TRICKY, txt: `${TRICKY}\r\n${'x'.repeat(300)}`, int: -2147483648, big: '9223372036854775807', flt: -0, dbl: 1e-7, dec: '-1234567890123456.5', bool: false, at: '2026-01-02T03:04:05.678+02:00', day: '1000-01-01', clock: '23:59', doc: {}, list: [], ref: 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', tag: 'V1StGXR8_Z5jdHi6B-myT', rank: 0, secret: 'hidden' },
  { str: '', txt: '', int: 2147483647, big: '-9223372036854775808', flt: 0.1, dbl: 1.7976931348623157e308, dec: '0.5', bool: true, at: '9999-12-31T23:59:59.999Z', day: '9999-12-31', clock: '00:00:01', doc: { b: 1, a: [1, { z: null }], '10': 'x', é: '"q', nested: { deeper: { deepest: [true, false, 1.5e300, -2.5e-300] } } }, list: [1, 'two', null, { x: [] }], rank: -7 },
  { big: '9007199254740993', flt: -123.456, dbl: 5e-324, dec: '99', at: 1700000000123, doc: 'just text', list: [[[]]], int: 0 },
  { big: 9007199254740991, dbl: -1e21, dec: '-0.0001', at: '2026-11-22T21:00:00.1Z', doc: 12345678901234567890, list: ['\u0000'.length === 1 ? 'nul-free' : ''] },
  { big: '-9007199254740992', flt: 1e21, doc: [1, 2, { '': '' }], at: '1970-01-01T00:00:00Z' },
];

/** An update of every field to the values of another row (nulls included). */
const UPDATES: Record<string, unknown>[] = [ROWS[2]!, ROWS[1]!, { ...ROWS[3], str: null, doc: null, list: null, bool: null, at: null }];

const DIALECTS_HERE = DIALECTS.filter((name) => name === 'postgres');

// describe.runIf keeps one (skipped) suite in the file when no dialect applies, so vitest does not fail it.
describe.runIf(DIALECTS_HERE.length > 0)('fused outbox (PostgreSQL only)', () => {
  for (const dialect of DIALECTS_HERE) {
    describe(`fused outbox on ${dialect}`, () => {
      const ctx = useDialectApp(dialect, { changesPollMs: 50 });
      let api: TestApi;
      let owner: number;

      const eventsAfter = (after: number, collection?: string): Promise<ChangeEvent[]> => eventsAfterOf(api, after, collection);
      const lastId = async (): Promise<number> => {
        let last = 0;
        for (;;) {
          const page = await eventsAfter(last);
          if (page.length === 0) return last;
          last = page.at(-1)!.id;
        }
      };
      const inTransaction = <T>(write: () => Promise<T>): Promise<T> => inTransactionOf(ctx.built, write);
      /** The event a write made, and the path it took. */
      const eventOf = async (write: () => Promise<{ status: number; text: string; body: { data: Record<string, unknown> } }>, status: number): Promise<{ event: ChangeEvent; fused: boolean }> => {
        const mark = await lastId();
        const fused = ctx.built.store.fusedWrites;
        const reply = await write();
        expect(reply.status, reply.text).toBe(status);
        const events = await eventsAfter(mark, 'kinds');
        expect(events).toHaveLength(1);
        // The row as the API answers it (decoded in JS): the event says the same, write times included.
        expect(events[0]!.data).toStrictEqual(reply.body.data);
        return { event: events[0]!, fused: ctx.built.store.fusedWrites > fused };
      };
      /** What must differ between two rows written one after the other: key, unique code and write times. */
      const ROW_OWN = { id: 0, code: '', createdAt: '', updatedAt: '' };
      const comparable = (event: ChangeEvent) => ({
        collection: event.collection,
        action: event.action,
        keyType: typeof event.key,
        keyIsId: event.key === event.data.id,
        data: { ...event.data, ...ROW_OWN },
        order: Object.keys(event.data),
      });

      beforeAll(async () => {
        api = ctx.api;
        await api.collection({ name: 'owners', fields: [{ name: 'name', type: 'string' }] });
        await api.collection({ name: 'kinds', fields: FIELDS });
        await api.collection({ name: 'coded', autoGenId: false, timestamps: false, fields: [{ name: 'code', type: 'string', primaryKey: true }, { name: 'big', type: 'bigInt' }] });
        await api.collection({ name: 'bigs', idType: 'bigInt', fields: [{ name: 'label', type: 'string' }] });
        owner = (await api.post('/api/owners:create', { name: 'o' })).body.data.id;
      });

      it('writes the same event data as the transaction path for every field type and edge value', async () => {
        let n = 0;
        for (const values of ROWS) {
          // A sort value given (without one, create fills max + 1 in a transaction).
          const body = (tag: string) => ({ rank: 1, ...values, code: `${tag}${n}`, ownerId: values === ROWS[0] ? null : owner });
          n++;
          const fast = await eventOf(() => api.post('/api/kinds:create', body('f')), 201);
          const slow = await eventOf(() => inTransaction(() => api.post('/api/kinds:create', body('t'))), 201);
          expect(fast.fused).toBe(true);
          expect(slow.fused).toBe(false);
          expect(comparable(fast.event)).toStrictEqual(comparable(slow.event));
          expect(fast.event.data).not.toHaveProperty('secret');

          for (const update of UPDATES) {
            const fastUpdate = await eventOf(() => api.put(`/api/kinds/${String(fast.event.key)}`, update), 200);
            const slowUpdate = await eventOf(() => inTransaction(() => api.put(`/api/kinds/${String(slow.event.key)}`, update)), 200);
            expect(fastUpdate.fused).toBe(true);
            expect(slowUpdate.fused).toBe(false);
            expect(fastUpdate.event.action).toBe('update');
            expect(comparable(fastUpdate.event)).toStrictEqual(comparable(slowUpdate.event));
          }
        }
        // Every fused statement was compiled once and kept (its two passes agree on key and values).
        expect(ctx.built.store.shapes.stats(ctx.built.schema.snapshot.get('kinds')!).refused).toBe(0);
      });

      it('writes string and bigInt keys as the transaction path does', async () => {
        const cases = [
          { collection: 'coded', body: { code: 'a"b\\c ü😀 \u0001', big: '9223372036854775807' } },
          { collection: 'coded', body: { code: 'plain', big: 5 } },
          { collection: 'bigs', body: { id: '9007199254740993', label: 'huge' } },
          { collection: 'bigs', body: { label: 'next' } },
        ];
        for (const { collection, body } of cases) {
          const mark = await lastId();
          const fused = ctx.built.store.fusedWrites;
          const created = await api.post(`/api/${collection}:create`, body);
          expect(created.status, created.text).toBe(201);
          const key = created.body.data[collection === 'coded' ? 'code' : 'id'];
          expect(ctx.built.store.fusedWrites).toBe(fused + 1);
          const [fast] = await eventsAfter(mark, collection);
          expect(fast).toMatchObject({ action: 'create', key, data: created.body.data });
          const again = await inTransaction(() => api.put(`/api/${collection}/${encodeURIComponent(String(key))}`, { [collection === 'coded' ? 'big' : 'label']: collection === 'coded' ? '-9223372036854775808' : 'again' }));
          expect(again.status, again.text).toBe(200);
          const update = await api.put(`/api/${collection}/${encodeURIComponent(String(key))}`, { [collection === 'coded' ? 'big' : 'label']: collection === 'coded' ? '-9223372036854775808' : 'again' });
          expect(update.status, update.text).toBe(200);
          const [slow, quick] = (await eventsAfter(mark, collection)).slice(1);
          expect(quick!.key).toStrictEqual(slow!.key);
          expect({ ...quick!.data, updatedAt: '' }).toStrictEqual({ ...slow!.data, updatedAt: '' });
          expect(quick!.data).toStrictEqual(update.body.data);
        }
      });

      it('keeps the JSON text of key and data as the transaction path writes it', async () => {
        const rows = await ctx.built.database.db
          .selectFrom('corral_changes')
          .select(['key', 'data'])
          .where('collection', '=', 'kinds')
          .orderBy('id')
          .execute();
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows as { key: string; data: string }[]) {
          const data = JSON.parse(row.data) as Record<string, unknown>;
          expect(row.key).toBe(JSON.stringify(data.id));
        }
      });

      it('maps constraint errors of a fused write to the same 4xx and records no event', async () => {
        const mark = await lastId();
        const fused = ctx.built.store.fusedWrites;
        await api.post('/api/kinds:create', { code: 'taken', rank: 1 });
        const duplicate = await api.post('/api/kinds:create', { code: 'taken', rank: 1 });
        expect(duplicate.status, duplicate.text).toBe(409);
        expect(duplicate.body.errors[0]).toMatchObject({ code: 'UNIQUE_VIOLATION' });
        const missingOwner = await api.post('/api/kinds:create', { code: 'orphan', rank: 1, ownerId: 999999 });
        expect(missingOwner.status, missingOwner.text).toBe(409);
        expect(missingOwner.body.errors[0]).toMatchObject({ code: 'REFERENCE_VIOLATION' });
        const other = (await api.post('/api/kinds:create', { code: 'other', rank: 1 })).body.data.id;
        const updateDuplicate = await api.put(`/api/kinds/${other}`, { code: 'taken' });
        expect(updateDuplicate.status, updateDuplicate.text).toBe(409);
        expect(updateDuplicate.body.errors[0]).toMatchObject({ code: 'UNIQUE_VIOLATION' });
        expect(ctx.built.store.fusedWrites).toBe(fused + 5);
        const events = await eventsAfter(mark, 'kinds');
        expect(events.map((event) => `${event.action}:${String(event.data.code)}`)).toEqual(['create:taken', 'create:other']);
      });

      it('destroys by one key in one statement with the event the transaction path writes', async () => {
        const rows: number[] = [];
        for (const [index, values] of ROWS.entries()) {
          rows.push((await api.post('/api/kinds:create', { rank: 1, ...values, code: `gone${index}`, ownerId: owner })).body.data.id as number);
          rows.push((await api.post('/api/kinds:create', { rank: 1, ...values, code: `gone-t${index}`, ownerId: owner })).body.data.id as number);
        }
        for (let index = 0; index < rows.length; index += 2) {
          const before = (await api.get(`/api/kinds/${rows[index]}`)).body.data;
          const fast = await eventOf(async () => ({ ...(await api.del(`/api/kinds/${rows[index]}`)), body: { data: before } }), 200);
          const beforeSlow = (await api.get(`/api/kinds/${rows[index + 1]}`)).body.data;
          const slow = await eventOf(async () => ({ ...(await inTransaction(() => api.del(`/api/kinds/${rows[index + 1]}`))), body: { data: beforeSlow } }), 200);
          expect(fast.fused).toBe(true);
          expect(slow.fused).toBe(false);
          expect(fast.event).toMatchObject({ action: 'destroy', key: rows[index] });
          expect(comparable(fast.event)).toStrictEqual(comparable(slow.event));
        }
        // Gone already: 404 and no event.
        const mark = await lastId();
        expect((await api.del(`/api/kinds/${rows[0]}`)).status).toBe(404);
        expect(await eventsAfter(mark, 'kinds')).toEqual([]);
      });

      it('keeps a destroy that may cascade in its transaction', async () => {
        const other = (await api.post('/api/owners:create', { name: 'parent' })).body.data.id;
        const child = (await api.post('/api/kinds:create', { rank: 1, code: 'child-of-parent', ownerId: other })).body.data.id;
        const mark = await lastId();
        const fused = ctx.built.store.fusedWrites;
        expect((await api.del(`/api/owners/${other}`)).status).toBe(200);
        expect(ctx.built.store.fusedWrites).toBe(fused);
        const events = await eventsAfter(mark);
        expect(events.map((event) => `${event.collection}.${event.action}`).sort()).toEqual(['kinds.update', 'owners.destroy']);
        expect(events.find((event) => event.collection === 'kinds')).toMatchObject({ key: child, data: { ownerId: null } });
      });

      it('records no event for an update that matched no row', async () => {
        const mark = await lastId();
        const reply = await api.put('/api/kinds/987654321', { str: 'nobody' });
        expect(reply.status).toBe(404);
        expect(await eventsAfter(mark, 'kinds')).toEqual([]);
      });
    });
  }
});
