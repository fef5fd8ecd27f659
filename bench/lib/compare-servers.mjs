// @ts-check
// One scenario on two (or three) servers: warm-ups, rounds until the figure is pinned down, and
// the row the report and the JSON show.
import { CALLGRIND_SLOWDOWN } from './callgrind.mjs';
import { fail, log, mb, settings } from './config.mjs';
import { mutates } from './load.mjs';
import { instructionRound, pairedRound, resetDatabases, sequentialRound, warm } from './modes.mjs';
import { instructionFigures, median, medianInterval, roundOrder, spread, wantsMoreInstructionRounds, wantsMoreRounds, writeWindow } from './rounds.mjs';
import { random, SEED } from '../seed.mjs';

/** @typedef {import('./types.mjs').Measured} Measured */
/** @typedef {import('./types.mjs').Scenario} Scenario */
/** @typedef {import('./types.mjs').Server} Server */

/**
 * One round: each server's figures (`c`: the events baseline on writes) and their ratios.
 * @typedef {object} Run
 * @property {number} pair the index of the server pair that ran it
 * @property {Measured} a
 * @property {Measured} b
 * @property {Measured | undefined} c
 * @property {number | null} cpuRatio
 * @property {number} rateRatio
 * @property {number | null} cpuRatioContext
 * @property {number | null} rateRatioContext
 * @property {number | null} instructionRatio
 * @property {number | null} instructionRatioContext
 */

/** @typedef {import('./types.mjs').Row} Row */

/** @param {number | null | undefined} x */
const round2 = (x) => (x === null || x === undefined ? null : Math.round(x * 100) / 100);
const roundInterval = (/** @type {number[] | null} */ interval) => (interval === null ? null : /** @type {number[]} */ (interval.map(round2)));

/**
 * Both servers on one scenario: one warm-up each, then rounds, each giving a ratio, reported as
 * median, range and the median's 95% interval. `a`, `b` (and `context`) are servers, or lists
 * of as many server processes of each kind (one pair per index): the rounds rotate through the
 * pairs (round 1 pair 1, round 2 pair 2, …), so no one process's JIT and memory layout sets the
 * figure. `rounds` (a whole number of rotations) is the least; with `adaptive`, batches of one
 * round per pair follow while the median's interval is wider than ±settings.halfWidth, up to
 * settings.maxRounds. By default every round loads its pair at once (paired), so whatever the
 * machine does hits them alike; write scenarios can be paired because each server writes its
 * own copy of the database (copyDatabase), reset before every round. With --no-paired (or
 * `pairable: false`), they run one after the other; writes then in alternating order (A B,
 * B A, …), each run writing the same number of rows. `context`: a third server measured in the
 * same write rounds (the baseline that also records change events); its ratio is reported as
 * context next to the headline.
 * @param {string} label
 * @param {Scenario} scenario
 * @param {Server | Server[]} a
 * @param {Server | Server[]} b
 * @param {{ rounds?: number, posts?: number, pairable?: boolean, context?: Server[], adaptive?: boolean, bScenario?: Scenario }} [options]
 * @returns {Promise<Row>}
 */
export async function compare(label, scenario, a, b, { rounds, posts = SEED.posts, pairable = true, context, adaptive = true, bScenario = scenario } = {}) {
  // `bScenario`: what the second server of each pair runs (by default the same scenario).
  const scenarioOf = (/** @type {number} */ index) => (index === 1 ? bScenario : scenario);
  const rand = random(1234);
  const writes = mutates(scenario);
  const list = (/** @type {Server | Server[]} */ x) => (Array.isArray(x) ? x : [x]);
  const [as, bs, cs] = [list(a), list(b), writes && context !== undefined ? list(context) : undefined];
  const pairs = as.map((server, i) => (cs === undefined ? [server, bs[i]] : [server, bs[i], cs[i]]));
  const [first] = pairs;
  if (first === undefined) fail(`${label} ${scenario.name}: no servers`);
  rounds ??= writes ? settings.writeRounds : settings.rounds;
  const maxRounds = adaptive ? Math.max(rounds, settings.maxRounds) : rounds;
  const warmRates = [];
  for (const servers of pairs) for (const [index, server] of servers.entries()) warmRates.push(await warm(server, scenarioOf(index), rand, posts));
  const paired = pairable && settings.paired;
  // --instructions: every run of the scenario counts as many responses, settings.instructionSeconds of the slower server's warm-up rate.
  const [fewest, most] = settings.instructionRequests;
  const instructionRequests = Math.min(most, Math.max(fewest, Math.round((Math.min(...warmRates.map((r) => r ?? Infinity)) / CALLGRIND_SLOWDOWN) * settings.instructionSeconds) || fewest));
  if (settings.instructions) log(`${label} ${scenario.name}: each run counts the instructions of ${instructionRequests} responses, one server after the other`);
  // Writes one after the other: a window of as many responses for every server and run.
  const writeSize = writes && !paired && !settings.instructions ? writeWindow(settings.writeRequests[first[0].database.kind]) : undefined;
  if (writeSize !== undefined) log(`${label} ${scenario.name}: each write run measures ${writeSize.windowRequests} responses after ${writeSize.settleRequests}, in alternating order`);
  /** @type {Run[]} */
  const runs = [];
  for (let round = 1; ; round++) {
    const pairIndex = (round - 1) % pairs.length;
    const servers = pairs[pairIndex] ?? first;
    const input = { round, servers, scenarioOf, rand, posts, writes, writeSize, instructionRequests };
    const results = await (settings.instructions ? instructionRound(input) : paired ? pairedRound(input) : sequentialRound(input));
    const [x, y, z] = /** @type {[Measured, Measured, Measured | undefined]} */ (results);
    const ratio = (/** @type {Measured} */ p, /** @type {Measured} */ q) => (p.cpuUs === null || q.cpuUs === null ? null : p.cpuUs / q.cpuUs);
    const instructionRatio = (/** @type {Measured} */ p, /** @type {Measured} */ q) => (p.instructions === null || q.instructions === null ? null : p.instructions / q.instructions);
    /** @type {Run} */
    const run = {
      pair: pairIndex,
      a: x,
      b: y,
      c: z,
      cpuRatio: ratio(x, y),
      rateRatio: x.rps / y.rps,
      cpuRatioContext: z === undefined ? null : ratio(x, z),
      rateRatioContext: z === undefined ? null : x.rps / z.rps,
      instructionRatio: instructionRatio(x, y),
      instructionRatioContext: z === undefined ? null : instructionRatio(x, z),
    };
    runs.push(run);
    const cpu = run.cpuRatio === null ? '' : `, CPU ${Math.round(Number(x.cpuUs))} / ${Math.round(Number(y.cpuUs))} µs/req = ${run.cpuRatio.toFixed(2)} (whole run in ticks: ${(Number(x.cpuUsWholeRun) / Number(y.cpuUsWholeRun)).toFixed(2)})`;
    const kilo = (/** @type {number | null | undefined} */ v) => `${Math.round(Number(v) / 1000)}k`;
    const counted = run.instructionRatio === null ? '' : `, ${kilo(x.instructions)} / ${kilo(y.instructions)} instructions/req = ${run.instructionRatio.toFixed(3)}${x.instructionsAll === undefined ? '' : ` (whole window ${kilo(x.instructionsAll)} / ${kilo(y.instructionsAll)}, GC ${kilo(x.instructionsGc)} / ${kilo(y.instructionsGc)})`}`;
    const contextFigure = run.instructionRatioContext !== null ? `, ${kilo(z?.instructions)} instructions/req, ${servers[0].name} ÷ it ${run.instructionRatioContext.toFixed(3)}` : run.cpuRatioContext === null ? '' : `, ${Math.round(Number(z?.cpuUs))} µs/req, ${servers[0].name} ÷ it ${run.cpuRatioContext.toFixed(2)}`;
    const more = z === undefined ? '' : `; ${servers[2].name} ${Math.round(z.rps)} req/s${contextFigure}`;
    const order = writeSize !== undefined ? ` [${roundOrder(round, servers.length).map((i) => 'ABC'[i]).join('')}]` : '';
    log(`${label} ${scenario.name} round ${round}${order}: ${servers[0].name} ${Math.round(x.rps)} req/s, ${servers[1].name} ${Math.round(y.rps)} req/s${cpu}${counted}${more}`);
    if (round % pairs.length !== 0) continue;
    if (settings.instructions) {
      const counts = first.map((_, i) => runs.map((r) => [r.a, r.b, r.c][i]?.instructions));
      if (!wantsMoreInstructionRounds(round, counts, { min: rounds, max: maxRounds, agreement: settings.instructionAgreement })) break;
      continue;
    }
    const ratios = runs.map((r) => r.cpuRatio).filter((v) => v !== null);
    if (!wantsMoreRounds(round, ratios, { min: rounds, max: maxRounds, step: pairs.length, halfWidth: settings.halfWidth })) break;
  }
  // The next scenario sees the seeded table.
  if (writes) await resetDatabases(pairs.flat());
  /** @param {(run: Run) => number | null | undefined} f @returns {number[]} */
  const pick = (f) => /** @type {number[]} */ ( runs.map(f).filter((v) => v !== null && v !== undefined));
  const us = (/** @type {number | null | undefined} */ v) => (v === null || v === undefined ? null : Math.round(v * 10) / 10);
  /** @type {Row} */
  const row = {
    scenario: scenario.name,
    target: scenario.target,
    cpuUs: [median(pick((r) => r.a.cpuUs)), median(pick((r) => r.b.cpuUs))].map((v) => (v === null ? null : Math.round(v))),
    cpuRatio: round2(median(pick((r) => r.cpuRatio))),
    cpuSpread: spread(pick((r) => r.cpuRatio)),
    // The 95% interval of that median (distribution-free), and how many rounds it took.
    cpuInterval: roundInterval(medianInterval(pick((r) => r.cpuRatio))),
    roundsRun: runs.length,
    processes: pairs.length,
    // The median CPU ratio of each server pair's own rounds: how far one process pair alone would have moved the figure.
    cpuRatioByPair: pairs.map((_, i) => round2(median(runs.filter((r) => r.pair === i).map((r) => r.cpuRatio)))),
    // The former measure (ticks over the whole load, connection set-up and drain included), for comparison.
    cpuRatioWholeRun: round2(median(pick((r) => (r.a.cpuUsWholeRun === null ? null : r.a.cpuUsWholeRun / Number(r.b.cpuUsWholeRun))))),
    cpuSpreadWholeRun: spread(pick((r) => (r.a.cpuUsWholeRun === null ? null : r.a.cpuUsWholeRun / Number(r.b.cpuUsWholeRun)))),
    ...instructionFigures(runs),
    // What the rounds ran on: CPU seconds, or instructions under callgrind (--instructions).
    metric: settings.instructions ? 'instructions' : 'cpu',
    rps: [Math.round(Number(median(pick((r) => r.a.rps)))), Math.round(Number(median(pick((r) => r.b.rps))))],
    requests: [median(pick((r) => r.a.requests)), median(pick((r) => r.b.requests))],
    rateRatio: round2(median(pick((r) => r.rateRatio))),
    rateSpread: spread(pick((r) => r.rateRatio)),
    p50Ms: [median(pick((r) => r.a.p50)), median(pick((r) => r.b.p50))],
    p99Ms: [median(pick((r) => r.a.p99)), median(pick((r) => r.b.p99))],
    peakRssMb: mb(Math.max(...runs.map((r) => r.a.peakRss ?? 0)) || null),
    ...(writeSize === undefined ? {} : { writeWindow: writeSize, order: 'alternating' }),
    rounds: runs.map((r) => {
      // One value of every server of the round (Corral, the baseline, and the events baseline on writes).
      /**
       * @param {'rps' | 'cpuUs' | 'cpuUsWholeRun' | 'requests' | 'instructions' | 'instructionsAll' | 'instructionsGc' | 'instructionsCompile'} field
       * @param {(v: any) => number | null} [shape]
       */
      const each = (field, shape = (v) => v) => [r.a, r.b, ...(r.c === undefined ? [] : [r.c])].map((result) => shape(result[field]));
      return {
        pair: r.pair,
        rps: each('rps', Math.round),
        cpuUs: each('cpuUs', us),
        cpuUsWholeRun: each('cpuUsWholeRun', us),
        requests: each('requests'),
        instructions: each('instructions', (v) => (v === null || v === undefined ? null : Math.round(v))),
        ...(r.a.instructionsAll === undefined ? {} : { instructionsAll: each('instructionsAll', Math.round), instructionsGc: each('instructionsGc', Math.round), instructionsCompile: each('instructionsCompile', Math.round) }),
        ...(r.instructionRatio === null ? {} : { instructionRatio: Math.round(r.instructionRatio * 1000) / 1000 }),
        cpuRatio: r.cpuRatio === null ? null : Math.round(r.cpuRatio * 1000) / 1000,
        rateRatio: Math.round(r.rateRatio * 1000) / 1000,
        ...(r.c === undefined ? {} : { cpuRatioEvents: r.cpuRatioContext === null ? null : Math.round(r.cpuRatioContext * 1000) / 1000 }),
      };
    }),
  };
  if (first.length === 3) {
    // Context, no target: Corral ÷ the baseline that also records each write's change event.
    Object.assign(row, {
      cpuUsEvents: us(median(pick((r) => r.c?.cpuUs))),
      cpuRatioEvents: round2(median(pick((r) => r.cpuRatioContext))),
      cpuSpreadEvents: spread(pick((r) => r.cpuRatioContext)),
      rpsEvents: Math.round(Number(median(pick((r) => r.c?.rps)))),
      rateRatioEvents: round2(median(pick((r) => r.rateRatioContext))),
      rateSpreadEvents: spread(pick((r) => r.rateRatioContext)),
      ...instructionFigures(runs, 'c', 'Events'),
    });
  }
  return row;
}
