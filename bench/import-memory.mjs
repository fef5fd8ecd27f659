#!/usr/bin/env node
// An import's memory: writes a <rows>-row CSV or XLSX file (n, label, at), then uploads it to
// `bulk:import` over a socket (multipart, streamed from disk) while sampling the process's RSS.
// Prints the RSS before, its peak and the growth. Run after `npm run build`:
//   node --expose-gc bench/import-memory.mjs [rows] [csv|xlsx]
import { request } from 'node:http';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { buildApp } from '../dist/app.js';
import { DEFAULT_CONFIG } from '../dist/config/config.js';
const rows = Number(process.argv[2] ?? 100000);
const format = process.argv[3] ?? 'csv';
const dir = mkdtempSync(join(tmpdir(), 'corral-import-memory-'));
const file = join(dir, `bulk.${format}`);
const at = '2026-03-01T09:30:00.000Z';
if (format === 'csv') {
  const out = createWriteStream(file);
  out.write('n,label,at\r\n');
  for (let n = 0; n < rows; n++) if (!out.write(`${n},row number ${n} with some text,${at}\r\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
} else {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet('bulk');
  sheet.addRow(['n', 'label', 'at']).commit();
  for (let n = 0; n < rows; n++) sheet.addRow([n, `row number ${n} with some text`, at]).commit();
  sheet.commit();
  await workbook.commit();
}
const config = { ...DEFAULT_CONFIG, apiPrefix: '/api', shutdownTimeoutMs: 5000, schemaPollMs: 200, corsOrigins: [], allowedHosts: [], trustedProxies: [], workers: 1, port: 0, host: '127.0.0.1', database: { dialect: 'sqlite', file: join(dir, 'db.sqlite') }, logLevel: 'silent', auth: { enabled: false }, importMaxBytes: 1024 ** 3, importMaxRows: 10_000_000 };
const built = await buildApp(config);
const created = await built.app.inject({ method: 'POST', url: '/api/collections:create', payload: { name: 'bulk', fields: [{ name: 'n', type: 'integer' }, { name: 'label', type: 'string' }, { name: 'at', type: 'date' }] } });
if (created.statusCode !== 201) throw new Error(created.body);
await built.app.listen({ port: 0, host: '127.0.0.1' });
const { port } = built.app.server.address();
global.gc?.();
const before = process.memoryUsage().rss;
let peak = before;
const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 20);
const started = Date.now();
const boundary = '----corral-bench';
const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bulk.${format}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
const answer = await new Promise((resolve, reject) => {
  const req = request({ host: '127.0.0.1', port, path: '/api/bulk:import', method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + statSync(file).size + tail.length } }, (res) => {
    let text = '';
    res.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => resolve({ status: res.statusCode, text })).on('error', reject);
  });
  req.on('error', reject);
  req.write(head);
  const input = createReadStream(file);
  input.pipe(req, { end: false });
  input.on('end', () => req.end(tail));
});
clearInterval(timer);
if (answer.status !== 200) throw new Error(answer.text.slice(0, 500));
console.log(JSON.stringify({ rows, format, fileMB: +(statSync(file).size / 2 ** 20).toFixed(1), ms: Date.now() - started, rssBeforeMB: +(before / 2 ** 20).toFixed(1), rssPeakMB: +(peak / 2 ** 20).toFixed(1), growthMB: +((peak - before) / 2 ** 20).toFixed(1), answer: JSON.parse(answer.text).data.created }));
await built.close();
rmSync(dir, { recursive: true, force: true });
