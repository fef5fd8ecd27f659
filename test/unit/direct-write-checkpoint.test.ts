import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';

// SQLite's automatic checkpoint runs from the WAL hook, which only a statement stepped to its
// end calls. A one-row autocommit write on the direct path used to be stepped once and reset:
// it committed without the hook, so the log was never checkpointed and grew by every write.
describe('direct one-row writes on SQLite keep the WAL checkpointed', () => {
  let dir: string | undefined;
  let database: Database | undefined;
  afterEach(async () => {
    await database?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    database = undefined;
    dir = undefined;
  });

  it('a single-key UPDATE … RETURNING run 3,000 times leaves the WAL near its checkpoint size', async () => {
    dir = mkdtempSync(join(tmpdir(), 'corral-wal-'));
    const file = join(dir, 'data.sqlite');
    database = await openDatabase({ dialect: 'sqlite', file });
    const { db } = database;
    await sql`create table t (id integer primary key, title text, n integer)`.execute(db);
    await sql`with recursive s(i) as (select 1 union all select i + 1 from s where i < 2000) insert into t (title, n) select 'row ' || i, i from s`.execute(db);
    const direct = database.executor.direct!;
    expect(direct).toBeDefined();
    // A read stepped once answers its row.
    expect(direct('select id, title from t where id = ?', [7], true)).toEqual([{ id: 7n, title: 'row 7' }]);
    for (let i = 0; i < 3000; i++) {
      const id = 1 + ((i * 7919) % 2000);
      const rows = direct('update t set title = ?, n = n + 1 where id = ? returning id, title', [`x${i}`, id], true);
      expect(rows).toHaveLength(1);
    }
    // 3,000 commits of ~3 pages each: about 36 MB of log without checkpoints; with them the log
    // restarts after each (every 1,000 pages: about 4 MB).
    expect(statSync(`${file}-wal`).size).toBeLessThan(8 * 1024 * 1024);
  });
});
