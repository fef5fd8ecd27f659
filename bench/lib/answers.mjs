// @ts-check
// What an answer was, in a few words, for `--large`'s table: its status and error code when
// refused, else its rows and count (and whether the count is estimated).

/**
 * `20 rows, count 1000000`, `20 rows, count 999871 (estimated)`, `count 1000000`,
 * `20 rows, hasNext true` (a cursor page), `400 PAGE_TOO_DEEP`, or `ok`.
 * @param {{ status: number, body: any }} reply
 * @returns {string}
 */
export function describeAnswer({ status, body }) {
  if (status < 200 || status >= 300) return `${status} ${body?.errors?.[0]?.code ?? ''}`.trim();
  const estimated = body?.meta?.countEstimated === true ? ' (estimated)' : '';
  if (typeof body?.data === 'number') return `count ${body.data}${estimated}`;
  if (!Array.isArray(body?.data)) return 'ok';
  const meta = body.meta ?? {};
  const count = typeof meta.count === 'number' ? `, count ${meta.count}${estimated}` : typeof meta.hasNext === 'boolean' ? `, hasNext ${meta.hasNext}` : '';
  return `${body.data.length} rows${count}`;
}
