import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/**
 * CSV export per RFC 4180 (issue 37, finding 5): a value holding a bare CR or LF is quoted like
 * one holding CRLF, a comma or a quote, so no reader starts a new row inside it; and formula
 * escaping applies to every line of a multi-line cell, so no line of it can start a formula.
 */
// [value, the record as the CSV holds it]
const CASES: Array<[string, string]> = [
  ['p\r@SUM(1)', '"p\r\'@SUM(1)",z'],
  ['=1\n=2', '"\'=1\n\'=2",z'],
  ['a\r\nb', '"a\r\nb",z'],
  ['a\rb', '"a\rb",z'],
  ['a\nb', '"a\nb",z'],
  ['\r\n-3', '"\'\r\n\'-3",z'],
  ['say "hi", twice', '"say ""hi"", twice",z'],
  ["x\n'+y", "\"x\n''+y\",z"],
  ['plain', 'plain,z'],
];

for (const dialect of DIALECTS) {
  describe(`CSV export quoting on ${dialect}`, () => {
    const ctx = useDialectApp(dialect);
    let csv = '';

    beforeAll(async () => {
      await ctx.api.collection({ name: 'lines', fields: [{ name: 'note', type: 'text' }, { name: 'tail', type: 'string' }] });
      const created = await ctx.api.post('/api/lines:create', CASES.map(([note]) => ({ note, tail: 'z' })));
      expect(created.status, created.text).toBe(201);
      const auth = await ctx.api.authHeaders();
      const answer = await ctx.built.app.inject({ method: 'GET', url: '/api/lines:export?format=csv&fields=note,tail&sort=id', headers: auth });
      expect(answer.statusCode, answer.body).toBe(200);
      csv = answer.rawPayload.subarray(3).toString('utf8');
    });

    it.each(CASES)('%j is written as %j', (_value, record) => {
      expect(csv.split('\r\n').length).toBeGreaterThan(CASES.length);
      expect(csv).toContain(`\r\n${record}\r\n`);
    });

    it('an RFC 4180 reader gets one record per row, and no line of any cell starts a formula', () => {
      const rows = parse(csv, { record_delimiter: '\r\n' }) as string[][];
      expect(rows).toHaveLength(CASES.length + 1);
      for (const [note] of rows.slice(1)) expect(note!.split(/\r\n|\r|\n/).filter((line) => /^[=+\-@\t]/.test(line))).toEqual([]);
    });
  });
}
