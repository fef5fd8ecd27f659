// Pure parts of the bench's rounds: the order in which write scenarios load their servers, the
// size of a write run's measured window, medians and ranges. Unit-tested in
// test/unit/bench-rounds.test.ts.

/** The median of the numbers among `values` (null and undefined left out); null when none. */
export function median(values) {
  const sorted = values.filter((v) => v !== null && v !== undefined && !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** [min, max] of the numbers among `values`, rounded to 2 decimals; null when none. */
export function spread(values) {
  const kept = values.filter((v) => v !== null && v !== undefined && !Number.isNaN(v));
  if (kept.length === 0) return null;
  return [Math.round(Math.min(...kept) * 100) / 100, Math.round(Math.max(...kept) * 100) / 100];
}

/**
 * Write scenarios load one server after the other. Round 1 runs them in the given order, round
 * 2 in the reverse order, and so on (A B, B A, A B … or A B E, E B A …): a drift over the
 * scenario (the machine's load, a table or a log growing) then favours neither server, and
 * each server runs first as often as last. Returns the indexes into the servers, in run order.
 */
export function roundOrder(round, count) {
  const forward = Array.from({ length: count }, (_, i) => i);
  return round % 2 === 1 ? forward : forward.reverse();
}

/**
 * The measured window of a write run, in responses: `requests` for every server and every run
 * (so each writes, and grows its tables by, as many rows; a window of fixed time would let the
 * faster server write more), after a quarter as many unmeasured responses (connections open,
 * the event loop reaches its steady batching). At least 1 each.
 */
export function writeWindow(requests) {
  const windowRequests = Math.max(1, Math.round(requests));
  return { settleRequests: Math.max(1, Math.round(windowRequests / 4)), windowRequests };
}
