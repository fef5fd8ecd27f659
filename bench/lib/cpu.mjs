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

/** `[ppid, utime + stime in ticks]` of a process, or null when it is gone (or not Linux). */
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

/** The process and its descendants (a cluster primary and its workers). */
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

/** CPU seconds (user + system) the given processes used between start and stop(). */
export function cpuWindow(pids) {
  const ticks = () => pids.reduce((sum, pid) => sum + (stat(pid)?.[1] ?? 0), 0);
  const start = ticks();
  return { stop: () => (ticks() - start) / CLOCK_TICKS };
}

/** Parses `perf stat -x,` output: the instruction count, or null when not supported/counted. */
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

/** Counts the instructions of the given processes until stop(), which resolves the count (or null). */
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
