// @ts-check
// CPU time of a server over a measured window, from Linux /proc, and instruction counts from
// `perf stat` where the kernel allows them. Both count only the server's own processes (a
// cluster primary and its workers), so the load generator and other programs on the machine
// do not enter the figure, unlike requests per second.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of utime/stime in /proc/<pid>/stat (100 on every usual Linux). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * `[ppid, utime + stime in ticks]` of a process, or null when it is gone (or not Linux).
 * @param {number | string} pid
 * @returns {[number, number] | null}
 */
function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return [Number(fields[1]), Number(fields[11]) + Number(fields[12])];
  } catch {
    return null;
  }
}

/**
 * The process and its descendants (a cluster primary and its workers).
 * @param {number} root
 * @returns {number[]}
 */
export function processTree(root) {
  const parents = new Map();
  let entries = [];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [root];
  }
  for (const name of entries) {
    const s = stat(name);
    if (s !== null) parents.set(Number(name), s[0]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === tree[i]) tree.push(pid);
  }
  return tree;
}

/** Whether /proc/<pid>/stat can be read here (Linux). */
export const cpuSupported = stat(process.pid) !== null;

/**
 * CPU seconds (user + system) the given processes used between start and stop(), in clock ticks (10 ms).
 * @param {number[]} pids
 */
export function cpuWindow(pids) {
  const ticks = () => pids.reduce((sum, pid) => sum + (stat(pid)?.[1] ?? 0), 0);
  const start = ticks();
  return { stop: () => (ticks() - start) / CLOCK_TICKS };
}

/**
 * Nanoseconds thread `tid` of `pid` has run on a CPU (the scheduler's own sum), or null.
 * @param {number} pid
 * @param {number | string} tid
 * @returns {number | null}
 */
function threadNs(pid, tid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return null;
  }
}

/** Whether the scheduler's per-thread run time can be read here (`/proc/<pid>/task/<tid>/schedstat`). */
export const schedstatSupported = threadNs(process.pid, process.pid) !== null;

/**
 * A precise CPU clock of the given processes: `read()` returns the nanoseconds all their
 * threads have run since the clock was made. `/proc/<pid>/stat` counts in clock ticks of 10 ms,
 * which is ±6% on a 2 s window of a server that waits on PostgreSQL most of the time (170 ms of
 * CPU); the scheduler's run time of each thread (`schedstat`) is in nanoseconds. A thread that
 * ends between two reads loses its share (Node's threads live as long as the process); one that
 * starts counts from zero. Falls back to the tick count where schedstat is missing.
 * @param {number[]} pids
 * @returns {{ read: () => number, precise: boolean }}
 */
export function cpuClock(pids) {
  if (!schedstatSupported) {
    const window = cpuWindow(pids);
    return { read: () => window.stop() * 1e9, precise: false };
  }
  const sample = () => {
    const times = new Map();
    for (const pid of pids) {
      let tids = [];
      try {
        tids = readdirSync(`/proc/${pid}/task`);
      } catch {
        continue;
      }
      for (const tid of tids) {
        const ns = threadNs(pid, tid);
        if (ns !== null) times.set(`${pid}/${tid}`, ns);
      }
    }
    return times;
  };
  const start = sample();
  return {
    precise: true,
    read: () => {
      let total = 0;
      for (const [key, ns] of sample()) total += ns - (start.get(key) ?? 0);
      return total;
    },
  };
}

/**
 * Parses `perf stat -x,` output: the instruction count, or null when not supported/counted.
 * @param {string} text
 */
function parseInstructions(text) {
  for (const line of text.split('\n')) {
    const fields = line.split(',');
    if (fields[2]?.startsWith('instructions')) return /^\d+$/.test(fields[0]) ? Number(fields[0]) : null;
  }
  return null;
}

/** Whether `perf stat -e instructions` counts here (virtual machines and containers often cannot). */
export const perfSupported = (() => {
  try {
    const result = spawnSync('perf', ['stat', '-x,', '-e', 'instructions', 'true'], { encoding: 'utf8', timeout: 10_000 });
    return result.status === 0 && parseInstructions(result.stderr ?? '') !== null;
  } catch {
    return false;
  }
})();

/**
 * Counts the instructions of the given processes until stop(), which resolves the count (or null).
 * @param {number[]} pids
 * @returns {{ stop: () => Promise<number | null> }}
 */
export function perfWindow(pids) {
  if (!perfSupported) return { stop: async () => null };
  const child = spawn('perf', ['stat', '-x,', '-e', 'instructions', '-p', pids.join(',')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  child.stderr.on('data', (chunk) => (text += chunk));
  const exited = new Promise((resolve) => child.on('close', resolve));
  return {
    stop: async () => {
      child.kill('SIGINT');
      await exited;
      return parseInstructions(text);
    },
  };
}
