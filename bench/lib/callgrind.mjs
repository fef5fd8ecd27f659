// @ts-check
// Instruction counts of a server under valgrind's callgrind (`--instructions`): the count of
// instructions a process executes for the same requests barely depends on what else the
// machine does (no cache, frequency or neighbour enters it), so two runs agree where CPU
// seconds on a shared virtual machine do not, and where `perf stat` has no counters.
//
// The server runs as `valgrind --tool=callgrind --instr-atstart=no node …`: uninstrumented
// (about 5–10× slower than plain node) for start-up and warm-up, and instrumented (about 50×)
// only over a measured window, which `callgrind_control` opens (`-i on`, `-z`) and closes
// (`-d`, `-i off`). The dump's `totals:` line is the instructions executed in the window by all
// the process's threads, in user space: the kernel's share (socket writes, file I/O) is not in
// it, unlike CPU seconds. See "Instruction counts" in bench/README.md.
import { execFile, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * How much slower a server runs instrumented than under valgrind uninstrumented (its warm-up):
 * about 40 for Corral and the baseline here (SQLite get: 1,600 against 40 requests per second).
 * The bench sizes a round's window with it; the count itself does not depend on it.
 */
export const CALLGRIND_SLOWDOWN = 40;

/** Whether valgrind with callgrind and callgrind_control are installed here. */
export const callgrindSupported = (() => {
  try {
    return spawnSync('valgrind', ['--version'], { timeout: 10_000 }).status === 0 && spawnSync('callgrind_control', ['-h'], { timeout: 10_000 }).error === undefined;
  } catch {
    return false;
  }
})();

/**
 * The command prefix that runs a server under callgrind, dumping into `dir`, uninstrumented at first.
 * @param {string} dir
 * @returns {string[]}
 */
export function callgrindPrefix(dir) {
  return ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(dir, 'callgrind.%p.out')}`, '--log-file=/dev/null'];
}

/**
 * `callgrind_control <flags> <pid>`; fails with its output when the process did not take it.
 * `host`: the server's HOST variable. valgrind names the pipes it listens on after the
 * environment's USER and HOST, so callgrind_control must see the HOST the server saw (the
 * servers of the bench get HOST=127.0.0.1, the address they listen on).
 * @param {number} pid
 * @param {string} host
 * @param {...string} flags
 */
async function control(pid, host, ...flags) {
  try {
    const env = { ...process.env };
    if (host === undefined) delete env.HOST;
    else env.HOST = host;
    const { stdout, stderr } = await run('callgrind_control', [...flags, String(pid)], { timeout: 60_000, env });
    if (/error opening|syscall failed|no process/i.test(stderr)) throw Object.assign(new Error(stderr), { stderr });
    return `${stdout}${stderr}`.trim();
  } catch (error) {
    throw new Error(`callgrind_control ${flags.join(' ')} ${pid} failed: ${/** @type {{ stderr?: string, message: string }} */ (error).stderr || /** @type {Error} */ (error).message}`);
  }
}

/**
 * The `totals:` (or `summary:`) count of a callgrind dump file.
 * @param {string} text
 * @returns {number | null}
 */
export function parseTotals(text) {
  const match = /^(?:totals|summary):\s+(\d+)/m.exec(text);
  return match === null ? null : Number(match[1]);
}

/**
 * Where a window's instructions went that are not the requests' own work at steady state,
 * counted inclusively (callee trees) at these entry points of V8, which do not call each other:
 * - `compile`: V8 compiling JavaScript (TurboFan and Maglev through Runtime_CompileOptimized,
 *   bytecode through Runtime_CompileLazy, Sparkplug batches enqueued by the budget interrupt,
 *   installed baseline code, deoptimisation). A one-time cost of each function: a server
 *   answering millions of requests pays it once, a window of a few hundred pays it whenever
 *   V8 happens to tier a function up (or down and up again) in it. One TurboFan compile was 28
 *   of a window's 53 million instructions (PostgreSQL get, 60 requests).
 * - `gc`: the garbage collector on the main thread (scavenges and full collections through
 *   Heap::CollectGarbage, incremental marking steps, sweeping waited for). Each server pays it
 *   in proportion to what it allocates, but in lumps (a scavenge about 2.5 million
 *   instructions, a full marking up to 50 million) that a window holds 0, 1 or 2 of.
 * Names with a recursion mark (`'2`) are left out: their costs are already inside the first.
 * (Not the tasks that call these, IncrementalMarkingJob's and ScavengeJob's: they would count
 * the same instructions twice.)
 */
const COST_ROOTS = {
  compile: [/^v8::internal::Runtime_CompileOptimized\(/, /^v8::internal::Runtime_CompileLazy\(/, /^v8::internal::baseline::BaselineBatchCompiler::EnqueueFunction\(/, /^v8::internal::Runtime_InstallBaselineCode\(/, /^v8::internal::Runtime_NotifyDeoptimized\(/, /^v8::internal::Runtime_CompileBaseline\(/],
  gc: [/^v8::internal::Heap::CollectGarbage\(/, /^v8::internal::IncrementalMarking::Step\(/, /^v8::internal::Heap::StartIncrementalMarking\(/, /^v8::internal::Heap::EnsureSweepingCompleted\(/],
};

/**
 * The compile and gc costs (see COST_ROOTS) of a callgrind dump, from `callgrind_annotate
 * --inclusive=yes` output `text`: { compile, gc } in instructions.
 * @param {string} text
 */
export function parseCostRoots(text) {
  /** @type {Record<string, number>} */
  const costs = { compile: 0, gc: 0 };
  for (const line of text.split('\n')) {
    const match = /^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(?:[^:]*:)?(\S.*)$/.exec(line);
    if (match === null || match[2].includes("'")) continue;
    for (const [kind, roots] of Object.entries(COST_ROOTS)) {
      if (roots.some((root) => root.test(match[2]))) costs[kind] += Number(match[1].replaceAll(',', ''));
    }
  }
  return costs;
}

/**
 * The inclusive costs of a dump file (parseCostRoots); fails where callgrind_annotate does.
 * @param {string} file
 */
async function costRoots(file) {
  const { stdout } = await run('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { timeout: 120_000, maxBuffer: 256 * 1024 * 1024 }).catch((error) => {
    throw new Error(`callgrind: callgrind_annotate could not read ${file}: ${error.message}`);
  });
  return parseCostRoots(stdout);
}

/**
 * Opens a measured window on process `pid` (running under callgrindPrefix(dir), with `host` its
 * HOST variable): instruments it and zeroes its counters. `stop()` dumps the window and turns
 * instrumentation off again, and resolves `{ total, compile, gc }`: the instructions executed
 * in between, and how many of them V8 spent compiling and collecting (see COST_ROOTS).
 * @param {number} pid
 * @param {string} dir
 * @param {string} host
 */
export async function instructionWindow(pid, dir, host) {
  await control(pid, host, '-i', 'on');
  await control(pid, host, '-z');
  return {
    stop: async () => {
      const before = new Set(dumps(pid, dir));
      const said = await control(pid, host, '-d');
      await control(pid, host, '-i', 'off');
      // The dump is written by the time callgrind_control returns; allow the file system a moment.
      /** @type {string[]} */
      let fresh = [];
      for (let tries = 0; tries < 50 && fresh.length === 0; tries++) {
        if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        fresh = dumps(pid, dir).filter((file) => !before.has(file));
      }
      if (fresh.length !== 1) throw new Error(`callgrind: expected one new dump of process ${pid} in ${dir}, found ${fresh.length} (files: ${readdirSync(dir).join(', ')}; callgrind_control said: ${said})`);
      const file = join(dir, fresh[0]);
      const total = parseTotals(readFileSync(file, 'utf8'));
      if (total === null) throw new Error(`callgrind: no totals in ${file}`);
      const costs = await costRoots(file);
      // BENCH_CALLGRIND_KEEP=<dir>: keep every window's dump there (callgrind_annotate reads them).
      if (process.env.BENCH_CALLGRIND_KEEP) renameSync(file, join(process.env.BENCH_CALLGRIND_KEEP, `${fresh[0]}.${total}`));
      else rmSync(file, { force: true });
      // Never more than the window (the roots do not nest, but a guard costs nothing).
      const compile = Math.min(costs.compile, total);
      return { total, compile, gc: Math.min(costs.gc, total - compile) };
    },
  };
}

/**
 * The dump files of process `pid` in `dir` (`callgrind.<pid>.out.<n>`).
 * @param {number} pid
 * @param {string} dir
 */
function dumps(pid, dir) {
  const prefix = `callgrind.${pid}.out.`;
  return readdirSync(dir).filter((name) => name.startsWith(prefix));
}
