import { beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp } from '../support/test-app.js';

for (const dialect of DIALECTS) {
  describe(`query action on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const query = (body: unknown) => ctx.api.post('/api/orders:query', body);

    beforeAll(async () => {
      await ctx.api.collection({ name: 'customers', fields: [{ name: 'name', type: 'string' }, { name: 'country', type: 'string' }] });
      await ctx.api.collection({
        name: 'orders',
        fields: [
          { name: 'status', type: 'string' },
          { name: 'amount', type: 'integer' },
          { name: 'price', type: 'double' },
          { name: 'placedAt', type: 'date' },
          { name: 'day', type: 'dateOnly' },
          { name: 'customer', type: 'belongsTo', target: 'customers' },
        ],
      });
      await ctx.api.post('/api/customers:create', [{ name: 'ann', country: 'de' }, { name: 'bob', country: 'fr' }, { name: 'cat', country: null }]);
      const rows = [
        { status: 'open', amount: 10, price: 1.5, placedAt: '2026-01-15T23:30:00.000Z', day: '2026-01-15', customerId: 1 },
        { status: 'open', amount: 20, price: 2.5, placedAt: '2026-01-16T00:30:00.000Z', day: '2026-01-16', customerId: 2 },
        { status: 'paid', amount: 5, price: null, placedAt: '2026-02-01T10:00:00.000Z', day: '2026-02-01', customerId: 1 },
        { status: 'paid', amount: null, price: 4, placedAt: '2025-12-31T23:59:59.999Z', day: '2025-12-31', customerId: 3 },
        { status: null, amount: 7, price: 1, placedAt: null, day: null, customerId: null },
      ];
      expect((await ctx.api.post('/api/orders:create', rows)).status).toBe(201);
    });

    it('aggregates without dimensions', async () => {
      const reply = await query({
        measures: [
          { aggregation: 'count', alias: 'n' },
          { field: 'amount', aggregation: 'count', alias: 'withAmount' },
          { field: 'amount', aggregation: 'sum', alias: 'total' },
          { field: 'amount', aggregation: 'avg', alias: 'mean' },
          { field: 'amount', aggregation: 'min', alias: 'least' },
          { field: 'placedAt', aggregation: 'max', alias: 'latest' },
          { field: 'status', aggregation: 'count', distinct: true, alias: 'statuses' },
        ],
      });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body.data).toEqual([{ n: 5, withAmount: 4, total: 42, mean: 10.5, least: 5, latest: '2026-02-01T10:00:00.000Z', statuses: 2 }]);
    });

    it('groups by a field with NULLs last, orders, filters, having and limit', async () => {
      const cases: [unknown, unknown[]][] = [
        [{ dimensions: [{ field: 'status' }], measures: [{ field: 'amount', aggregation: 'sum', alias: 'total' }] }, [{ status: 'open', total: 30 }, { status: 'paid', total: 5 }, { status: null, total: 7 }]],
        [{ dimensions: [{ field: 'status' }], measures: [{ aggregation: 'count', alias: 'n' }], orders: [{ field: 'status', order: 'desc' }] }, [{ status: 'paid', n: 2 }, { status: 'open', n: 2 }, { status: null, n: 1 }]],
        [{ dimensions: [{ field: 'status' }], measures: [{ field: 'amount', aggregation: 'sum', alias: 'total' }], orders: [{ alias: 'total', order: 'desc' }], limit: 2 }, [{ status: 'open', total: 30 }, { status: null, total: 7 }]],
        [{ dimensions: [{ field: 'status' }], measures: [{ aggregation: 'count', alias: 'n' }], having: { n: { $gt: 1 } } }, [{ status: 'open', n: 2 }, { status: 'paid', n: 2 }]],
        [{ dimensions: [{ field: 'status' }], measures: [{ field: 'price', aggregation: 'sum', alias: 'p' }], filter: { amount: { $gte: 7 } } }, [{ status: 'open', p: 4 }, { status: null, p: 1 }]],
        [{ dimensions: [{ field: 'status' }], measures: [{ aggregation: 'count', alias: 'n' }], having: { $or: [{ status: null }, { n: { $lt: 2 } }] } }, [{ status: null, n: 1 }]],
      ];
      for (const [body, expected] of cases) {
        const reply = await query(body);
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        expect(reply.body.data, JSON.stringify(body)).toEqual(expected);
      }
    });

    it('buckets dates by day, month and year in UTC', async () => {
      const cases: [unknown, unknown[]][] = [
        [{ dimensions: [{ field: 'placedAt', format: 'month', alias: 'm' }], measures: [{ aggregation: 'count', alias: 'n' }] }, [{ m: '2025-12', n: 1 }, { m: '2026-01', n: 2 }, { m: '2026-02', n: 1 }, { m: null, n: 1 }]],
        [{ dimensions: [{ field: 'placedAt', format: 'day', alias: 'd' }], measures: [{ aggregation: 'count', alias: 'n' }], filter: { placedAt: { $dateOn: '2026-01' } } }, [{ d: '2026-01-15', n: 1 }, { d: '2026-01-16', n: 1 }]],
        [{ dimensions: [{ field: 'placedAt', format: 'YYYY', alias: 'y' }], measures: [{ field: 'amount', aggregation: 'sum', alias: 's' }], orders: [{ alias: 'y', order: 'desc' }] }, [{ y: '2026', s: 35 }, { y: '2025', s: null }, { y: null, s: 7 }]],
        [{ dimensions: [{ field: 'day', format: 'year', alias: 'y' }], measures: [{ aggregation: 'count', alias: 'n' }] }, [{ y: '2025', n: 1 }, { y: '2026', n: 3 }, { y: null, n: 1 }]],
      ];
      for (const [body, expected] of cases) {
        const reply = await query(body);
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        expect(reply.body.data, JSON.stringify(body)).toEqual(expected);
      }
    });

    it('groups through a to-one association, as a dot path or an array', async () => {
      const expected = [{ country: 'de', total: 15 }, { country: 'fr', total: 20 }, { country: null, total: 7 }];
      for (const field of ['customer.country', ['customer', 'country']]) {
        const reply = await query({ dimensions: [{ field, alias: 'country' }], measures: [{ field: 'amount', aggregation: 'sum', alias: 'total' }] });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
        expect(reply.body.data).toEqual(expected);
      }
      const names = await query({ dimensions: [{ field: 'customer.name' }], measures: [{ aggregation: 'count', alias: 'n' }], orders: [{ field: 'customer.name', order: 'desc' }] });
      expect(names.body.data).toEqual([{ 'customer.name': 'cat', n: 1 }, { 'customer.name': 'bob', n: 1 }, { 'customer.name': 'ann', n: 2 }, { 'customer.name': null, n: 1 }]);
    });

    it('refuses bad bodies and methods with codes', async () => {
      const cases: [unknown, number, string][] = [
        [{}, 400, 'BODY_INVALID'],
        [{ measures: [{ field: 'nope', aggregation: 'sum' }] }, 400, 'FIELDS_UNKNOWN'],
        [{ measures: [{ field: 'status', aggregation: 'sum' }] }, 400, 'FILTER_OPERATOR_TYPE'],
        [{ measures: [{ field: 'amount', aggregation: 'median' }] }, 400, 'BODY_INVALID'],
        [{ dimensions: [{ field: 'status', format: 'month' }] }, 400, 'BODY_INVALID'],
        [{ dimensions: [{ field: 'status' }], orders: [{ field: 'amount' }] }, 400, 'BODY_INVALID'],
        [{ dimensions: [{ field: 'status' }], limit: 5000 }, 400, 'BODY_INVALID'],
        [{ dimensions: [{ field: 'status' }], having: { status: { $like: 'x' } } }, 400, 'FILTER_UNKNOWN_OPERATOR'],
        [{ dimensions: [{ field: 'status' }], filter: { nope: 1 } }, 400, 'FILTER_UNKNOWN_FIELD'],
      ];
      for (const [body, status, code] of cases) {
        const reply = await query(body);
        expect(reply.status, JSON.stringify(body)).toBe(status);
        expect(reply.body.errors[0].code, JSON.stringify(body)).toBe(code);
      }
      expect((await ctx.api.get('/api/orders:query')).status).toBe(405);
    });
  });
}
