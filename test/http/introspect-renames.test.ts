import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/database.js';
import { apiFor, testConfig } from '../support/test-app.js';
import { createTestDatabase, DIALECTS } from '../support/test-database.js';

/**
 * Names chosen by the operator (docs/existing-databases.md#names): a schema file registers a
 * table under a name of its own with some columns renamed; introspection keeps those names and
 * fills in the rest, at the first start and at every start after it.
 */
describe.each(DIALECTS)('names chosen in a schema file on %s', (dialect) => {
  it('are kept by introspection, start after start', async () => {
    const database = await createTestDatabase(dialect);
    const dir = mkdtempSync(join(tmpdir(), 'corral-renames-'));
    try {
      const loader = await openDatabase(database.config);
      const quote = (text: string) => (dialect === 'mysql' ? text.replaceAll('"', '`') : text);
      await sql.raw(quote('create table "Order Items" (id integer primary key, "Unit Price" numeric(10,2) not null, note varchar(40))')).execute(loader.db);
      await sql.raw(quote(`insert into "Order Items" (id, "Unit Price", note) values (1, 2.50, 'a')`)).execute(loader.db);
      await loader.close();
      const file = join(dir, 'schema.json');
      writeFileSync(file, JSON.stringify({ collections: [{
        name: 'lines', managed: false, tableName: 'Order Items',
        fields: [{ name: 'id', type: 'integer', primaryKey: true }, { name: 'price', type: 'decimal', precision: 10, scale: 2, allowNull: false, columnName: 'Unit Price' }],
      }] }));
      const exportFile = join(dir, 'exported.json');
      for (const round of [1, 2]) {
        const built = await buildApp(testConfig(database, { schemaFile: file, introspect: { include: [], exclude: [] } }));
        try {
          const api = apiFor(built);
          const list = await api.get('/api/lines:list?fields=id,price,note');
          expect(list.status, `start ${round}: ${list.text}`).toBe(200);
          expect(list.body.data).toEqual([{ id: 1, price: '2.50', note: 'a' }]);
          expect((await api.get('/api/order_items:list')).status).toBe(404);
          // The mapping as collections:export shows it is itself a schema file that applies.
          const exported = await api.get('/api/collections:export');
          writeFileSync(exportFile, exported.text);
        } finally {
          await built.close();
        }
      }
      const again = await buildApp(testConfig(database, { schemaFile: exportFile, introspect: { include: [], exclude: [] } }));
      try {
        const list = await apiFor(again).get('/api/lines:list?fields=id,price,note');
        expect(list.body.data).toEqual([{ id: 1, price: '2.50', note: 'a' }]);
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await database.drop();
    }
  });
});
