import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config/config.js';
import { send, upload } from '../support/multipart.js';
import { useDialectApp } from '../support/test-app.js';
import { DIALECTS } from '../support/test-database.js';

/** How long one S3 call may wait here (CORRAL_S3_TIMEOUT_MS, injected small): the only wait of the hanging cases. */
const TIMEOUT_MS = 150;

type Mode = 'ok' | '503' | '403' | 'hang';

/**
 * A tiny S3 stand-in on loopback: the bucket answers HeadBucket, objects are kept in memory, and
 * PutObject / GetObject answer as the current mode says (a service failure, a refusal, or no
 * answer at all). Signatures are not checked.
 */
class FakeS3 {
  mode: { put: Mode; get: Mode } = { put: 'ok', get: 'ok' };
  readonly objects = new Map<string, Buffer>();
  readonly calls: string[] = [];
  private readonly server: Server = createServer((request, response) => void this.answer(request, response));
  private readonly hung: ServerResponse[] = [];

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    return `http://127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    for (const response of this.hung) response.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = (request.url ?? '/').split('?')[0]!;
    const isObject = path.split('/').filter(Boolean).length > 1;
    this.calls.push(`${request.method} ${isObject ? 'object' : 'bucket'}`);
    if (!isObject) return void response.writeHead(200).end();
    const stored = this.objects.get(path);
    const mode = request.method === 'PUT' ? this.mode.put : request.method === 'GET' ? this.mode.get : 'ok';
    if (mode === 'hang') return void this.hung.push(response);
    if (mode === '503') return this.error(response, 503, 'ServiceUnavailable');
    if (mode === '403') return this.error(response, 403, 'AccessDenied');
    if (request.method === 'HEAD') {
      if (stored === undefined) return void response.writeHead(404).end();
      return void response.writeHead(200, { 'content-length': stored.length, 'last-modified': new Date().toUTCString(), etag: '"x"' }).end();
    }
    if (request.method === 'PUT') {
      this.objects.set(path, Buffer.concat(chunks));
      return void response.writeHead(200, { etag: '"x"' }).end();
    }
    if (request.method === 'GET') {
      if (stored === undefined) return this.error(response, 404, 'NoSuchKey');
      return void response.writeHead(200, { 'content-length': stored.length, 'content-type': 'application/octet-stream', etag: '"x"' }).end(stored);
    }
    if (request.method === 'DELETE') {
      this.objects.delete(path);
      return void response.writeHead(204).end();
    }
    this.error(response, 405, 'MethodNotAllowed');
  }

  private error(response: ServerResponse, status: number, code: string): void {
    response.writeHead(status, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${code}</Message></Error>`);
  }
}

for (const dialect of DIALECTS) {
  describe(`an s3 storage that fails, on ${dialect}`, () => {
    const fake = new FakeS3();
    const dir = mkdtempSync(join(tmpdir(), 'corral-s3-failures-'));
    const overrides: Partial<Config> = {};
    // Registered before the app's beforeAll: the app is built against the running fake.
    beforeAll(async () => {
      const endpoint = await fake.start();
      overrides.storage = { kind: 's3', dir, bucket: 'corral-fake', region: 'us-east-1', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'fake', secretAccessKey: 'fake' }, prefix: '', timeoutMs: TIMEOUT_MS };
    });
    afterAll(() => fake.stop());
    const ctx = useDialectApp(dialect, overrides);
    let auth: Record<string, string>;
    let count = 0;
    const staged = (): string[] => readdirSync(join(dir, '.tmp'));
    const put = () => {
      count += 1;
      return upload(ctx.built, '/api/attachments:create', auth, { bytes: Buffer.from(`bytes number ${count} of ${dialect}`), filename: 'a.txt', type: 'text/plain' });
    };

    beforeAll(async () => {
      auth = await ctx.api.authHeaders();
    });

    // [the service's PutObject, status, code]
    const PUTS: [Mode, number, string][] = [
      ['503', 503, 'STORAGE_UNAVAILABLE'],
      ['hang', 503, 'STORAGE_UNAVAILABLE'],
      ['403', 502, 'STORAGE_REFUSED'],
    ];
    for (const [mode, status, code] of PUTS) {
      it(`a PutObject answered ${mode} is ${status} ${code}, with no row and no staged file left`, async () => {
        fake.mode = { put: mode, get: 'ok' };
        const before = (await ctx.api.get('/api/attachments:count')).body.data;
        const reply = await put();
        expect(reply.status, JSON.stringify(reply.json)).toBe(status);
        expect(reply.json.errors[0].code).toBe(code);
        expect(reply.json.errors[0].message).not.toMatch(/ServiceUnavailable|AccessDenied|smithy|TimeoutError/);
        expect(staged()).toEqual([]);
        expect((await ctx.api.get('/api/attachments:count')).body.data).toBe(before);
      });
    }

    // [the service's GetObject, status, code]
    const GETS: [Mode, number, string][] = [
      ['503', 503, 'STORAGE_UNAVAILABLE'],
      ['hang', 503, 'STORAGE_UNAVAILABLE'],
      ['403', 502, 'STORAGE_REFUSED'],
    ];
    for (const [mode, status, code] of GETS) {
      it(`a GetObject answered ${mode} is ${status} ${code}`, async () => {
        fake.mode = { put: 'ok', get: 'ok' };
        const created = await put();
        expect(created.status, JSON.stringify(created.json)).toBe(201);
        expect((await send(ctx.built, 'GET', created.json.data.url, auth)).status).toBe(200);
        fake.mode = { put: 'ok', get: mode };
        const reply = await send(ctx.built, 'GET', created.json.data.url, auth);
        expect(reply.status, JSON.stringify(reply.json)).toBe(status);
        expect(reply.json.errors[0].code).toBe(code);
      });
    }
  });
}
