#!/usr/bin/env node
// Compares two bench results (`npm run bench -- --json=a.json`, then `--json=b.json`):
//
//   node bench/compare.mjs a.json b.json [--tolerance=0.05] [--field=cpuRatio]
//   node bench/compare.mjs a-sqlite.json,a-postgres.json b-sqlite.json,b-postgres.json
//
// For every scenario and database in both runs (and the scale rows), prints the CPU ratio of
// each run with its range, the difference b − a, and flags a difference beyond the tolerance.
// Exit code 1 when any row disagrees, 0 when every row agrees (issue 13: two consecutive full
// runs agree within ±0.05 on every scenario). `--field=cpuRatioEvents` compares the context
// column of the write rows instead (Corral ÷ the baseline that also records change events).
// Where a run kept the median's 95% interval (`cpuInterval`, runs since 2026-11-25), the CPU
// ratio columns show it instead of the range, and a row whose interval is wider than ±half the
// tolerance in either run is marked `uncertain`: that run could not pin its median down that
// far, so a difference there says as much about the machine as about the code.
// Runs of `--instructions` are compared on their instruction ratio (`instructionRatio`) unless
// --field says otherwise. A side may be several files, comma-separated (say one run per
// database, run at once: instruction counts do not depend on the machine's load); their rows
// are taken together.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { tolerance: { type: 'string', default: '0.05' }, field: { type: 'string' } },
});
if (positionals.length !== 2) {
  process.stderr.write('usage: node bench/compare.mjs a.json[,a2.json] b.json[,b2.json] [--tolerance=0.05] [--field=cpuRatio|rateRatio|cpuRatioWholeRun|cpuRatioEvents|instructionRatio|instructionRatioWithGc|instructionRatioAll|instructionRatioEvents]\n');
  process.exit(2);
}
const tolerance = Number(opts.tolerance);
/** One side: a report, or several (comma-separated files) with their rows taken together. */
const readSide = (files) => {
  const reports = files.split(',').filter(Boolean).map((file) => JSON.parse(readFileSync(file, 'utf8')));
  return { ...reports[0], rows: reports.flatMap((r) => r.rows), scaleRows: reports.flatMap((r) => r.scaleRows ?? []) };
};
const [a, b] = positionals.map(readSide);
const field = opts.field ?? (a.rows.some((row) => row.metric === 'instructions') ? 'instructionRatio' : 'cpuRatio');
const spreadField = {
  cpuRatio: 'cpuSpread',
  rateRatio: 'rateSpread',
  cpuRatioWholeRun: 'cpuSpreadWholeRun',
  cpuRatioEvents: 'cpuSpreadEvents',
  instructionRatio: 'instructionSpread',
  instructionRatioEvents: 'instructionSpreadEvents',
}[field];

const key = (row) => `${row.scenario}|${row.database}|${row.posts ?? ''}`;
const rowsOf = (report) => [...report.rows, ...(report.scaleRows ?? [])];
const byKey = new Map(rowsOf(b).map((row) => [key(row), row]));
const fixed = (x) => (x === null || x === undefined ? '-' : x.toFixed(2));
const range = (s) => (s === null || s === undefined ? '-' : `${s[0].toFixed(2)}–${s[1].toFixed(2)}`);

const intervalOf = (row) => (field === 'cpuRatio' ? row.cpuInterval : undefined);
const halfWidth = (interval) => (interval === null || interval === undefined ? null : (interval[1] - interval[0]) / 2);
const withIntervals = rowsOf(a).some((row) => intervalOf(row) !== undefined);
const header = ['scenario', 'database', 'A', withIntervals ? '95% interval A' : 'range A', 'B', withIntervals ? '95% interval B' : 'range B', 'B − A', ''];
const body = [];
let disagree = 0;
let compared = 0;
let uncertain = 0;
for (const row of rowsOf(a)) {
  const other = byKey.get(key(row));
  if (other === undefined) continue;
  const x = row[field];
  const y = other[field];
  const diff = x === null || y === null || x === undefined || y === undefined ? null : y - x;
  // Round to the printed precision first, so 0.05 shown is not flagged by a rounding residue.
  const off = diff !== null && Math.round(Math.abs(diff) * 100) / 100 > tolerance;
  const widths = [halfWidth(intervalOf(row)), halfWidth(intervalOf(other))];
  const unsure = widths.some((w) => w !== null && Math.round(w * 1000) / 1000 > tolerance / 2);
  if (diff !== null) compared++;
  if (off) disagree++;
  if (unsure) uncertain++;
  const name = row.posts === undefined || row.posts === null ? row.scenario : `${row.scenario} (${row.posts} posts)`;
  const shown = (r) => range(withIntervals ? (intervalOf(r) ?? null) : (r[spreadField] ?? null));
  const flags = [off ? `> ±${tolerance}` : '', unsure ? 'uncertain' : ''].filter(Boolean).join(', ');
  body.push([name, row.database, fixed(x), shown(row), fixed(y), shown(other), diff === null ? '-' : `${diff >= 0 ? '+' : ''}${diff.toFixed(2)}`, flags]);
}
const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
const line = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
process.stdout.write(`${field}: A = ${positionals[0]} (${a.date}), B = ${positionals[1]} (${b.date})\n`);
process.stdout.write([line(header), `|${widths.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...body.map(line)].join('\n'));
process.stdout.write(`\n${compared - disagree} of ${compared} rows agree within ±${tolerance}${disagree > 0 ? `; ${disagree} do not` : ''}\n`);
if (uncertain > 0) process.stdout.write(`${uncertain} row(s) uncertain: a run's 95% interval of the median is wider than ±${tolerance / 2}\n`);
process.exit(disagree > 0 ? 1 : 0);
