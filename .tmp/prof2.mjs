import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const target = process.argv[3];
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const leaf = new Map();
for (let i = 0; i < p.samples.length; i++) {
  let cur = p.samples[i]; let under = false; const chain = [];
  while (cur !== undefined) { const fn = byId.get(cur).callFrame.functionName; chain.push(fn); if (fn === target) { under = true; break; } cur = parent.get(cur); }
  if (!under) continue;
  const key = chain.slice(0, 3).join(' < ');
  leaf.set(key, (leaf.get(key) ?? 0) + (p.timeDeltas[i] ?? 0));
}
for (const [k, t] of [...leaf].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log((t / 1000).toFixed(1).padStart(7), k);
