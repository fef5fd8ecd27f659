import type { DirectReader } from './direct-reader.js';
import { rowidSpanSql } from './rowid-span.js';

/**
 * Rows a SQLite table spans before its heavy reads go to a reader thread. Below it a scan
 * costs a few milliseconds, less than the hop's share of the work would save: a filter on
 * the 10,000-row benchmark table cost 8% more instructions on a thread (docs/performance.md).
 */
export const READER_MIN_ROWS = 20_000;

/** How long a table's span is believed before it is read again. */
const SPAN_TTL_MS = 10_000;

/**
 * Which SQLite tables are big enough for the reader threads, by their rowid span
 * (rowid-span.ts). Read on the main connection when asked and kept SPAN_TTL_MS.
 */
export class TableSpans {
  readonly #spans = new Map<string, { rows: number; at: number }>();

  constructor(
    private readonly direct: DirectReader,
    private readonly minRows: number = READER_MIN_ROWS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether `table` spans minRows or more (true when it cannot be read: the thread then decides nothing wrongly). */
  large(table: string): boolean {
    if (this.minRows <= 0) return true;
    const now = this.now();
    const known = this.#spans.get(table);
    if (known !== undefined && now - known.at < SPAN_TTL_MS) return known.rows >= this.minRows;
    let rows: number;
    try {
      const result = this.direct(rowidSpanSql(table), [], true);
      // A transaction is open on the main connection: no answer now, so the thread takes it.
      if (result === undefined) return true;
      rows = Number(result[0]?.n ?? 0) || 0;
    } catch {
      return true;
    }
    this.#spans.set(table, { rows, at: now });
    return rows >= this.minRows;
  }
}
