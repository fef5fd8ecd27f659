import { describe, expect, it } from 'vitest';
import type { DirectReader } from '../../src/db/direct-reader.js';
import { TableSpans } from '../../src/db/table-spans.js';

describe('TableSpans', () => {
  const reader = (spans: Record<string, number>, calls: string[]): DirectReader =>
    ((sql: string) => {
      calls.push(sql);
      const table = /from "([^"]*)"\)/.exec(sql)?.[1] ?? '';
      if (!(table in spans)) throw new Error('no such table');
      return [{ n: spans[table] }];
    }) as DirectReader;

  it('calls a table large from its rowid span, reads it again only after 10 s, and says large when it cannot tell', () => {
    const calls: string[] = [];
    let now = 0;
    const spans = { small: 500, big: 50_000 };
    const tables = new TableSpans(reader(spans, calls), 20_000, () => now);
    expect(tables.large('small')).toBe(false);
    expect(tables.large('big')).toBe(true);
    expect(tables.large('missing')).toBe(true);
    expect(calls).toHaveLength(3);
    spans.small = 30_000;
    now = 9_999;
    expect(tables.large('small')).toBe(false);
    now = 10_000;
    expect(tables.large('small')).toBe(true);
    expect(calls).toHaveLength(4);
  });

  it('with a minimum of 0 sends every table without reading it', () => {
    const calls: string[] = [];
    expect(new TableSpans(reader({}, calls), 0).large('any')).toBe(true);
    expect(calls).toHaveLength(0);
  });

  it('leaves the decision to the thread while a transaction holds the main connection', () => {
    expect(new TableSpans((() => undefined) as DirectReader, 10).large('t')).toBe(true);
  });
});
