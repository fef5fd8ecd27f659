import { describe, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { createTestDatabase, DIALECTS } from '../support/test-database.js';
import { SHOP_SQL } from '../fixtures/existing/shop.js';
import { CHINOOK_SQL } from '../fixtures/existing/chinook.js';
import { loadFixture } from '../fixtures/existing/load-fixture.js';

describe.each(DIALECTS)('fixtures load on %s', (dialect) => {
  it.each([['shop', SHOP_SQL], ['chinook', CHINOOK_SQL]] as const)('%s', async (_name, fixture) => {
    const test = await createTestDatabase(dialect);
    const database = await openDatabase(test.config);
    try {
      await loadFixture(database.db, fixture[dialect]);
    } finally {
      await database.close();
      await test.drop();
    }
  });
});
