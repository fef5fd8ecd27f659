import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type BuiltApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import type { Dialect } from '../../src/schema/types.js';
import { CHINOOK_SQL } from '../fixtures/existing/chinook.js';
import { loadFixture } from '../fixtures/existing/load-fixture.js';
import { SHOP_SQL } from '../fixtures/existing/shop.js';
import { apiFor, testConfig, type TestApi } from '../support/test-app.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';

/**
 * Databases no Corral wrote (test/fixtures/existing): loaded by plain SQL, served with
 * CORRAL_INTROSPECT=on, then the core routes run over them; what they write is read back by
 * plain SQL, and `collections:sync` follows ALTER TABLE and DROP TABLE made behind Corral's back
 * (docs/existing-databases.md).
 */

const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

interface Served {
  api: TestApi;
  built: BuiltApp;
  database: TestDatabase;
}

/** A fresh database holding `fixture`, and an app introspecting it. */
function useExisting(dialect: Dialect, fixture: Record<Dialect, readonly string[]>): Served {
  const state = {} as Served;
  beforeAll(async () => {
    state.database = await createTestDatabase(dialect);
    const loader = await openDatabase(state.database.config);
    try {
      await loadFixture(loader.db, fixture[dialect]);
    } finally {
      await loader.close();
    }
    state.built = await buildApp(testConfig(state.database, { introspect: { include: [], exclude: [] } }));
    state.api = apiFor(state.built);
  });
  afterAll(async () => {
    await state.built?.close();
    await state.database?.drop();
  });
  return state;
}

/**
 * Plain SQL on the served database (`"` quotes written, backticks on MySQL). Integers compare as
 * numbers (SQLite returns bigints; MySQL bigint columns, and `numeric` ones, as digit strings).
 */
async function rows(served: Served, dialect: Dialect, text: string, numeric: readonly string[] = []): Promise<Record<string, unknown>[]> {
  const result = await sql.raw(dialect === 'mysql' ? text.replaceAll('"', '`') : text).execute(served.built.database.db);
  return (result.rows as Record<string, unknown>[]).map((row) =>
    Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'bigint' || (numeric.includes(key) && value !== null) ? Number(value) : value])));
}

const names = (items: { name: string }[]) => items.map((item) => item.name).sort();

/** Per dialect: a read and what it answers, over the shop fixture's unusual types. */
const UNUSUAL: Record<Dialect, [string, unknown][]> = {
  postgres: [
    ['/api/Customer:get?filterByTk=1&fields=tags,last_ip,external_id,created_at,FullName,group', {
      tags: ['vip', 'newsletter'], last_ip: '192.168.1.10', external_id: '6f1c1b2e-4a55-4a4f-9a9e-0c6b8f3f7a01', created_at: '2026-01-02T10:00:00.000Z', FullName: 'Ada Lovelace', group: 'vip',
    }],
    [`/api/Customer:list?filter=${q({ external_id: '0b5e3f6a-8f57-4c1d-b1de-2f6e51c2b902' })}&fields=FirstName`, [{ FirstName: 'Alan' }]],
    [`/api/Customer:list?filter=${q({ last_ip: '10.0.0.7' })}&fields=FirstName`, [{ FirstName: 'Alan' }]],
    [`/api/Customer:list?filter=${q({ created_at: { $gt: '2026-02-01T00:00:00Z' } })}&sort=CustomerId&fields=FirstName`, [{ FirstName: 'Alan' }, { FirstName: 'Grace' }]],
    [`/api/order:list?filter=${q({ status: 'paid' })}&fields=id,status,lucky_numbers`, [{ id: 1, status: 'paid', lucky_numbers: [7, 13] }]],
    [`/api/order:list?filter=${q({ status: { $includes: 'pai' } })}&fields=id`, [{ id: 1 }]],
    [`/api/order:list?filter=${q({ status: { $in: ['paid', 'shipped'] } })}&sort=-status&fields=id`, [{ id: 1 }]],
    [`/api/Customer:list?filter=${q({ last_ip: { $includes: '192.' } })}&fields=FirstName`, [{ FirstName: 'Ada' }]],
    ['/api/product:get?filterByTk=1&fields=price,weight_kg,attributes,active', { price: '9.50', weight_kg: 0.35, attributes: { colour: 'blue' }, active: true }],
    // A materialized view (read-only) and a partitioned table (its partitions are not offered).
    ['/api/product_sales:list?sort=product_id&fields=product_id,units', [{ product_id: 1, units: 2 }, { product_id: 2, units: 1 }, { product_id: 3, units: 3 }]],
    ['/api/event_log:list', [{ id: 1, at: '2026-05-01', message: 'opened' }]],
  ],
  mysql: [
    ['/api/product:get?filterByTk=2&fields=price,sizes,made_in,active,attributes', { price: '19.99', sizes: 'S,M,L', made_in: 2025, active: true, attributes: { size: 'M' } }],
    [`/api/order:list?filter=${q({ is_gift: true })}&fields=id,status`, [{ id: 1, status: 'paid' }]],
    [`/api/order:list?filter=${q({ status: 'new' })}&fields=id,placed_at`, [{ id: 2, placed_at: '2026-04-02T15:20:00.000Z' }]],
    ['/api/Customer:get?filterByTk=1&fields=created_at,FullName,Initials', { created_at: '2026-01-02T10:00:00.000Z', FullName: 'Ada Lovelace', Initials: 'AL' }],
  ],
  sqlite: [
    ['/api/product:list?sort=id&fields=id,extra,active,price', [
      { id: 1, extra: 'fragile', active: true, price: '9.50' }, { id: 2, extra: '42', active: true, price: '19.99' }, { id: 3, extra: null, active: false, price: '14.00' },
    ]],
    // A DATETIME column holds the text its writers chose: served as that text.
    ['/api/Customer:get?filterByTk=1&fields=created_at,FullName', { created_at: '2026-01-02 10:00:00', FullName: 'Ada Lovelace' }],
    [`/api/order:list?filter=${q({ is_gift: true })}&fields=id,placed_at`, [{ id: 1, placed_at: '2026-04-01T09:00:00.000Z' }]],
  ],
};

for (const dialect of DIALECTS) {
  describe(`an existing shop database on ${dialect}`, () => {
    const served = useExisting(dialect, SHOP_SQL);

    it('serves its tables and views as unmanaged collections, with the original names kept', async () => {
      const list = await served.api.get('/api/collections:list?paginate=false');
      expect(list.status, list.text).toBe(200);
      const unmanaged = (list.body.data as { name: string; managed?: boolean }[]).filter((c) => c.managed === false);
      expect(names(unmanaged)).toEqual(expect.arrayContaining(['Customer', 'customer_orders', 'order', 'order_lines', 'product', 'product_tags', 'shipment', 'tag']));
      const customer = await served.api.get('/api/collections:get/Customer');
      const zip = (customer.body.data.fields as { name: string; columnName?: string }[]).find((f) => f.columnName === 'zip code');
      expect(zip?.name).toBe('zip_code');
      const view = await served.api.get('/api/collections:get/customer_orders');
      expect(view.body.data).toMatchObject({ view: true, managed: false });
    });

    it('lists, filters, sorts and gets rows, with appends across foreign keys', async () => {
      const customers = await served.api.get('/api/Customer:list?sort=CustomerId&fields=CustomerId,FirstName,zip_code');
      expect(customers.status, customers.text).toBe(200);
      expect(customers.body.data).toEqual([
        { CustomerId: 1, FirstName: 'Ada', zip_code: '10115' },
        { CustomerId: 2, FirstName: 'Alan', zip_code: null },
        { CustomerId: 3, FirstName: 'Grace', zip_code: '20500' },
      ]);
      const dear = await served.api.get(`/api/product:list?filter=${q({ price: { $gt: '10' } })}&sort=-price&fields=sku,price`);
      expect(dear.body.data).toEqual([{ sku: 'TEE-M', price: '19.99' }, { sku: 'CAP-0', price: '14.00' }]);
      const order = await served.api.get('/api/order:get?filterByTk=1&appends=customer');
      expect(order.status, order.text).toBe(200);
      expect(order.body.data).toMatchObject({ id: 1, customerId: 1, customer: { FirstName: 'Ada' } });
      const byRelation = await served.api.get(`/api/order:list?filter=${q({ 'customer.FirstName': 'Alan' })}&fields=id`);
      expect(byRelation.body.data).toEqual([{ id: 2 }]);
      const withOrders = await served.api.get('/api/Customer:get?filterByTk=1&appends=orders');
      expect(withOrders.body.data.orders.map((o: { id: number }) => o.id)).toEqual([1]);
    });

    it('creates, updates and destroys rows that land in the original tables', async () => {
      const created = await served.api.post('/api/Customer:create', { FirstName: 'Edsger', LastName: 'Dijkstra', email: 'ed@example.com', zip_code: '12345' });
      expect(created.status, created.text).toBe(201);
      const id = created.body.data.CustomerId as number;
      expect(await rows(served, dialect, `select "FirstName" as f, "zip code" as z, "group" as g from "Customer" where "CustomerId" = ${id}`)).toEqual([{ f: 'Edsger', z: '12345', g: 'retail' }]);
      const updated = await served.api.post(`/api/Customer:update?filterByTk=${id}`, { zip_code: '54321' });
      expect(updated.status, updated.text).toBe(200);
      expect(await rows(served, dialect, `select "zip code" as z from "Customer" where "CustomerId" = ${id}`)).toEqual([{ z: '54321' }]);
      const destroyed = await served.api.post(`/api/Customer:destroy?filterByTk=${id}`);
      expect(destroyed.status, destroyed.text).toBe(200);
      expect(await rows(served, dialect, `select "CustomerId" from "Customer" where "CustomerId" = ${id}`)).toEqual([]);
    });

    it('serves the junction table as belongsToMany on both sides, writes through it included', async () => {
      const tags = await served.api.get('/api/product/1/tags:list?sort=id&fields=label');
      expect(tags.status, tags.text).toBe(200);
      expect(tags.body.data).toEqual([{ label: 'kitchen' }, { label: 'gift' }]);
      const products = await served.api.get('/api/tag/2/products:list?sort=id&fields=sku');
      expect(products.body.data).toEqual([{ sku: 'TEE-M' }, { sku: 'CAP-0' }]);
      const added = await served.api.post('/api/product/2/tags:add', [3]);
      expect(added.status, added.text).toBe(200);
      expect(await rows(served, dialect, 'select tag_id as t from product_tags where product_id = 2 order by tag_id', ['t'])).toEqual([{ t: 2 }, { t: 3 }]);
      const removed = await served.api.post('/api/product/2/tags:remove', [3]);
      expect(removed.status, removed.text).toBe(200);
      expect(await rows(served, dialect, 'select tag_id as t from product_tags where product_id = 2', ['t'])).toEqual([{ t: 2 }]);
    });

    it('reads views and refuses to write them; a composite key is not addressed by one scalar key', async () => {
      const view = await served.api.get(`/api/customer_orders:list?filter=${q({ CustomerId: 1 })}`);
      expect(view.status, view.text).toBe(200);
      // SQLite's view column has no declared type: served as the text the driver reads.
      expect(view.body.data).toMatchObject([{ CustomerId: 1, FirstName: 'Ada' }]);
      expect(Number(view.body.data[0].order_count)).toBe(1);
      const write = await served.api.post('/api/customer_orders:create', { FirstName: 'x' });
      expect(write.status).toBe(405);
      const lines = await served.api.get(`/api/order_lines:list?filter=${q({ order_id: 1 })}&sort=line_no&fields=line_no,quantity`);
      expect(lines.body.data).toEqual([{ line_no: 1, quantity: 2 }, { line_no: 2, quantity: 1 }]);
      const byKey = await served.api.get('/api/order_lines:get?filterByTk=1');
      expect(byKey.status).toBe(400);
      expect(byKey.body.errors[0].code).toBe('PARAM_INVALID');
    });

    it('serves each dialect\'s unusual types as the mapping table says', async () => {
      for (const [url, expected] of UNUSUAL[dialect]) {
        const reply = await served.api.get(url);
        expect(reply.status, `${url}: ${reply.text}`).toBe(200);
        expect(reply.body.data, url).toEqual(expected);
      }
      // Read-only columns are ignored on writes; the database fills them.
      const created = await served.api.post('/api/Customer:create', { FirstName: 'Kurt', LastName: 'Goedel', email: 'kurt@example.com', FullName: 'ignored' });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.FullName).toBe('Kurt Goedel');
      await served.api.post(`/api/Customer:destroy?filterByTk=${created.body.data.CustomerId}`);
    });

    it('collections:sync is for root only', async () => {
      expect((await served.api.post('/api/roles:create', { name: 'staff', strategy: { actions: ['view', 'create', 'update', 'destroy'] } })).status).toBe(201);
      expect((await served.api.post('/api/users:create', { email: 'staff@corral.test', password: 'staff-password', roles: ['staff'] })).status).toBe(201);
      const staff = apiFor(served.built, { account: 'staff@corral.test', password: 'staff-password' });
      const reply = await staff.post('/api/collections:sync');
      expect(reply.status).toBe(403);
      expect(reply.body.errors[0].code).toBe('FORBIDDEN');
    });

    it('collections:sync reports a column added by plain SQL and serves it at once', async () => {
      await rows(served, dialect, 'alter table tag add colour varchar(20)');
      const sync = await served.api.post('/api/collections:sync');
      expect(sync.status, sync.text).toBe(200);
      expect(sync.body.data).toMatchObject({ added: [], removed: [], changed: [{ collection: 'tag', fields: { added: ['colour'], removed: [], changed: [] } }] });
      const updated = await served.api.post('/api/tag:update?filterByTk=1', { colour: 'red' });
      expect(updated.status, updated.text).toBe(200);
      expect(await rows(served, dialect, 'select colour as c from tag where id = 1')).toEqual([{ c: 'red' }]);
      const again = await served.api.post('/api/collections:sync');
      expect(again.body.data).toMatchObject({ added: [], changed: [], removed: [] });
    });

    it('keeps relations a client added between existing columns through a sync', async () => {
      const relation = await served.api.post('/api/collections/order/fields:create', { name: 'buyer', type: 'belongsTo', target: 'Customer', foreignKey: 'customerId', targetKey: 'CustomerId' });
      expect(relation.status, relation.text).toBe(201);
      const sync = await served.api.post('/api/collections:sync');
      expect(sync.body.data).toMatchObject({ added: [], changed: [], removed: [] });
      const order = await served.api.get('/api/order:get?filterByTk=1&appends=buyer&fields=id');
      expect(order.body.data).toMatchObject({ id: 1, buyer: { FirstName: 'Ada' } });
    });

    it('collections:sync removes a dropped table and adds a new one without a restart', async () => {
      await rows(served, dialect, 'drop table shipment');
      await rows(served, dialect, 'create table coupon (code varchar(16) primary key, percent integer not null)');
      const sync = await served.api.post('/api/collections:sync');
      expect(sync.status, sync.text).toBe(200);
      expect(sync.body.data).toMatchObject({ added: ['coupon'], removed: ['shipment'] });
      expect((await served.api.get('/api/shipment:list')).status).toBe(404);
      const created = await served.api.post('/api/coupon:create', { code: 'WELCOME', percent: 10 });
      expect(created.status, created.text).toBe(201);
      expect(await rows(served, dialect, 'select percent as p from coupon', ['p'])).toEqual([{ p: 10 }]);
    });
  });

  describe(`the Chinook sample database on ${dialect}`, () => {
    const served = useExisting(dialect, CHINOOK_SQL);

    it('finds its relations from the foreign keys', async () => {
      const album = await served.api.get('/api/Album:get?filterByTk=2&appends=artist');
      expect(album.status, album.text).toBe(200);
      expect(album.body.data).toMatchObject({ Title: 'Balls to the Wall', artist: { Name: 'Accept' } });
      const albums = await served.api.get('/api/Artist/2/albums:list?sort=AlbumId&fields=Title');
      expect(albums.body.data).toEqual([{ Title: 'Balls to the Wall' }, { Title: 'Restless and Wild' }]);
      const tracks = await served.api.get('/api/Playlist/1/tracks:list?sort=TrackId&fields=TrackId');
      expect(tracks.body.data).toEqual([{ TrackId: 1 }, { TrackId: 2 }, { TrackId: 4 }]);
      const playlists = await served.api.get('/api/Track/1/playlists:list?sort=PlaylistId&fields=Name');
      expect(playlists.body.data).toEqual([{ Name: 'Music' }, { Name: 'Heavy Metal Classic' }]);
      const jane = await served.api.get('/api/Employee:get?filterByTk=3&appends=reportsToEmployee&fields=FirstName');
      expect(jane.body.data).toMatchObject({ FirstName: 'Jane', reportsToEmployee: { FirstName: 'Nancy' } });
      const reports = await served.api.get('/api/Employee/1/employees:list?fields=FirstName');
      expect(reports.body.data).toEqual([{ FirstName: 'Nancy' }]);
      const customers = await served.api.get('/api/Employee/3/customers:list?sort=CustomerId&fields=CustomerId');
      expect(customers.body.data).toEqual([{ CustomerId: 1 }, { CustomerId: 2 }]);
    });

    it('links a track to a playlist through PlaylistTrack and the row is in the table', async () => {
      const added = await served.api.post('/api/Playlist/3/tracks:add', [4]);
      expect(added.status, added.text).toBe(200);
      expect(await rows(served, dialect, 'select "TrackId" as t from "PlaylistTrack" where "PlaylistId" = 3', ['t'])).toEqual([{ t: 4 }]);
    });
  });
}
