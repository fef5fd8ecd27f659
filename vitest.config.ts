import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Prints how many operations and statuses the response contract check covered.
    globalSetup: ['test/support/contract-summary.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file makes its own databases; files run in parallel on the two cores.
    pool: 'forks',
    // CI also writes a JSON report, from which .ci/run prints a plain "N passed, N failed" line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: 'test-results.json' },
  },
});
