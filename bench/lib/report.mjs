// @ts-check
// The report of a run: its tables on stdout, and its JSON (bench/results/latest.json, --json).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SEED } from '../seed.mjs';
import { databases, log, opts, POOL_SIZE, RESULTS, SCALE_POSTS, scenarios, settings } from './config.mjs';
import { perfSupported } from './cpu.mjs';
import { SERVER_CPU } from './proc.mjs';
import { printLargeReport } from './large-report.mjs';
import { printRows } from './table.mjs';

/**
 * A row of the report: one scenario's figures on one database (see compare() in
 * bench/lib/compare-servers.mjs), with what the caller knows of it.
 * @typedef {import('./types.mjs').Row & { database: import('./types.mjs').DatabaseKind, corralIdleRssMb?: number | null, posts?: number, seedMs?: number }} ResultRow
 */

/**
 * Every row of a run: the scenarios, the 1,000,000-row scale runs, the workers measurement,
 * the scoped user against root, paired, and `--large`'s questions.
 * @typedef {{ rows: ResultRow[], scaleRows: ResultRow[], workerRows: ResultRow[], scopedRows: ResultRow[], largeRows: import('./large.mjs').LargeRow[] }} Results
 */

/** @param {unknown[]} values */
const pair = ([a, b]) => `${a ?? '-'} / ${b ?? '-'}`;
/** @param {number[] | null | undefined} spread (undefined: a figure this run has not) */
const range = (spread) => (spread === null || spread === undefined ? '-' : `${spread[0].toFixed(2)}–${spread[1].toFixed(2)}`);
/** @param {number | null | undefined} x (undefined: a figure this run has not) */
const fixed = (x) => (x === null || x === undefined ? '-' : x.toFixed(2));

/**
 * Issue 10's measure: the scoped user's list against root's, from the CPU µs per request
 * (medians) of the same run, for Corral and for the baseline (which serves the same SQL).
 * Against `list-owner` (root asking for the same rows) the quotient is the permission check;
 * against `list` it also holds the difference between the owner's page and count (1,000 index
 * entries) and root's (the b-tree count), which both servers pay.
 * @param {ResultRow[]} rows
 * @param {ResultRow[]} scopedRows
 */
function printScopedCost(rows, scopedRows) {
  /** @type {string[]} */
  const lines = [];
  for (const r of scopedRows) {
    lines.push(`  ${r.database}, paired (one Corral as the scoped user, the other as root on the same rows, at once, swapping every round): list-scoped ÷ list-owner ${fixed(r.cpuRatio)} (95% interval ${range(r.cpuInterval)}, range ${range(r.cpuSpread)}, ${r.roundsRun} rounds; ${pair(r.cpuUs)} µs/req)`);
  }
  for (const database of new Set(rows.map((r) => r.database))) {
    const cpu = (/** @type {string} */ name) => rows.find((r) => r.database === database && r.scenario === name)?.cpuUs;
    const scoped = cpu('list-scoped');
    if (scoped === undefined) continue;
    const over = (/** @type {string} */ name) => {
      const root = cpu(name);
      return root === undefined || root.some((v) => v === null) || scoped.some((v) => v === null) ? null : `${name}: Corral ${(Number(scoped[0]) / Number(root[0])).toFixed(2)}, baseline ${(Number(scoped[1]) / Number(root[1])).toFixed(2)}`;
    };
    const parts = ['list-owner', 'list'].map(over).filter((part) => part !== null);
    if (parts.length > 0) lines.push(`  ${database}: list-scoped ÷ ${parts.join('; ÷ ')}`);
  }
  if (lines.length === 0) return;
  process.stdout.write(
    '\nThe scoped user against root (issue 10, target ≤ 1.15; list-owner is root asking for the same rows with the same SQL, so list-scoped ÷ list-owner is the permission check). Paired rounds where measured, then the quotients of the table\'s medians (rounds at different times: the machine\'s drift between them is in these, for Corral and the baseline alike):\n' +
      `${lines.join('\n')}\n`,
  );
}

/** The table of an --instructions run: instructions per request under callgrind, and their ratio. @param {ResultRow[]} rows */
function printInstructionReport(rows) {
  const events = rows.some((r) => r.instructionRatioEvents !== undefined);
  const kilo = (/** @type {number | null | undefined} */ v) => (v === null || v === undefined ? '-' : `${Math.round(v / 1000)}k`);
  printRows(
    'Corral against the baseline, instructions (ratio = Corral instructions per request ÷ the baseline\'s, each server\'s cheapest round under callgrind, user space only, V8\'s compiling and collecting left out, lower is better; range of the rounds\' ratios; GC = the collector\'s instructions per request over all rounds, and the ratio with them added; all = every instruction of every round, compilations and collections included):',
    ['scenario', 'database', 'instructions/req C / B', 'ratio', 'range', 'GC/req C / B', 'with GC: ratio', 'all: ratio', 'rounds', 'responses/run', 'target', ...(events ? ['context: C ÷ B+events'] : [])],
    rows.map((r) => [
      r.scenario,
      r.database,
      `${kilo(r.instructionsPerRequest?.[0])} / ${kilo(r.instructionsPerRequest?.[1])}`,
      fixed(r.instructionRatio),
      range(r.instructionSpread),
      `${kilo(r.instructionsGcPerRequest?.[0])} / ${kilo(r.instructionsGcPerRequest?.[1])}`,
      fixed(r.instructionRatioWithGc),
      fixed(r.instructionRatioAll),
      String(r.roundsRun),
      String(r.requests[0]),
      r.target === undefined ? 'context' : r.instructionRatio === null ? `≤ ${r.target.toFixed(2)}` : `${Number(r.instructionRatio) <= r.target ? '≤' : '>'} ${r.target.toFixed(2)}`,
      ...(events ? [r.instructionRatioEvents === undefined ? '' : `${fixed(r.instructionRatioEvents)} (${range(r.instructionSpreadEvents)}, B+ev ${kilo(r.instructionsPerRequestEvents?.[1])})`] : []),
    ]),
  );
  process.stdout.write(
    `\ninstructions mode: every server under valgrind's callgrind, one after the other; ${settings.rounds} round(s)${settings.maxRounds > settings.rounds ? ` or more (up to ${settings.maxRounds}, until each server's cheapest round has a second within ${settings.instructionAgreement * 100}% of it)` : ''}, ` +
      `each counting the instructions of a fixed number of responses (about ${settings.instructionSeconds} s of the slower server under instrumentation, ${settings.instructionRequests.join('–')}) after a warm-up of ${settings.warmup} requests; ${settings.connections} connections. ` +
      'The kernel\'s share (socket writes, file I/O) is not counted: compare with a CPU run (bench/README.md, "Instruction counts").\n',
  );
}

/**
 * The run's tables on stdout.
 * @param {Results} results
 * @param {import('./bench-database.mjs').Startup[]} startup
 */
export function printReport({ rows, scaleRows, workerRows, scopedRows, largeRows }, startup) {
  if (largeRows.length > 0) {
    printLargeReport(largeRows);
    return;
  }
  if (settings.instructions) {
    printInstructionReport(rows);
    return;
  }
  const instructions = rows.some((r) => typeof r.instructionRatio === 'number');
  // Context next to the headline on write rows: Corral ÷ the baseline that also records events.
  const events = rows.some((r) => r.cpuRatioEvents !== undefined);
  const eventsCell = (/** @type {ResultRow} */ r) => (r.cpuRatioEvents === undefined ? '' : `${fixed(r.cpuRatioEvents)} (${range(r.cpuSpreadEvents)}, B+ev ${r.cpuUsEvents === null ? '-' : Math.round(Number(r.cpuUsEvents))} µs)`);
  printRows(
    'Corral against the baseline (CPU ratio = Corral CPU per request ÷ baseline CPU per request, lower is better; median, range and the median\'s 95% interval over the rounds):',
    ['scenario', 'database', 'CPU µs/req C / B', 'CPU ratio', 'range', '95% interval', 'rounds', 'target', ...(events ? ['context: C ÷ B+events'] : []), ...(instructions ? ['instr. ratio'] : []), 'req/s C / B', 'rate ratio', 'range', 'p50 ms C / B', 'p99 ms C / B', 'Corral peak RSS MB'],
    rows.map((r) => [
      r.scenario,
      r.database,
      pair(r.cpuUs),
      fixed(r.cpuRatio),
      range(r.cpuSpread),
      range(r.cpuInterval ?? null),
      `${r.roundsRun}${r.processes > 1 ? ` (${r.processes} pairs)` : ''}`,
      r.target === undefined ? 'context' : r.cpuRatio === null ? `≤ ${r.target.toFixed(2)}` : `${r.cpuRatio <= r.target ? '≤' : '>'} ${r.target.toFixed(2)}`,
      ...(events ? [eventsCell(r)] : []),
      ...(instructions ? [fixed(r.instructionRatio)] : []),
      pair(r.rps),
      fixed(r.rateRatio),
      range(r.rateSpread),
      pair(r.p50Ms),
      pair(r.p99Ms),
      String(r.peakRssMb),
    ]),
  );
  if (!perfSupported) process.stdout.write('(perf stat cannot count instructions on this machine: no instruction column)\n');
  if (events) {
    process.stdout.write(
      '(context: C ÷ B+events = Corral CPU per request ÷ that of a baseline that also records each write\'s change event in its transaction, as Corral must; median, range, and its µs/req; no target)\n',
    );
  }
  printScopedCost(rows, scopedRows);
  if (workerRows.length > 0) {
    printRows(
      'Corral with 2 workers against 1 worker (speed-up = req/s of 2 ÷ req/s of 1; the load generator shares the cores):',
      ['scenario', 'database', 'req/s 2w / 1w', 'speed-up', 'range', 'CPU µs/req 2w / 1w (all processes)', 'p50 ms 2w / 1w'],
      workerRows.map((r) => [r.scenario, r.database, pair(r.rps), fixed(r.rateRatio), range(r.rateSpread), pair(r.cpuUs), pair(r.p50Ms)]),
    );
  }
  if (scaleRows.length > 0) {
    printRows(
      'Scale: the same questions on 10,000 and 1,000,000 posts:',
      ['scenario', 'database', 'posts', 'CPU µs/req C / B', 'CPU ratio', 'range', 'req/s C / B', 'requests/run C / B', 'p50 ms C / B'],
      scaleRows.map((r) => [r.scenario, r.database, String(r.posts), pair(r.cpuUs), fixed(r.cpuRatio), range(r.cpuSpread), pair(r.rps), pair(r.requests), pair(r.p50Ms)]),
    );
  }
  if (startup.length > 0) {
    process.stdout.write('\nStart-up with 50 collections, one process (spawn to first answered list; target ≤ 400 ms) and idle RSS (target ≤ 80 MB):\n');
    for (const s of startup) process.stdout.write(`  ${s.database}: start ${s.startMs} ms (runs ${s.startRunsMs.join(', ')}), idle RSS ${s.idleRssMb} MB\n`);
  }
  process.stdout.write(
    `\n${settings.mode} mode: ${settings.rounds} round(s)${settings.maxRounds > settings.rounds ? ` or more (up to ${settings.maxRounds}, while the median's 95% interval is wider than ±${settings.halfWidth})` : ''}${settings.processes > 1 ? `, rotating through ${settings.processes} processes of each server` : ''} × ${settings.duration} s measured (after ${settings.settle} s of the same load) per scenario and server, ${settings.paired ? 'all servers at once, each on its own copy of the database' : 'one server after the other'}; ` +
      (settings.paired
        ? `writes: ${settings.writeRounds} round(s) of the same length, every copy reset before each; after`
        : `writes: ${settings.writeRounds} round(s) in alternating order, each run measures ${Object.entries(settings.writeRequests).map(([db, n]) => `${n} responses on ${db}`).join(', ')} (after a quarter as many); after`) +
      ` a warm-up of ${settings.warmup} requests each; ` +
      `${settings.connections} connections${settings.pin ? `; servers pinned to CPU ${SERVER_CPU}` : ''}\n`,
  );
}

/**
 * Writes the run's JSON to bench/results/latest.json, and to --json=FILE (bench/compare.mjs
 * reads it).
 * @param {Results} result
 * @param {import('./bench-database.mjs').Startup[]} startup
 * @param {number} seconds the run's length
 */
export function writeReport(result, startup, seconds) {
  mkdirSync(RESULTS, { recursive: true });
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    settings: { ...settings, databases, scenarios: scenarios.map((s) => s.name), poolSize: POOL_SIZE, seed: SEED, perf: perfSupported, callgrind: settings.instructions, scalePosts: opts.scale ? SCALE_POSTS : null },
    ...result,
    startup,
    seconds,
  };
  writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote bench/results/latest.json (${report.seconds} s)`);
  if (opts.json !== undefined) {
    writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`);
    log(`wrote ${opts.json}: compare two runs with node bench/compare.mjs a.json b.json`);
  }
}
