import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
const dt = p.timeDeltas; 
for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (dt[i] ?? 0));
const names = process.argv.slice(3);
const incl = new Map(names.map((n) => [n, 0]));
for (const [id, t] of self) {
  const seen = new Set();
  let cur = id;
  while (cur !== undefined) {
    const fn = byId.get(cur).callFrame.functionName;
    if (incl.has(fn) && !seen.has(fn)) { incl.set(fn, incl.get(fn) + t); seen.add(fn); }
    cur = parent.get(cur);
  }
}
for (const [n, t] of incl) console.log(n.padEnd(24), (t / 1000).toFixed(0), 'ms');
