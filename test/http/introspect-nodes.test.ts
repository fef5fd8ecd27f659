import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { apiFor, testConfig } from '../support/test-app.js';
import { createTestDatabase, DIALECTS } from '../support/test-database.js';

/**
 * A sync is a schema change like any other: another node over the same database serves what
 * it added and forgets what it removed at once, without a restart (docs/configuration.md#several-nodes).
 */
describe.each(DIALECTS)('collections:sync seen by another node on %s', (dialect) => {
  it("serves the table one node's sync added, and forgets the one it removed", async () => {
    const database = await createTestDatabase(dialect);
    const config = testConfig(database, { introspect: { include: [], exclude: [] } });
    const first = await buildApp(config);
    const second = await buildApp(config);
    try {
      const [a, b] = [apiFor(first), apiFor(second)];
      await sql.raw('create table note (id integer primary key, body varchar(100) not null)').execute(first.database.db);
      await sql.raw("insert into note (id, body) values (1, 'hello')").execute(first.database.db);
      expect((await a.post('/api/collections:sync')).body.data).toMatchObject({ added: ['note'] });
      const read = await b.get('/api/note:list?fields=id,body');
      expect(read.status, read.text).toBe(200);
      expect(read.body.data).toEqual([{ id: 1, body: 'hello' }]);
      await sql.raw('drop table note').execute(first.database.db);
      expect((await a.post('/api/collections:sync')).body.data).toMatchObject({ removed: ['note'] });
      await second.schema.poll();
      expect((await b.get('/api/note:list')).status).toBe(404);
    } finally {
      await second.close();
      await first.close();
      await database.drop();
    }
  });
});
