import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { chooseDialects } from './test/support/test-dialects.js';

/**
 * Files that measure memory, time or child processes run one at a time after the others, so
 * they do not disturb each other. Everything else (any new file by default) runs in parallel:
 * most of a test's time is waiting on DDL, fsync and sockets, not CPU, so 4 workers suit 2 cores.
 */
const SERIAL = ['test/process/**/*.test.ts', 'test/browser/**/*.test.ts', 'test/**/*-memory.test.ts', 'test/unit/bench-*.test.ts'];
const ALL = ['test/**/*.test.ts'];

// Decided once, before any worker starts; workers inherit the environment (test-database.ts reads it).
const choice = await chooseDialects(process.env);
process.env.CORRAL_TEST_DIALECTS = choice.dialects.join(',');
process.env.CORRAL_TEST_SKIPPED_DIALECTS = choice.skipped.map((entry) => `${entry.dialect} (${entry.address})`).join(',');

/**
 * CORRAL_TEST_DIALECT_FREE=0 (CI's second pass, on postgres,mysql): only the files that run per
 * dialect; the dialect-free files already ran in the SQLite pass.
 */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}
/**
 * A file runs per dialect when its code (imports aside) uses the DIALECTS list other than as
 * DIALECTS[0]; the rest (no database, a fixed 'sqlite', or one run on DIALECTS[0]) ran in the SQLite pass.
 */
function perDialect(file: string): boolean {
  const code = readFileSync(file, 'utf8').split('\n').filter((line) => !line.startsWith('import ')).join('\n');
  return /\bDIALECTS(_\w+)?\b(?!\[0\])/.test(code);
}
const dialectFreeFiles = process.env.CORRAL_TEST_DIALECT_FREE === '0' ? testFiles('test').filter((file) => !perDialect(file)) : [];

const workers = Number(process.env.CORRAL_TEST_WORKERS ?? 4);

const shared = { testTimeout: 30_000, hookTimeout: 60_000, pool: 'forks' } as const;

export default defineConfig({
  test: {
    // CI also writes a JSON report, from which .ci/run prints the test count and the slowest files.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test-results.json' },
    // Prints how many operations and statuses the response contract check covered, and which dialects were skipped.
    globalSetup: ['test/support/contract-summary.ts', 'test/support/dialect-summary.ts'],
    projects: [
      {
        test: { ...shared, name: 'parallel', include: ALL, exclude: [...SERIAL, ...dialectFreeFiles], maxWorkers: workers, sequence: { groupOrder: 0 } },
      },
      {
        test: { ...shared, name: 'serial', include: SERIAL, exclude: dialectFreeFiles, fileParallelism: false, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
