import { describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config/parse-database-url.js';
import { classifyDriverError, isReadOnlyRefusal } from '../../src/db/driver-error.js';
import type { Dialect } from '../../src/db/dialect.js';

/** The driver errors a role that may only read gets (docs/existing-databases.md#read-only-roles), and near misses. */
const CASES: [Dialect, Record<string, unknown>, boolean][] = [
  ['postgres', { code: '42501', message: 'permission denied for table product' }, true],
  ['postgres', { code: '25006', message: 'cannot execute INSERT in a read-only transaction' }, true],
  ['postgres', { code: '23505', message: 'duplicate key' }, false],
  ['mysql', { errno: 1142, message: "INSERT command denied to user 'r'@'%' for table 'tag'" }, true],
  ['mysql', { errno: 1044, message: "Access denied for user 'r'@'%' to database 'shop'" }, true],
  ['mysql', { errno: 1290, message: 'The MariaDB server is running with the --read-only option' }, true],
  ['mysql', { errno: 1062, message: 'Duplicate entry' }, false],
  ['sqlite', { code: 'SQLITE_READONLY', message: 'attempt to write a readonly database' }, true],
  ['sqlite', { code: 'SQLITE_READONLY_DBMOVED', message: 'attempt to write a readonly database' }, true],
  ['sqlite', { code: 'SQLITE_CONSTRAINT_UNIQUE', message: 'UNIQUE constraint failed: tag.label' }, false],
];

describe('a read-only refusal', () => {
  it.each(CASES)('%s %j is denied: %s', (dialect, error, denied) => {
    expect(classifyDriverError(error, dialect).kind === 'denied').toBe(denied);
    expect(isReadOnlyRefusal(error)).toBe(denied);
  });
});

describe('sqlite:<path>?mode=ro', () => {
  const parse = (value: string) => parseDatabaseUrl({ name: 'DATABASE_URL', value }, 5);
  it.each([
    ['sqlite:./data/shop.sqlite?mode=ro', { dialect: 'sqlite', file: './data/shop.sqlite', readOnly: true }],
    ['sqlite:///srv/shop.sqlite?mode=ro', { dialect: 'sqlite', file: '/srv/shop.sqlite', readOnly: true }],
    ['sqlite:./data/shop.sqlite', { dialect: 'sqlite', file: './data/shop.sqlite' }],
  ])('%s', (url, config) => {
    expect(parse(url)).toEqual(config);
  });

  it('refuses an in-memory read-only database', () => {
    expect(() => parse('sqlite::memory:?mode=ro')).toThrow(/in-memory SQLite database cannot be read-only/);
  });
});
