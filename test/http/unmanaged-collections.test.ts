import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/store/change-set.js';
import type { Dialect } from '../../src/schema/types.js';
import { DIALECTS } from '../support/test-database.js';
import { useDialectApp, type DialectApp } from '../support/test-app.js';

/**
 * Tables no Corral made, with names no field may carry (spaces, mixed case, a reserved word),
 * a generated and an identity column and two views: written by plain SQL, registered with
 * `managed: false`, then served (docs/existing-databases.md).
 */
const FIXTURE: Record<Dialect, string[]> = {
  sqlite: [
    `create table "Customer Accounts" ("Account ID" integer primary key autoincrement, "Full Name" varchar(100) not null, "order" integer, "Name Upper" text generated always as (upper("Full Name")) virtual)`,
    `create table "Orders" ("OrderID" integer primary key autoincrement, "AccountRef" integer references "Customer Accounts"("Account ID"), "Total" integer not null, "Status" varchar(20) not null default 'new')`,
    `create view "BigOrders" as select "OrderID", "Total" from "Orders" where "Total" > 100`,
    `create view "OrderTotals" as select "OrderID", "Total" from "Orders"`,
    `create table "Tags" ("TagID" integer primary key, "Label" varchar(30) not null)`,
    `create table "Account Tags" ("AccountRef" integer not null references "Customer Accounts"("Account ID"), "TagRef" integer not null references "Tags"("TagID"), primary key ("AccountRef", "TagRef"))`,
  ],
  postgres: [
    `create table "Customer Accounts" ("Account ID" integer generated always as identity primary key, "Full Name" varchar(100) not null, "order" integer, "Name Upper" text generated always as (upper("Full Name")) stored)`,
    `create table "Orders" ("OrderID" serial primary key, "AccountRef" integer references "Customer Accounts"("Account ID"), "Total" integer not null, "Status" varchar(20) not null default 'new')`,
    `create view "BigOrders" as select "OrderID", "Total" from "Orders" where "Total" > 100`,
    `create view "OrderTotals" as select "OrderID", "Total" from "Orders"`,
    `create table "Tags" ("TagID" integer primary key, "Label" varchar(30) not null)`,
    `create table "Account Tags" ("AccountRef" integer not null references "Customer Accounts"("Account ID"), "TagRef" integer not null references "Tags"("TagID"), primary key ("AccountRef", "TagRef"))`,
  ],
  mysql: [
    'create table `Customer Accounts` (`Account ID` integer auto_increment primary key, `Full Name` varchar(100) not null, `order` integer, `Name Upper` varchar(100) generated always as (upper(`Full Name`)) virtual)',
    "create table `Orders` (`OrderID` integer auto_increment primary key, `AccountRef` integer, `Total` integer not null, `Status` varchar(20) not null default 'new', foreign key (`AccountRef`) references `Customer Accounts`(`Account ID`))",
    'create view `BigOrders` as select `OrderID`, `Total` from `Orders` where `Total` > 100',
    'create view `OrderTotals` as select `OrderID`, `Total` from `Orders`',
    'create table `Tags` (`TagID` integer primary key, `Label` varchar(30) not null)',
    'create table `Account Tags` (`AccountRef` integer not null, `TagRef` integer not null, primary key (`AccountRef`, `TagRef`), foreign key (`AccountRef`) references `Customer Accounts`(`Account ID`), foreign key (`TagRef`) references `Tags`(`TagID`))',
  ],
};

const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));

/** A plain SQL statement, quoted for the dialect (`"` written, backticks on MySQL). */
function raw(ctx: DialectApp, dialect: Dialect, text: string) {
  return sql.raw(dialect === 'mysql' ? text.replaceAll('"', '`') : text).execute(ctx.built.database.db);
}

async function rows(ctx: DialectApp, dialect: Dialect, text: string): Promise<Record<string, unknown>[]> {
  // Drivers differ in how they return integers (SQLite: bigint, MySQL's count: a string): compared as numbers.
  return ((await raw(ctx, dialect, text)).rows as Record<string, unknown>[]).map((row) =>
    Object.fromEntries(Object.entries(row).map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : value])));
}

const ACCOUNTS = {
  name: 'accounts',
  managed: false,
  tableName: 'Customer Accounts',
  fields: [
    { name: 'id', type: 'integer', primaryKey: true, autoIncrement: true, readOnly: true, columnName: 'Account ID' },
    { name: 'fullName', type: 'string', length: 100, allowNull: false, columnName: 'Full Name' },
    { name: 'position', type: 'integer', columnName: 'order' },
    { name: 'nameUpper', type: 'string', readOnly: true, columnName: 'Name Upper', rawType: 'text' },
  ],
};

const ORDERS = {
  name: 'orders',
  managed: false,
  tableName: 'Orders',
  fields: [
    { name: 'id', type: 'integer', primaryKey: true, autoIncrement: true, columnName: 'OrderID' },
    { name: 'accountRef', type: 'integer', columnName: 'AccountRef' },
    { name: 'total', type: 'integer', allowNull: false, columnName: 'Total' },
    { name: 'status', type: 'string', length: 20, allowNull: false, defaultSql: "'new'", columnName: 'Status' },
    { name: 'account', type: 'belongsTo', target: 'accounts', foreignKey: 'accountRef', targetKey: 'id' },
  ],
};

const BIG_ORDERS = {
  name: 'bigOrders',
  managed: false,
  view: true,
  tableName: 'BigOrders',
  fields: [
    { name: 'orderId', type: 'integer', columnName: 'OrderID' },
    { name: 'total', type: 'integer', columnName: 'Total' },
  ],
};

const TAGS = {
  name: 'tags',
  managed: false,
  tableName: 'Tags',
  fields: [
    { name: 'id', type: 'integer', primaryKey: true, columnName: 'TagID' },
    { name: 'label', type: 'string', length: 30, allowNull: false, columnName: 'Label' },
  ],
};

/** A junction whose key is its two columns: no key field of its own (filterTargetKey ''). */
const ACCOUNT_TAGS = {
  name: 'accountTags',
  managed: false,
  tableName: 'Account Tags',
  fields: [
    { name: 'accountRef', type: 'integer', primaryKey: true, columnName: 'AccountRef' },
    { name: 'tagRef', type: 'integer', primaryKey: true, columnName: 'TagRef' },
  ],
};

const ORDER_TOTALS = { ...BIG_ORDERS, name: 'orderTotals', tableName: 'OrderTotals', filterTargetKey: 'orderId' };

for (const dialect of DIALECTS) {
  describe(`tables Corral did not create on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    const reports: { collection: string; kind: string; key: string }[] = [];

    it('registers existing tables and views with managed: false, without DDL', async () => {
      for (const statement of FIXTURE[dialect]) await sql.raw(statement).execute(ctx.built.database.db);
      await raw(ctx, dialect, `insert into "Customer Accounts" ("Full Name", "order") values ('ann', 2), ('bob', 1)`);
      await raw(ctx, dialect, `insert into "Orders" ("AccountRef", "Total") values (1, 50), (1, 150), (2, 300)`);
      ctx.built.store.afterCommit((changes: ChangeSet) => {
        for (const [collection, set] of changes.collections()) {
          for (const kind of ['created', 'updated', 'deleted'] as const) for (const change of set[kind]) reports.push({ collection, kind, key: String(change.key) });
        }
      });
      await raw(ctx, dialect, `insert into "Tags" ("TagID", "Label") values (1, 'red'), (2, 'blue')`);
      await raw(ctx, dialect, `insert into "Account Tags" ("AccountRef", "TagRef") values (1, 1)`);
      for (const definition of [ACCOUNTS, ORDERS, BIG_ORDERS, ORDER_TOTALS, TAGS, ACCOUNT_TAGS]) {
        const reply = await ctx.api.post('/api/collections:create', definition);
        expect(reply.status, reply.text).toBe(201);
      }
      const got = await ctx.api.get('/api/collections:get/accounts');
      expect(got.body.data).toMatchObject({ name: 'accounts', managed: false, tableName: 'Customer Accounts' });
    });

    it('refuses a table that does not exist with 400 SCHEMA_INVALID', async () => {
      const reply = await ctx.api.post('/api/collections:create', { ...ACCOUNTS, name: 'ghosts', tableName: 'No Such Table' });
      expect(reply.status).toBe(400);
      expect(reply.body.errors[0].code).toBe('SCHEMA_INVALID');
      const column = await ctx.api.post('/api/collections:create', { ...ACCOUNTS, name: 'ghosts', tableName: 'Orders' });
      expect(column.status).toBe(400);
    });

    it('refuses a second collection over a table already served, and searchable fields', async () => {
      expect((await ctx.api.post('/api/collections:create', { ...ACCOUNTS, name: 'accounts2' })).status).toBe(400);
      const searchable = { ...ACCOUNTS, name: 'accounts3', tableName: 'Customer Accounts', fields: [{ ...ACCOUNTS.fields[0], searchable: true }] };
      expect((await ctx.api.post('/api/collections:create', searchable)).status).toBe(400);
    });

    it('lists rows keyed by field names, filters and sorts on mapped columns', async () => {
      const list = await ctx.api.get('/api/accounts:list?sort=position');
      expect(list.status, list.text).toBe(200);
      expect(list.body.data).toEqual([
        { id: 2, fullName: 'bob', position: 1, nameUpper: 'BOB' },
        { id: 1, fullName: 'ann', position: 2, nameUpper: 'ANN' },
      ]);
      const filtered = await ctx.api.get(`/api/orders:list?filter=${q({ total: { $gt: 100 } })}&sort=-total&fields=id,total`);
      expect(filtered.body.data).toEqual([{ id: 3, total: 300 }, { id: 2, total: 150 }]);
      const byRelation = await ctx.api.get(`/api/orders:list?filter=${q({ 'account.fullName': 'ann' })}&sort=id&fields=id`);
      expect(byRelation.body.data).toEqual([{ id: 1 }, { id: 2 }]);
      const sortedByRelation = await ctx.api.get('/api/orders:list?sort=-account.fullName,id&fields=id');
      expect(sortedByRelation.body.data).toEqual([{ id: 3 }, { id: 1 }, { id: 2 }]);
      const count = await ctx.api.get(`/api/orders:count?filter=${q({ accountRef: 1 })}`);
      expect(count.body.data).toBe(2);
    });

    it('gets by key and embeds belongsTo and hasMany appends over existing key columns', async () => {
      const order = await ctx.api.get('/api/orders:get?filterByTk=3&appends=account');
      expect(order.status, order.text).toBe(200);
      expect(order.body.data).toMatchObject({ id: 3, total: 300, status: 'new', account: { id: 2, fullName: 'bob' } });
      // A hasMany between existing columns is metadata only: allowed on an unmanaged collection.
      const relation = await ctx.api.post('/api/collections/accounts/fields:create', { name: 'orders', type: 'hasMany', target: 'orders', foreignKey: 'accountRef', sourceKey: 'id' });
      expect(relation.status, relation.text).toBe(201);
      const account = await ctx.api.get('/api/accounts:get?filterByTk=1&appends=orders');
      expect(account.body.data.orders.map((o: { id: number }) => o.id).sort()).toEqual([1, 2]);
      const missing = await ctx.api.post('/api/collections/accounts/fields:create', { name: 'invoices', type: 'hasMany', target: 'orders', foreignKey: 'invoiceRef', sourceKey: 'id' });
      expect(missing.status).toBe(409);
      expect(missing.body.errors[0].code).toBe('SCHEMA_NOT_MANAGED');
    });

    it('creates, updates and destroys rows that land in the original tables', async () => {
      const created = await ctx.api.post('/api/accounts:create', { fullName: 'cyd', position: 7, nameUpper: 'ignored', id: 99 });
      expect(created.status, created.text).toBe(201);
      const id = created.body.data.id as number;
      expect(id).not.toBe(99);
      expect(created.body.data).toMatchObject({ fullName: 'cyd', position: 7, nameUpper: 'CYD' });
      const stored = await rows(ctx, dialect, `select "Full Name" as n, "order" as o from "Customer Accounts" where "Account ID" = ${id}`);
      expect(stored).toEqual([{ n: 'cyd', o: 7 }]);

      const updated = await ctx.api.post(`/api/accounts:update?filterByTk=${id}`, { fullName: 'cyd l', nameUpper: 'ignored' });
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body.data[0] ?? updated.body.data).toMatchObject({ fullName: 'cyd l', nameUpper: 'CYD L' });
      expect(await rows(ctx, dialect, `select "Full Name" as n from "Customer Accounts" where "Account ID" = ${id}`)).toEqual([{ n: 'cyd l' }]);

      const order = await ctx.api.post(`/api/accounts/${id}/orders:create`, { total: 75 });
      expect(order.status, order.text).toBe(201);
      expect(order.body.data).toMatchObject({ accountRef: id, total: 75, status: 'new' });
      const listed = await ctx.api.get(`/api/accounts/${id}/orders:list`);
      expect(listed.body.data.map((o: { total: number }) => o.total)).toEqual([75]);
      expect(await rows(ctx, dialect, `select "Total" as t, "Status" as s from "Orders" where "AccountRef" = ${id}`)).toEqual([{ t: 75, s: 'new' }]);

      // An explicit key moves the table's own sequence past it (PostgreSQL's serial included).
      expect((await ctx.api.post('/api/orders:create', { id: 100, accountRef: id, total: 1 })).status).toBe(201);
      const next = await ctx.api.post('/api/orders:create', { accountRef: id, total: 2 });
      expect(next.body.data.id).toBe(101);
      await raw(ctx, dialect, `delete from "Orders" where "OrderID" >= 100`);
      const destroyed = await ctx.api.post(`/api/orders:destroy?filterByTk=${order.body.data.id}`);
      expect(destroyed.status, destroyed.text).toBe(200);
      expect(await rows(ctx, dialect, `select "OrderID" from "Orders" where "AccountRef" = ${id}`)).toEqual([]);
      expect(reports).toEqual(expect.arrayContaining([
        { collection: 'accounts', kind: 'created', key: String(id) },
        { collection: 'accounts', kind: 'updated', key: String(id) },
        { collection: 'orders', kind: 'created', key: String(order.body.data.id) },
        { collection: 'orders', kind: 'deleted', key: String(order.body.data.id) },
      ]));
    });

    it('the change feed carries the writes made through Corral, keyed by field names', async () => {
      const feed = await ctx.api.get('/api/changes:list?collection=accounts&pageSize=100');
      expect(feed.status, feed.text).toBe(200);
      const created = (feed.body.data as { action: string; data: Record<string, unknown> }[]).find((event) => event.action === 'create');
      expect(created?.data).toMatchObject({ fullName: 'cyd', position: 7, nameUpper: 'CYD' });
    });

    it('links rows through an existing junction table with a composite key (belongsToMany)', async () => {
      const relation = await ctx.api.post('/api/collections/accounts/fields:create', {
        name: 'tags', type: 'belongsToMany', target: 'tags', through: 'accountTags', foreignKey: 'accountRef', otherKey: 'tagRef', sourceKey: 'id', targetKey: 'id',
      });
      expect(relation.status, relation.text).toBe(201);
      const before = await ctx.api.get('/api/accounts:get?filterByTk=1&appends=tags');
      expect(before.body.data.tags).toEqual([{ id: 1, label: 'red' }]);
      const added = await ctx.api.post('/api/accounts/1/tags:add', [2]);
      expect(added.status, added.text).toBe(200);
      expect((await ctx.api.post('/api/accounts/1/tags:remove', [1])).status).toBe(200);
      expect(await rows(ctx, dialect, 'select "AccountRef" as a, "TagRef" as t from "Account Tags"')).toEqual([{ a: 1, t: 2 }]);
      const filtered = await ctx.api.get(`/api/accounts:list?filter=${q({ 'tags.label': 'blue' })}&fields=id`);
      expect(filtered.body.data).toEqual([{ id: 1 }]);
      // Two primaryKey fields: a composite key, named by filterByTk's object only (docs/existing-databases.md, "Keys").
      const junction = await ctx.api.get('/api/accountTags:get?filterByTk=1');
      expect([junction.status, junction.body.errors[0].code]).toEqual([400, 'PARAM_INVALID']);
      const pair = await ctx.api.get('/api/accountTags:get?filterByTk[accountRef]=1&filterByTk[tagRef]=2');
      expect(pair.status, pair.text).toBe(200);
      expect(pair.body.data).toMatchObject({ accountRef: 1, tagRef: 2 });
    });

    it('exports rows with field names as column titles', async () => {
      const reply = await ctx.built.app.inject({ method: 'GET', url: '/api/orders:export?format=csv&fields=id,total&sort=id', headers: await ctx.api.authHeaders() });
      expect(reply.statusCode).toBe(200);
      expect(reply.body.replace(/^\uFEFF/, '').split(/\r?\n/).slice(0, 2)).toEqual(['id,total', '1,50']);
    });

    it('registerUnmanaged replaces definitions in one step after an ALTER TABLE, keeping relations that still fit', async () => {
      await raw(ctx, dialect, `alter table "Orders" add column "Note" varchar(50)`);
      await raw(ctx, dialect, `update "Orders" set "Note" = 'first' where "OrderID" = 1`);
      const withNote = { ...ORDERS, fields: [...ORDERS.fields, { name: 'note', type: 'string', length: 50, columnName: 'Note' }] };
      const [stored] = await ctx.built.schema.registerUnmanaged([withNote], true);
      expect(stored!.fields.map((field) => field.name)).toContain('note');
      const order = await ctx.api.get('/api/orders:get?filterByTk=1&fields=id,note');
      expect(order.body.data).toEqual({ id: 1, note: 'first' });
      // accounts.orders (hasMany over orders.accountRef) still points at it.
      expect((await ctx.api.get('/api/accounts/1/orders:count')).body.data).toBe(2);
      const broken = { ...ORDERS, fields: ORDERS.fields.filter((field) => field.name !== 'accountRef' && field.name !== 'account') };
      await expect(ctx.built.schema.registerUnmanaged([broken], true)).rejects.toMatchObject({ code: 'SCHEMA_INVALID' });
      await expect(ctx.built.schema.registerUnmanaged([withNote])).rejects.toMatchObject({ code: 'COLLECTION_EXISTS' });
    });

    it('answers schema changes that need DDL with 409 SCHEMA_NOT_MANAGED', async () => {
      const cases: [string, string, unknown][] = [
        ['add a column', '/api/collections/accounts/fields:create', { name: 'email', type: 'string' }],
        ['change a column', '/api/collections/accounts/fields:update/position', { type: 'bigInt' }],
        ['drop a column', '/api/collections/accounts/fields:destroy/position', undefined],
        ['set indexes', '/api/collections:setIndexes/accounts', { indexes: [{ fields: ['fullName'] }] }],
        ['add a sort field', '/api/collections:update/accounts', { sortable: true }],
        ['move the table', '/api/collections:update/accounts', { tableName: 'Elsewhere' }],
      ];
      for (const [what, url, body] of cases) {
        const reply = await ctx.api.post(url, body);
        expect([what, reply.status, reply.body?.errors?.[0]?.code]).toEqual([what, 409, 'SCHEMA_NOT_MANAGED']);
      }
      const labelled = await ctx.api.post('/api/collections:update/accounts', { title: 'Accounts' });
      expect(labelled.status, labelled.text).toBe(200);
    });

    it('serves views read-only, and a view without a key by filter only', async () => {
      const list = await ctx.api.get('/api/bigOrders:list?sort=orderId');
      expect(list.body.data).toEqual([{ orderId: 2, total: 150 }, { orderId: 3, total: 300 }]);
      expect((await ctx.api.get(`/api/bigOrders:count?filter=${q({ total: { $gt: 200 } })}`)).body.data).toBe(1);
      const get = await ctx.api.get('/api/bigOrders:get?filterByTk=2');
      expect([get.status, get.body.errors[0].code]).toEqual([400, 'COLLECTION_HAS_NO_KEY']);
      const keyed = await ctx.api.get('/api/orderTotals:get?filterByTk=2');
      expect(keyed.body.data).toEqual({ orderId: 2, total: 150 });
      for (const [method, url, body] of [
        ['POST', '/api/orderTotals:create', { orderId: 9, total: 1 }],
        ['POST', '/api/orderTotals:update?filterByTk=2', { total: 1 }],
        ['POST', '/api/orderTotals:destroy?filterByTk=2', undefined],
        ['POST', '/api/bigOrders:create', { orderId: 9, total: 1 }],
      ] as const) {
        const reply = await ctx.api.request(method, url, body);
        expect([url, reply.status, reply.body?.errors?.[0]?.code]).toEqual([url, 405, 'COLLECTION_READ_ONLY']);
      }
    });

    it.runIf(dialect === 'postgres')('serves a table of another PostgreSQL schema (schema option)', async () => {
      await raw(ctx, dialect, `create schema "Sales Data"`);
      await raw(ctx, dialect, `create table "Sales Data"."Leads" ("LeadID" serial primary key, "Email" text not null)`);
      const created = await ctx.api.post('/api/collections:create', {
        name: 'leads', managed: false, schema: 'Sales Data', tableName: 'Leads',
        fields: [{ name: 'id', type: 'integer', primaryKey: true, autoIncrement: true, columnName: 'LeadID' }, { name: 'email', type: 'string', allowNull: false, columnName: 'Email' }],
      });
      expect(created.status, created.text).toBe(201);
      expect((await ctx.api.post('/api/leads:create', { email: 'a@b.c' })).body.data).toEqual({ id: 1, email: 'a@b.c' });
      expect((await ctx.api.get(`/api/leads:list?filter=${q({ email: { $includes: '@b' } })}`)).body.data).toEqual([{ id: 1, email: 'a@b.c' }]);
      expect(await rows(ctx, dialect, 'select "Email" as e from "Sales Data"."Leads"')).toEqual([{ e: 'a@b.c' }]);
    });

    it('documents read-only and database-filled columns in the OpenAPI create schema', async () => {
      const doc = (await ctx.api.get('/api/openapi.json')).body;
      const create = doc.components.schemas['accounts.create'];
      expect(create.required).toEqual(['fullName']);
      expect(create.properties.nameUpper.description).toMatch(/^ignored/);
      expect(doc.components.schemas['orders.create'].required).toEqual(['total']);
    });

    it('refuses $search on a table Corral did not create', async () => {
      const reply = await ctx.api.get(`/api/accounts:list?filter=${q({ $search: 'ann' })}`);
      expect(reply.status).toBe(400);
    });

    it('destroying the collection forgets the definition and keeps the table', async () => {
      const reply = await ctx.api.post('/api/collections:destroy/orders?cascade=true');
      expect(reply.status, reply.text).toBe(200);
      expect((await ctx.api.get('/api/orders:list')).status).toBe(404);
      const left = await rows(ctx, dialect, 'select count(*) as n from "Orders"');
      expect(Number(left[0]!.n)).toBe(3);
      // Registered again, the rows are there.
      expect((await ctx.api.post('/api/collections:create', ORDERS)).status).toBe(201);
      expect((await ctx.api.get('/api/orders:count')).body.data).toBe(3);
    });

    it('exports the mapping in the schema file', async () => {
      const reply = await ctx.api.get('/api/collections:export');
      const accounts = (reply.body.collections as Record<string, unknown>[]).find((entry) => entry.name === 'accounts' && Array.isArray(entry.fields));
      expect(accounts).toMatchObject({ managed: false, tableName: 'Customer Accounts' });
      expect(accounts!.fields).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'fullName', columnName: 'Full Name' })]));
      // Applied back, the file changes nothing (no DDL asked of the tables, no 409).
      const before = JSON.stringify(ctx.built.schema.snapshot.defs);
      await ctx.built.schema.applySchemaFile(reply.body);
      expect(JSON.stringify(ctx.built.schema.snapshot.defs)).toBe(before);
    });
  });
}
