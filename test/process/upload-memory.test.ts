/**
 * An upload streams: the server's peak RSS grows by far less than the file (docs/files.md).
 * UPLOAD_MEMORY_MB sets the size (default 256 MiB; 1024 for the 1 GB figure in the docs).
 */
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/test-database.js';
import { killAll, requireBuild, startCorral } from './support.js';

const MB = 1024 * 1024;
const SIZE_MB = Number(process.env.UPLOAD_MEMORY_MB ?? 256);
/** Peak RSS growth allowed while the file streams through. */
const MAX_GROWTH_MB = 100;

afterAll(killAll);

/** Peak resident set size of a process, in MiB (Linux). */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmHWM:'))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}

describe('upload memory', () => {
  let database: TestDatabase | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'corral-upload-memory-'));
  afterAll(async () => {
    await killAll();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`stores a ${SIZE_MB} MiB upload with peak RSS growth under ${MAX_GROWTH_MB} MiB`, async () => {
    requireBuild();
    database = await createTestDatabase('sqlite');
    const env = { DATABASE_URL: database.url, CORRAL_STORAGE_DIR: dir, CORRAL_WORKERS: '1', CORRAL_UPLOAD_MAX_BYTES: String(2048 * MB), CORRAL_BODY_TIMEOUT_MS: '600000' };
    const server = await startCorral({ env });
    const auth = await server.authHeaders();
    // Warm up: one small upload, so the first request's one-time costs are in the baseline.
    const warm = new FormData();
    warm.append('file', new Blob([Buffer.from('warm')]), 'warm.txt');
    expect((await fetch(`${server.baseUrl}/api/attachments:create`, { method: 'POST', headers: auth, body: warm })).status).toBe(201);
    const before = peakRssMb(server.child.pid!);

    const boundary = 'corral-memory-boundary';
    const chunk = Buffer.alloc(MB);
    for (let i = 0; i < chunk.length; i += 4) chunk.writeUInt32LE((i * 2654435761) >>> 0, i);
    const hash = createHash('sha256');
    async function* body(): AsyncGenerator<Buffer> {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      for (let n = 0; n < SIZE_MB; n += 1) {
        hash.update(chunk);
        yield chunk;
      }
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const started = performance.now();
    const response = await fetch(`${server.baseUrl}/api/attachments:create`, {
      method: 'POST',
      headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Readable.toWeb(Readable.from(body())) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const text = await response.text();
    const seconds = (performance.now() - started) / 1000;
    expect(response.status, text).toBe(201);
    const row = (JSON.parse(text) as { data: { size: number; sha256: string } }).data;
    expect(row.size).toBe(SIZE_MB * MB);
    expect(row.sha256).toBe(hash.digest('hex'));
    const growth = peakRssMb(server.child.pid!) - before;
    console.log(`[upload memory] ${SIZE_MB} MiB in ${seconds.toFixed(1)} s; peak RSS ${before.toFixed(0)} MiB before, growth ${growth.toFixed(1)} MiB`);
    expect(growth).toBeLessThan(MAX_GROWTH_MB);
    await server.stop();
  }, 600_000);
});
