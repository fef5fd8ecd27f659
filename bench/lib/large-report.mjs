// @ts-check
// `--large`'s table: every question on every database, Corral / baseline side by side, the
// status of each answer shown, so a refused question (400) is plain.
import { settings } from './config.mjs';
import { printRows } from './table.mjs';

/** Milliseconds from µs: two decimals under 10 ms, one under 100, none above. @param {number | null} us */
export function ms(us) {
  if (us === null) return '-';
  const v = us / 1000;
  return v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0);
}

/** A `Corral / baseline` cell; the baseline's half left out when it lacks the question. @param {(string | number | null)[]} values @param {boolean} both */
const cell = ([a, b], both) => (both ? `${a ?? '-'} / ${b ?? '-'}` : `${a ?? '-'}`);

/** @param {import('./large.mjs').LargeRow[]} rows */
export function printLargeReport(rows) {
  printRows(
    'Large tables (issue 28): each question at 2 connections, Corral / baseline where the baseline has it (one server after the other); CPU per request of the Node server and, on PostgreSQL, of the database\'s backends; medians over the rounds:',
    ['question', 'database', 'posts', 'status C / B', 'answer (Corral)', 'CPU ms/req C / B', 'database CPU ms/req C / B', 'p50 ms C / B', 'p99 ms C / B', 'req/s C / B', 'responses C / B'],
    rows.map((r) => {
      const both = r.status[1] !== null;
      const pg = r.database === 'postgres';
      return [
        r.question,
        r.database,
        String(r.posts),
        cell(r.status, both),
        String(r.answer[0]),
        cell(r.cpuUs.map(ms), both),
        pg ? cell(r.dbCpuUs.map(ms), both) : '(in the server)',
        cell(r.p50Ms, both),
        cell(r.p99Ms, both),
        cell(r.rps.map((v) => (v === null ? null : v < 10 ? v.toFixed(1) : String(Math.round(v)))), both),
        cell(r.requests, both),
      ];
    }),
  );
  const large = settings.large;
  if (large === undefined) return;
  const seeded = [...new Map(rows.map((r) => [r.database, r.seedMs])).entries()].map(([db, seedMs]) => `${db} ${(seedMs / 1000).toFixed(1)} s`).join(', ');
  process.stdout.write(
    `\n--large: ${large.posts} posts inserted in SQL (${seeded}, search tokens and the (status, views) index included); ${large.rounds} round(s) × ${large.seconds} s measured after ${large.settle} s per question and server, after a warm-up of ${large.warmup} requests (at most ${large.warmupSeconds} s); a slow question (under 20 responses in that window at its warm-up rate) over a counted window instead, from a response to the 6th or more after it. ` +
      'On fewer posts the deep page and the cursor row are in proportion (row 800,000 and 199,980 of 1,000,000). A question answered with a non-2xx status is not measured (its status and error code are shown). The `stall` rows: latency of a light request while 2 connections run a heavy `$includes` filter on the same server (CPU not per request there). PostgreSQL runs without parallel workers (each statement\'s CPU in its backend).\n',
  );
}
