/**
 * Fuzzing aimed at the safety rails of API.md section 12 (reserved and
 * over-long names, Origin and Host rules, request ids, odd methods, deep JSON, charsets, body
 * shapes). These properties state the contract; they pass once the section 12 rails exist.
 * `FUZZ_SEED` and `FUZZ_RUNS` reproduce or lengthen a run, as in http-fuzz.test.ts.
 */
import { beforeAll, describe, it } from 'vitest';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';
import { requestArb } from './support/request-arbitraries.js';
import { defineFuzzSchema, seedRows } from './support/fuzz-schema.js';
import { fuzzCases } from './support/fuzz-run.js';
import { browserCase, clientMistakeCase, reservedNameCase } from './support/hostile-arbitraries.js';

for (const dialect of DIALECTS) {
  describe(`hostile fuzz on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    beforeAll(async () => {
      await defineFuzzSchema(ctx.api);
      await seedRows(ctx.api);
    });

    it('refuses foreign Origin and Host with 403 before any action runs and keeps only plain request ids', async () => {
      await fuzzCases(`browser headers on ${dialect}`, ctx.built.app, ctx.api, browserCase);
    }, 300_000);

    it('answers odd methods, deep JSON, other charsets and wrong body shapes with 4xx in the envelope', async () => {
      await fuzzCases(`client mistakes on ${dialect}`, ctx.built.app, ctx.api, clientMistakeCase);
    }, 300_000);

    it('answers the whole hostile mix in the envelope without 5xx', async () => {
      const mixed = requestArb({ hostile: true }).map((request) => ({ request, expect: { kind: 'no5xx' as const }, followUps: [] }));
      await fuzzCases(`hostile mix on ${dialect}`, ctx.built.app, ctx.api, mixed, 60);
    }, 300_000);

    // Last: on a dialect that accepts a reserved field name, that collection may stay broken.
    it('refuses reserved names with 400 SCHEMA_INVALID and keeps over-long generated names from 5xx', async () => {
      await fuzzCases(`reserved names on ${dialect}`, ctx.built.app, ctx.api, reservedNameCase);
    }, 300_000);
  });
}
