/**
 * Property-based fuzzing of the HTTP surface on every dialect: generated paths (both styles,
 * association paths, odd names, percent-encoding, colons), query strings (JSON and qs forms),
 * filters and bodies against a seeded schema with every field and relation type.
 * Asserts: no 5xx, every answer is the JSON envelope with catalogue codes, and a write answered
 * 4xx leaves schema and rows unchanged. `FUZZ_SEED=<n> FUZZ_RUNS=<n>` reproduce or run longer.
 * The hostile generator (reserved names, deep JSON, odd methods) is in hostile-fuzz.test.ts.
 */
import { beforeAll, describe, it } from 'vitest';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';
import { requestArb } from './support/request-arbitraries.js';
import { defineFuzzSchema, seedRows } from './support/fuzz-schema.js';
import { fuzzApp } from './support/fuzz-run.js';

for (const dialect of DIALECTS) {
  describe(`HTTP fuzz on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    beforeAll(async () => {
      await defineFuzzSchema(ctx.api);
      await seedRows(ctx.api);
    });

    it('answers every generated request in the envelope, never 5xx, and changes nothing on a 4xx write', async () => {
      await fuzzApp(dialect, ctx.built.app, ctx.api, requestArb({ hostile: false }));
    }, 600_000);
  });
}
