import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseConfig } from '../../src/config/config.js';
import type { Dialect } from '../../src/schema/types.js';

/**
 * Which dialects the suite runs on: all three unless CORRAL_TEST_DIALECTS narrows it. vitest.config.ts
 * sets it before the workers start (leaving out, when it was not given, a server that does not answer).
 */
export const DIALECTS: Dialect[] = (process.env.CORRAL_TEST_DIALECTS ?? 'sqlite,postgres,mysql')
  .split(',')
  .map((name) => name.trim())
  .filter((name): name is Dialect => name === 'sqlite' || name === 'postgres' || name === 'mysql');

/**
 * The dialect of a test that runs once, on one database: the first of DIALECTS (SQLite unless the
 * list leaves it out), or none in a run without the dialect-free files (CORRAL_TEST_DIALECT_FREE=0,
 * CI's second pass: its first pass ran the test on SQLite already).
 */
export const ONCE_DIALECT: Dialect | undefined = process.env.CORRAL_TEST_DIALECT_FREE === '0' ? undefined : DIALECTS[0];

const PG_ADMIN_URL = process.env.CORRAL_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const MYSQL_ADMIN_URL = process.env.CORRAL_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';

export interface TestDatabase {
  config: DatabaseConfig;
  /** A DATABASE_URL for child processes. */
  url: string;
  drop(): Promise<void>;
}

function withDatabase(admin: string, name: string): string {
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A new, uniquely named, empty database; `drop()` removes it. */
export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  // A test that needs a server this run was told not to use fails here, loudly, instead of connecting anyway.
  if (!DIALECTS.includes(dialect)) throw new Error(`this test needs ${dialect}, which is not in CORRAL_TEST_DIALECTS (${DIALECTS.join(',')}): guard it with DIALECTS.includes('${dialect}')`);
  const name = `corral_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'corral-test-'));
    const file = join(dir, 'test.sqlite');
    return { config: { dialect, file }, url: `sqlite:${file}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (dialect === 'postgres') {
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`create database "${name}"`);
    await admin.end();
    const url = withDatabase(PG_ADMIN_URL, name);
    return {
      config: { dialect, url, poolSize: 5 },
      url,
      drop: async () => {
        const client = new pg.Client({ connectionString: PG_ADMIN_URL });
        await client.connect();
        await client.query(`drop database if exists "${name}" with (force)`);
        await client.end();
      },
    };
  }
  const mysql = await import('mysql2/promise');
  const admin = await mysql.createConnection({ uri: MYSQL_ADMIN_URL });
  await admin.query(`create database \`${name}\` character set utf8mb4 collate utf8mb4_bin`);
  await admin.end();
  const url = withDatabase(MYSQL_ADMIN_URL, name);
  return {
    config: { dialect, url, poolSize: 5 },
    url,
    drop: async () => {
      const client = await mysql.createConnection({ uri: MYSQL_ADMIN_URL });
      await client.query(`drop database if exists \`${name}\``);
      await client.end();
    },
  };
}
