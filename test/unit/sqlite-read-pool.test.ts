import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyDriverError } from '../../src/db/driver-error.js';
import { SQLITE_READ_TIMEOUT, SqliteReadPool } from '../../src/db/sqlite-read-pool.js';

/** A statement that runs about a second: it counts to three million. */
const SLOW = 'with recursive c(x) as (select 1 union all select x + 1 from c where x < 3000000) select count(*) as n from c';

describe('SqliteReadPool', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'corral-readers-'));
    file = join(dir, 'db.sqlite');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec("create table t (id integer primary key, data blob, name text); insert into t values (1, x'00ff10', 'one')");
    db.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads rows with exact integers and blobs as Buffers, values bound as on the main connection', async () => {
    const pool = new SqliteReadPool({ file, size: 2, timeoutMs: 5000, statementCache: 10 });
    try {
      const rows = await pool.run('select id, data, name from t where data = ? and id = ?', [Buffer.from([0, 255, 16]), 1n]);
      expect(rows).toEqual([{ id: 1n, data: Buffer.from([0, 255, 16]), name: 'one' }]);
      expect(Buffer.isBuffer(rows[0]!.data)).toBe(true);
      expect(await pool.run('select name from t where id = ?', [2n], true)).toEqual([]);
      await expect(pool.run('select nope from t', [])).rejects.toMatchObject({ code: 'SQLITE_ERROR' });
    } finally {
      await pool.close();
    }
  });

  it('abandons a statement past the timeout (unavailable: 503) and serves the next reads on a fresh thread', async () => {
    const pool = new SqliteReadPool({ file, size: 1, timeoutMs: 50, statementCache: 10 });
    try {
      await pool.run('select 1 as one', []);
      const error = await pool.run(SLOW, []).then(() => undefined, (caught: unknown) => caught);
      expect(error).toMatchObject({ code: SQLITE_READ_TIMEOUT });
      expect(classifyDriverError(error, 'sqlite').kind).toBe('unavailable');
      // Answered at the timeout, not when the statement ended: its thread is still running it (no clock read).
      expect(pool.threads).toEqual({ live: 0, abandoned: 1 });
      expect(await pool.run('select name from t', [])).toEqual([{ name: 'one' }]);
      expect(pool.threads.live).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('fails the waiting reads when a thread cannot open the file, without starting threads in a loop', async () => {
    const pool = new SqliteReadPool({ file: join(dir, 'missing.sqlite'), size: 2, timeoutMs: 5000, statementCache: 10 });
    try {
      const results = await Promise.allSettled([pool.run('select 1', []), pool.run('select 2', [])]);
      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
      // No thread started after the failure (the second one may still be failing to open).
      expect(pool.threads.live).toBeLessThanOrEqual(1);
      await expect(pool.run('select 3', [])).rejects.toThrow();
    } finally {
      await pool.close();
    }
  });
});
