// @ts-check
// Pure parts of the bench's rounds: the order in which write scenarios load their servers, the
// size of a write run's measured window, medians and ranges. Unit-tested in
// test/unit/bench-rounds.test.ts.

/**
 * The median of the numbers among `values` (null and undefined left out); null when none.
 * @param {(number | null | undefined)[]} values
 * @returns {number | null}
 */
export function median(values) {
  const sorted = numbers(values).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? Number(sorted[mid]) : (Number(sorted[mid - 1]) + Number(sorted[mid])) / 2;
}

/**
 * The numbers among `values`: null, undefined and NaN left out.
 * @param {(number | null | undefined)[]} values
 * @returns {number[]}
 */
function numbers(values) {
  return /** @type {number[]} */ (values.filter((v) => v !== null && v !== undefined && !Number.isNaN(v)));
}

/**
 * [min, max] of the numbers among `values`, rounded to 2 decimals; null when none.
 * @param {(number | null | undefined)[]} values
 * @returns {number[] | null}
 */
export function spread(values) {
  const kept = numbers(values);
  if (kept.length === 0) return null;
  return [Math.round(Math.min(...kept) * 100) / 100, Math.round(Math.max(...kept) * 100) / 100];
}

/**
 * Write scenarios load one server after the other. Round 1 runs them in the given order, round
 * 2 in the reverse order, and so on (A B, B A, A B … or A B E, E B A …): a drift over the
 * scenario (the machine's load, a table or a log growing) then favours neither server, and
 * each server runs first as often as last. Returns the indexes into the servers, in run order.
 * @param {number} round
 * @param {number} count
 * @returns {number[]}
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
 * @param {number} requests
 */
export function writeWindow(requests) {
  const windowRequests = Math.max(1, Math.round(requests));
  return { settleRequests: Math.max(1, Math.round(windowRequests / 4)), windowRequests };
}

/**
 * A distribution-free confidence interval of the median of `values` (null and undefined left
 * out): [x(k), x(n+1-k)] of the sorted values, with k the largest rank such that the chance of
 * fewer than k values below the true median, P(Binomial(n, ½) < k), is at most (1 − level) / 2.
 * It assumes nothing of the rounds' distribution (a disturbed round is one more value, not a
 * weight), which is why the bench reports the median. Returns [low, high], or null with fewer
 * than 6 values (the 95% interval needs n ≥ 6: with 5, x(1)–x(5) is only 94%).
 * @param {(number | null | undefined)[]} values
 * @param {number} [level]
 * @returns {number[] | null}
 */
export function medianInterval(values, level = 0.95) {
  const sorted = numbers(values).sort((a, b) => a - b);
  const n = sorted.length;
  const tail = (1 - level) / 2;
  // cumulative[j] = P(Binomial(n, ½) ≤ j)
  let k = 0;
  let cumulative = 0;
  let term = 0.5 ** n; // P(B = 0)
  for (let j = 0; j < n; j++) {
    cumulative += term;
    if (cumulative > tail) break;
    k = j + 1; // P(B ≤ j) ≤ tail, so P(B < j + 1) ≤ tail: rank j + 1 qualifies
    term = (term * (n - j)) / (j + 1);
  }
  if (k < 1) return null;
  return [Number(sorted[k - 1]), Number(sorted[n - k])];
}

/**
 * Half the width of `medianInterval`, or Infinity when there are too few values for one.
 * @param {(number | null | undefined)[]} values
 * @param {number} [level]
 */
export function medianHalfWidth(values, level = 0.95) {
  const interval = medianInterval(values, level);
  return interval === null ? Infinity : (Number(interval[1]) - Number(interval[0])) / 2;
}

/**
 * Rounds of one scenario, after `rounds` of them gave the CPU ratios `ratios`: at least `min`,
 * then `step` more at a time while the median's 95% interval is wider than ±`halfWidth`, never
 * past `max`. `step` is the number of server pairs the rounds rotate through, so every pair
 * serves as many rounds. Whether another batch of rounds is due (checked after whole batches).
 * @param {number} rounds
 * @param {(number | null)[]} ratios
 * @param {{ min: number, max: number, step: number, halfWidth: number }} limits
 */
export function wantsMoreRounds(rounds, ratios, { min, max, step, halfWidth }) {
  if (rounds < min) return true;
  if (rounds + step > max) return false;
  return medianHalfWidth(ratios) > halfWidth;
}

const round2 = (/** @type {number} */ x) => Math.round(x * 100) / 100;

/**
 * One server's counts in a round (the fields of a measured run that instructionFigures reads).
 * @typedef {{ instructions?: number | null, instructionsAll?: number, instructionsGc?: number, requests: number }} Counted
 */
/** A round: Corral (`a`), the baseline (`b`) and the events baseline (`c`, writes). @typedef {{ a: Counted, b: Counted, c?: Counted }} InstructionRun */

/**
 * The instruction figures of a scenario's rounds, Corral (`a`) against server `other` (`b`, the
 * baseline, or `c`, the baseline that also records events; `suffix` names the fields), or {}
 * where no round counted instructions. A round's `instructions` are those of its requests' own
 * work: the window's count less what V8 spent compiling and collecting in it (`instructionsAll`
 * is the whole window, `instructionsGc` the collector's share; bench/lib/callgrind.mjs). The
 * headline is the ratio of each server's fewest instructions per request over the rounds: what
 * is left still only grows by what else ran in its window (code running in a lower tier after
 * a deoptimisation until V8 optimises it again, a socket read split in two), never shrinks, so
 * each server's cheapest window is its steady state and the most repeatable figure
 * (bench/README.md, "Instruction counts"). Next to it, as context: the collector's instructions
 * per request over all rounds (`instructionsGcPerRequest`), the headline with them added
 * (`instructionRatioWithGc`), and the ratio of all instructions over all rounds
 * (`instructionRatioAll`: every compilation and collection included).
 * @param {InstructionRun[]} runs
 * @param {'b' | 'c'} [other]
 * @param {string} [suffix]
 * @returns {import('./types.mjs').InstructionFigures}
 */
export function instructionFigures(runs, other = 'b', suffix = '') {
  const counted = runs.filter((r) => typeof r.a.instructions === 'number' && typeof r[other]?.instructions === 'number');
  if (counted.length === 0) return {};
  /** A server's counts in a round it counted in (`counted` keeps only those). @param {InstructionRun} r @param {'a' | 'b' | 'c'} key */
  const of = (r, key) => /** @type {Counted} */ (r[key]);
  const least = (/** @type {'a' | 'b' | 'c'} */ key) => Math.min(...counted.map((r) => Number(of(r, key).instructions)));
  // Per request over all rounds, weighted by each round's requests.
  /** @param {'a' | 'b' | 'c'} key @param {'instructionsAll' | 'instructionsGc'} field */
  const overall = (key, field) => counted.reduce((sum, r) => sum + Number(of(r, key)[field] ?? of(r, key).instructions) * of(r, key).requests, 0) / counted.reduce((sum, r) => sum + of(r, key).requests, 0);
  const gc = (/** @type {'a' | 'b' | 'c'} */ key) => (counted.every((r) => typeof of(r, key).instructionsGc === 'number') ? overall(key, 'instructionsGc') : 0);
  const figures = {
    instructionsPerRequest: [Math.round(least('a')), Math.round(least(other))],
    instructionRatio: round2(least('a') / least(other)),
    instructionSpread: spread(counted.map((r) => Number(r.a.instructions) / Number(of(r, other).instructions))),
    instructionsGcPerRequest: [Math.round(gc('a')), Math.round(gc(other))],
    instructionRatioWithGc: round2((least('a') + gc('a')) / (least(other) + gc(other))),
    instructionsPerRequestAll: [Math.round(overall('a', 'instructionsAll')), Math.round(overall(other, 'instructionsAll'))],
    instructionRatioAll: round2(overall('a', 'instructionsAll') / overall(other, 'instructionsAll')),
  };
  return Object.fromEntries(Object.entries(figures).map(([name, value]) => [`${name}${suffix}`, value]));
}

/**
 * --instructions: whether another round is due after `rounds` rounds, `counts` holding each
 * server's instructions per request of every round. A server's figure is its cheapest round
 * (instructionFigures), and it is trusted once a second round comes within `agreement` of it
 * (0.02: 2%): a process that went on compiling through the first rounds of a scenario (SQLite
 * `get` in one run: 0.33 to 0.79 million instructions a request over all 6 rounds, 0.27 million
 * warm) shows it by rounds that disagree, and gets more of them. At least `min`, at most `max`.
 * @param {number} rounds
 * @param {(number | null | undefined)[][]} counts
 * @param {{ min: number, max: number, agreement: number }} limits
 */
export function wantsMoreInstructionRounds(rounds, counts, { min, max, agreement }) {
  if (rounds < min) return true;
  if (rounds >= max) return false;
  return counts.some((values) => {
    const [least, next] = /** @type {number[]} */ (values.filter((v) => typeof v === 'number' && Number.isFinite(v))).sort((x, y) => x - y);
    return next === undefined ? least !== undefined : next > least * (1 + agreement);
  });
}
