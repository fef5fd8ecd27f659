#!/usr/bin/env node
// @ts-check
// Does an import hold its worker, and does a hostile spreadsheet grow it? (issue 37, findings 4
// and 9). Starts Corral (`bin/corral.js start`, one worker, SQLite, auth off) and:
//   1. posts XLSX files a few hundred KB long that would inflate to a 200 MB cell (an inline
//      string, then a shared string), a too-long cell of incompressible text and a zip bomb
//      whose directory lies; prints each answer and the server's peak RSS (VmHWM of
//      /proc/<pid>/status, reset through clear_refs before each file when the kernel lets us);
//   2. imports a <rows>-row CSV (default 60,000) over a socket while polling /healthz on the
//      same worker every 10 ms, and prints the /healthz latencies (p50, p99, max).
// Run after `npm run build`:  node bench/import-health.mjs [rows]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, createReadStream } from 'node:fs';
import { once } from 'node:events';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, createDeflateRaw } from 'node:zlib';
import { freePort } from './lib/proc.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const rows = Number(process.argv[2] ?? 60_000);
const dir = mkdtempSync(join(tmpdir(), 'corral-import-health-'));
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

// ---- the server -------------------------------------------------------------------------
const port = await freePort();
const server = spawn(process.execPath, [join(ROOT, 'bin', 'corral.js'), 'start'], {
  cwd: dir,
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
    CORRAL_WORKERS: '1',
    CORRAL_AUTH: 'off',
    LOG_LEVEL: 'warn',
    CORRAL_IMPORT_MAX_BYTES: '1024mb',
    CORRAL_IMPORT_MAX_ROWS: '10000000',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const stop = () => {
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
};
process.on('exit', stop);

/** @param {string} method @param {string} path @param {{ body?: Buffer | string, headers?: Record<string, string | number>, file?: { head: Buffer, path: string, tail: Buffer } }} [options] */
function call(method, path, { body, headers = {}, file } = {}) {
  return new Promise((resolve, reject) => {
    const length = file === undefined ? (body === undefined ? 0 : Buffer.byteLength(body)) : file.head.length + statSync(file.path).size + file.tail.length;
    const req = http.request({ host: '127.0.0.1', port, path, method, agent, headers: { ...headers, 'content-length': length } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => resolve({ status: res.statusCode ?? 0, text })).on('error', reject);
    });
    req.on('error', reject);
    if (file === undefined) req.end(body);
    else {
      req.write(file.head);
      const input = createReadStream(file.path);
      input.pipe(req, { end: false });
      input.on('end', () => req.end(file.tail));
    }
  });
}

for (let tries = 0; ; tries++) {
  const ready = await call('GET', '/readyz').catch(() => undefined);
  if (ready !== undefined && /** @type {{status: number}} */ (ready).status === 200) break;
  if (tries > 600 || server.exitCode !== null) throw new Error('Corral did not start');
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const created = /** @type {{status: number, text: string}} */ (await call('POST', '/api/collections:create', {
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'bulk', fields: [{ name: 'n', type: 'integer' }, { name: 'label', type: 'text' }, { name: 'at', type: 'date' }] }),
}));
if (created.status !== 201) throw new Error(created.text);

const status = () => readFileSync(`/proc/${server.pid}/status`, 'utf8');
const kb = (/** @type {string} */ field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status())?.[1] ?? NaN);
const mb = (/** @type {number} */ kib) => +(kib / 1024).toFixed(1);
/** Resets the peak RSS to the current RSS (Linux ≥ 4.0, own processes); false when refused. */
function resetPeak() {
  try {
    writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Posts `path` as the `file` part of `bulk:import`, streamed from disk. */
async function postImport(/** @type {string} */ path, /** @type {string} */ filename) {
  const boundary = '----corral-import-health';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return /** @type {Promise<{status: number, text: string}>} */ (call('POST', '/api/bulk:import', { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, file: { head, path, tail } }));
}

// ---- XLSX files written by hand: a zip of the few parts a reader needs ---------------------
/**
 * One zip entry: `parts` are its uncompressed bytes (an iterable, so a 200 MB part is never
 * whole here); deflated as a stream; `declared` overrides the size the directory states.
 * @typedef {{ name: string, parts: Iterable<Buffer>, declared?: number }} EntrySpec
 */
/** @param {string} path @param {EntrySpec[]} entries */
async function writeZip(path, entries) {
  const out = createWriteStream(path);
  /** @type {Buffer[]} */
  const directory = [];
  let offset = 0;
  const write = async (/** @type {Buffer} */ bytes) => {
    offset += bytes.length;
    if (!out.write(bytes)) await once(out, 'drain');
  };
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    let crc = 0;
    let size = 0;
    /** @type {Buffer[]} */
    const compressed = [];
    const deflate = createDeflateRaw({ level: 9 });
    deflate.on('data', (chunk) => compressed.push(chunk));
    for (const part of entry.parts) {
      crc = crc32(part, crc);
      size += part.length;
      if (!deflate.write(part)) await once(deflate, 'drain');
    }
    deflate.end();
    await once(deflate, 'end');
    const data = Buffer.concat(compressed);
    const declared = entry.declared ?? size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc >>> 0, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    directory.push(central, name);
    await write(local);
    await write(name);
    await write(data);
  }
  const start = offset;
  const central = Buffer.concat(directory);
  await write(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(central.length, 12);
  end.writeUInt32LE(start, 16);
  await write(end);
  out.end();
  await once(out, 'finish');
}

const text = (/** @type {string} */ value) => [Buffer.from(value)];
/** `total` bytes of `fill`, a MiB at a time. @param {number} total @param {Buffer} fill */
function* repeated(total, fill) {
  const chunk = Buffer.alloc(1024 * 1024, fill);
  for (let left = total; left > 0; left -= chunk.length) yield left >= chunk.length ? chunk : chunk.subarray(0, left);
}
/** Text that deflates hardly at all (base64 of random bytes): a long cell that is no zip bomb. @param {number} total */
function* noisy(total) {
  for (let left = total; left > 0; left -= 48 * 1024) yield Buffer.from(randomBytes(36 * 1024).toString('base64').slice(0, Math.min(left, 48 * 1024)));
}
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
/** The parts around a worksheet (and shared strings when given). @param {Iterable<Buffer>} sheet @param {Iterable<Buffer>} [strings] */
function workbook(sheet, strings) {
  return [
    { name: '[Content_Types].xml', parts: text(`<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`) },
    { name: 'xl/workbook.xml', parts: text(`<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="bulk" sheetId="1" r:id="rId1"/></sheets></workbook>`) },
    { name: 'xl/_rels/workbook.xml.rels', parts: text(`<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>${strings === undefined ? '' : `<Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>`}</Relationships>`) },
    ...(strings === undefined ? [] : [{ name: 'xl/sharedStrings.xml', parts: strings }]),
    { name: 'xl/worksheets/sheet1.xml', parts: sheet },
  ];
}
const HEAD_ROW = '<row r="1"><c r="A1" t="inlineStr"><is><t>label</t></is></c></row>';
const sheetWith = (/** @type {string} */ cellOpen, /** @type {Iterable<Buffer>} */ body, /** @type {string} */ cellClose) =>
  [Buffer.from(`<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData>${HEAD_ROW}<row r="2">${cellOpen}`), ...body, Buffer.from(`${cellClose}</row></sheetData></worksheet>`)];
const CELL = 200 * 1024 * 1024;
const cases = [
  { name: '200 MB inline-string cell', entries: workbook(sheetWith('<c r="A2" t="inlineStr"><is><t>', repeated(CELL, 0x61), '</t></is></c>')) },
  {
    name: '200 MB shared string',
    entries: workbook(sheetWith('<c r="A2" t="s"><v>', text('0'), '</v></c>'), [Buffer.from(`<?xml version="1.0"?><sst xmlns="${MAIN}" count="1" uniqueCount="1"><si><t>`), ...repeated(CELL, 0x62), Buffer.from('</t></si></sst>')]),
  },
  { name: '200 MB cell, directory claims 8 MiB', entries: workbook(sheetWith('<c r="A2" t="inlineStr"><is><t>', repeated(CELL, 0x63), '</t></is></c>')).map((entry) => (entry.name.includes('sheet1') ? { ...entry, declared: 8 * 1024 * 1024 } : entry)) },
  { name: '1.5 MiB cell of noisy text', entries: workbook(sheetWith('<c r="A2" t="inlineStr"><is><t>', noisy(1.5 * 1024 * 1024), '</t></is></c>')) },
];

const baseline = kb('VmRSS');
console.log(`Corral pid ${server.pid}: RSS after start ${mb(baseline)} MB`);
const spreadsheets = [];
for (const spec of cases) {
  const file = join(dir, 'bomb.xlsx');
  await writeZip(file, spec.entries);
  const reset = resetPeak();
  const before = kb('VmRSS');
  const started = performance.now();
  const answer = await postImport(file, 'bomb.xlsx');
  const ms = performance.now() - started;
  let code = '';
  try {
    code = JSON.parse(answer.text).errors?.[0]?.code ?? '';
  } catch {}
  const row = { file: spec.name, sizeKB: +(statSync(file).size / 1024).toFixed(0), status: answer.status, code, message: answer.text.slice(0, 160), ms: Math.round(ms), rssBeforeMB: mb(before), peakRssMB: mb(kb('VmHWM')), peakReset: reset };
  spreadsheets.push(row);
  console.log(JSON.stringify(row));
}

// ---- a large CSV while /healthz is polled ----------------------------------------------------
const csv = join(dir, 'bulk.csv');
{
  const out = createWriteStream(csv);
  out.write('n,label,at\r\n');
  for (let n = 0; n < rows; n++) if (!out.write(`${n},row number ${n} with some text,2026-03-01T09:30:00.000Z\r\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}
/** Polls /healthz every 10 ms until `done` settles; the latencies' p50, p99 and max. @param {Promise<unknown>} done */
async function pollHealth(done) {
  /** @type {number[]} */
  const latencies = [];
  let running = true;
  done.finally(() => { running = false; }).catch(() => undefined);
  while (running) {
    const started = performance.now();
    const answer = /** @type {{status: number}} */ (await call('GET', '/healthz'));
    if (answer.status !== 200) throw new Error(`/healthz answered ${answer.status}`);
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  latencies.sort((a, b) => a - b);
  const at = (/** @type {number} */ q) => +(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN).toFixed(1);
  return { polls: latencies.length, p50ms: at(0.5), p99ms: at(0.99), maxMs: at(1) };
}
// The same polling with nothing else to do: what the machine's own load adds.
const idle = await pollHealth(new Promise((resolve) => setTimeout(resolve, 5000)));
console.log(JSON.stringify({ healthzIdle: idle }));
const started = performance.now();
const importing = postImport(csv, 'bulk.csv');
const during = await pollHealth(importing);
const answer = await importing;
const importMs = performance.now() - started;
if (answer.status !== 200) throw new Error(answer.text.slice(0, 500));
const health = { rows, csvMB: +(statSync(csv).size / 2 ** 20).toFixed(1), importMs: Math.round(importMs), created: JSON.parse(answer.text).data.created, healthzDuringImport: during, peakRssMB: mb(kb('VmHWM')) };
console.log(JSON.stringify(health));

stop();
await once(server, 'exit');
agent.destroy();
rmSync(dir, { recursive: true, force: true });
