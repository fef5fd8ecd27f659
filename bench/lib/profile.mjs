// @ts-check
// Reads a V8 .cpuprofile (node --cpu-prof) and says where the time went: the functions with the
// most self time, the same grouped by package or Corral module, and the Corral functions with
// the most inclusive time. Idle time is left out of the percentages.
import { readFileSync } from 'node:fs';

/** @typedef {{ functionName: string, url: string, lineNumber: number }} CallFrame */
/** @typedef {{ id: number, callFrame: CallFrame, children?: number[] }} ProfileNode */
/** @typedef {{ nodes: ProfileNode[], samples: number[], startTime: number, endTime: number }} CpuProfile */

/** Where a frame's code lives: a package, a Corral module, node's internals. @param {CallFrame} frame */
function where(frame) {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return url;
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  const dist = /\/dist\/(.+)$/.exec(url);
  if (dist) return `corral ${dist[1]}`;
  const bench = /\/bench\/(.+)$/.exec(url);
  if (bench) return `bench ${bench[1]}`;
  return url.replace(/^file:\/\//, '');
}

const keyOf = (/** @type {CallFrame} */ frame) => `${frame.functionName || '(anonymous)'}  ${where(frame)}:${frame.lineNumber + 1}`;

/** @param {string} file the .cpuprofile */
export function analyzeProfile(file) {
  /** @type {CpuProfile} */
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  /** @type {Map<number, number>} */
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  const perSample = totalMs / Math.max(1, profile.samples.length);
  /** @type {Map<string, number>} */
  const self = new Map();
  /** @type {Map<string, number>} */
  const module = new Map();
  /** @type {Map<string, number>} */
  const inclusive = new Map();
  let busy = 0;
  /** @param {Map<string, number>} map @param {string} key @param {number} n */
  const add = (map, key, n) => map.set(key, (map.get(key) ?? 0) + n);
  for (const id of profile.samples) {
    const node = /** @type {ProfileNode} */ (nodes.get(id));
    if (node.callFrame.functionName === '(idle)') continue;
    busy++;
    add(self, keyOf(node.callFrame), 1);
    add(module, where(node.callFrame).replace(/^node:.*/, 'node: (internals)'), 1);
    const seen = new Set();
    for (let at = /** @type {number | undefined} */ (id); at !== undefined; at = parent.get(at)) {
      const frame = /** @type {ProfileNode} */ (nodes.get(at)).callFrame;
      if (!frame.url.includes('/dist/') && !frame.url.includes('/bench/')) continue;
      const key = keyOf(frame);
      if (!seen.has(key)) {
        seen.add(key);
        add(inclusive, key, 1);
      }
    }
  }
  /** @param {Map<string, number>} map @param {number} n */
  const top = (map, n) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, count]) => ({ name, ms: Math.round(count * perSample), percent: Math.round((count / busy) * 1000) / 10 }));
  return { totalMs: Math.round(totalMs), busyMs: Math.round(busy * perSample), top, self, module, inclusive };
}

/**
 * The profile's summary as text: the top `n` functions by self time, by module, and Corral's by inclusive time.
 * @param {string} file
 * @param {number} [n]
 * @param {number} [requests] the requests served, for the CPU per request
 */
export function summarizeProfile(file, n = 25, requests) {
  const { totalMs, busyMs, top, self, module, inclusive } = analyzeProfile(file);
  const rows = (/** @type {{ name: string, ms: number, percent: number }[]} */ list) => list.map((r) => `  ${String(r.percent).padStart(5)}%  ${String(r.ms).padStart(6)} ms  ${r.name}`).join('\n');
  const perRequest = requests ? `, about ${Math.round((busyMs * 1000) / requests)} µs of CPU per request` : '';
  return [
    `profile ${totalMs} ms, busy (not idle) ${busyMs} ms${perRequest}; percentages of busy time`,
    `self time by function:`,
    rows(top(self, n)),
    `self time by package / Corral module:`,
    rows(top(module, n)),
    `inclusive time of the server's own functions (Corral's dist/, or the baseline):`,
    rows(top(inclusive, n)),
    '',
  ].join('\n');
}

// node bench/lib/profile.mjs <file.cpuprofile> [n]
if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(summarizeProfile(String(process.argv[2]), Number(process.argv[3] ?? 25)));
}
