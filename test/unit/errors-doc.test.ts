import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { ERROR_CATALOGUE } from '../../src/errors/catalogue.js';

const DOC = new URL('../../docs/errors.md', import.meta.url);

/** Table rows of the form `| `CODE` | 404 | … |`, in document order. */
function documentedCodes(markdown: string): { code: string; status: number }[] {
  const rows: { code: string; status: number }[] = [];
  for (const line of markdown.split('\n')) {
    const match = /^\|\s*`?([A-Z][A-Z0-9_]*)`?\s*\|\s*(\d{3})\s*\|/.exec(line);
    if (match) rows.push({ code: match[1]!, status: Number(match[2]) });
  }
  return rows;
}

describe('docs/errors.md', () => {
  const rows = documentedCodes(readFileSync(DOC, 'utf8'));
  const catalogue = Object.entries(ERROR_CATALOGUE).map(([code, { status }]) => ({ code, status }));

  it('lists exactly the catalogue codes, in catalogue order, with their statuses', () => {
    expect(rows).toEqual(catalogue);
  });

  it('lists each code once', () => {
    expect(new Set(rows.map((row) => row.code)).size).toBe(rows.length);
  });
});
