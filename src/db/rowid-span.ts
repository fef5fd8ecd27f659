/**
 * SQLite: how many rowids a table spans, `max(rowid) - min(rowid) + 1` (NULL when empty): two
 * b-tree seeks, never a scan; at least the row count, more after deletes. The one text for
 * the adapter's `estimatedRows` (a common search's estimate) and the reader threads' size
 * check (table-spans.ts).
 */
export function rowidSpanSql(table: string): string {
  const t = `"${table.replaceAll('"', '""')}"`;
  return `select (select max(rowid) from ${t}) - (select min(rowid) from ${t}) + 1 as n`;
}
