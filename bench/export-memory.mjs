#!/usr/bin/env node
// An export's memory: seeds <rows> rows into a SQLite `bulk` collection (inserted directly in SQL),
// then downloads `bulk:export?format=<csv|xlsx>` over a socket while sampling the process's RSS.
// Prints the RSS before, its peak and the growth. Run after `npm run build`:
//   node --expose-gc bench/export-memory.mjs [rows] [csv|xlsx]
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { buildApp } from '../dist/app.js';
import { DEFAULT_CONFIG } from '../dist/config/config.js';
const rows = Number(process.argv[2] ?? 200000);
const format = process.argv[3] ?? 'csv';
const dir = mkdtempSync(join(tmpdir(), 'corral-export-memory-'));
const file = join(dir, 'db.sqlite');
const config = { ...DEFAULT_CONFIG, bodyLimit: DEFAULT_CONFIG.bodyLimit, apiPrefix: '/api', shutdownTimeoutMs: 5000, schemaPollMs: 200, corsOrigins: [], allowedHosts: [], trustedProxies: [], workers: 1, port: 0, host: '127.0.0.1', database: { dialect: 'sqlite', file }, logLevel: 'silent', auth: { enabled: false } };
const built = await buildApp(config);
const created = await built.app.inject({ method: 'POST', url: '/api/collections:create', payload: { name: 'bulk', fields: [{ name: 'n', type: 'integer' }, { name: 'label', type: 'string' }, { name: 'at', type: 'date' }] } });
if (created.statusCode !== 201) throw new Error(created.body);
const db = new Database(file);
const insert = db.prepare('INSERT INTO bulk (n, label, at, "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?)');
const now = new Date().toISOString();
db.transaction(() => { for (let i = 0; i < rows; i++) insert.run(i, `row number ${i} with some text`, now, now, now); })();
db.close();
await built.app.listen({ port: 0, host: '127.0.0.1' });
const { port } = built.app.server.address();
global.gc?.();
const before = process.memoryUsage().rss;
let peak = before;
let peakExt = 0, peakHeap = 0;
const timer = setInterval(() => { const m = process.memoryUsage(); peak = Math.max(peak, m.rss); peakExt = Math.max(peakExt, m.external + m.arrayBuffers); peakHeap = Math.max(peakHeap, m.heapUsed); }, 20);
const started = Date.now();
const bytes = await new Promise((resolve, reject) => {
  request({ host: '127.0.0.1', port, path: `/api/bulk:export?format=${format}` }, (res) => {
    let n = 0;
    res.on('data', (chunk) => { n += chunk.length; });
    res.on('end', () => resolve(n));
    res.on('error', reject);
  }).on('error', reject).end();
});
clearInterval(timer);
console.log(JSON.stringify({ rows, format, bytes, ms: Date.now() - started, rssBeforeMB: +(before / 2 ** 20).toFixed(1), rssPeakMB: +(peak / 2 ** 20).toFixed(1), growthMB: +((peak - before) / 2 ** 20).toFixed(1), peakHeapMB: +(peakHeap / 2 ** 20).toFixed(1), peakExternalMB: +(peakExt / 2 ** 20).toFixed(1) }));
await built.close();
rmSync(dir, { recursive: true, force: true });
