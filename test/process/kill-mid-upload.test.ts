/**
 * kill -9 in the middle of an upload, on every dialect: after a restart there is no attachment
 * row for it and no file of it in the storage directory (its temp file is swept), while a
 * completed upload keeps its row and its bytes; a stored object no row names (bytes stored by a
 * request whose transaction never committed) is swept too.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { contentKey } from '../../src/files/file-storage.js';
import { multipartBody } from '../support/multipart.js';
import { storedFiles } from '../support/stored-files.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/test-database.js';
import { killAll, requireBuild, startCorral, waitFor } from './support.js';

/** The upload that is cut: large enough to be mid-way when the process dies. */
const CUT_BYTES = 8 * 1024 * 1024;

afterAll(killAll);

for (const dialect of DIALECTS) {
  describe(`kill -9 mid-upload on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    const dir = mkdtempSync(join(tmpdir(), 'corral-kill-upload-'));
    afterAll(async () => {
      await killAll();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('leaves no row and no stray file of the cut upload, and keeps the completed one', async () => {
      requireBuild();
      database = await createTestDatabase(dialect);
      // Age 0: the sweep at start removes every unreferenced file at once (no upload can be in flight yet).
      const env = { DATABASE_URL: database.url, CORRAL_STORAGE_DIR: dir, CORRAL_UPLOAD_ORPHAN_AGE_MS: '0', CORRAL_WORKERS: '1', CORRAL_UPLOAD_MAX_BYTES: String(64 * 1024 * 1024) };
      const first = await startCorral({ env });
      const auth = await first.authHeaders();
      const kept = randomBytes(1000);
      const form = await multipartBody([{ bytes: kept, filename: 'kept.bin' }]);
      const done = await fetch(`${first.baseUrl}/api/attachments:create`, { method: 'POST', headers: { ...auth, 'content-type': form.contentType }, body: form.body });
      expect(done.status).toBe(201);
      const keptRow = ((await done.json()) as { data: { id: number; path: string } }).data;

      // Half of a large multipart body over a raw socket, then the kill.
      const cut = await multipartBody([{ bytes: randomBytes(CUT_BYTES), filename: 'cut.bin' }]);
      const socket = connect(first.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      socket.on('error', () => undefined);
      const head = `POST /api/attachments:create HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth.authorization}\r\nContent-Type: ${cut.contentType}\r\nContent-Length: ${cut.body.length}\r\n\r\n`;
      socket.write(head);
      socket.write(cut.body.subarray(0, cut.body.length >>> 1));
      const temp = join(dir, '.tmp');
      await waitFor(async () => storedFiles(temp).some((name) => statSync(join(temp, name)).size > 1024 * 1024), 'the cut upload to be staged', 10_000);
      await first.kill();
      socket.destroy();
      // Bytes of a request that stored them and died before its row committed.
      const orphan = randomBytes(500);
      const orphanKey = contentKey(createHash('sha256').update(orphan).digest('hex'));
      mkdirSync(dirname(join(dir, orphanKey)), { recursive: true });
      writeFileSync(join(dir, orphanKey), orphan);
      expect(storedFiles(temp).length).toBeGreaterThan(0);

      const second = await startCorral({ env });
      await waitFor(async () => storedFiles(dir).length === 1, 'the orphan sweep at start', 10_000);
      expect(storedFiles(dir)).toEqual([keptRow.path]);
      const rows = await second.request('GET', '/api/attachments:list?fields=id');
      expect(rows.body.data).toEqual([{ id: keptRow.id }]);
      const download = await fetch(`${second.baseUrl}/api/attachments/${keptRow.id}/content`, { headers: await second.authHeaders() });
      expect(Buffer.from(await download.arrayBuffer()).equals(kept)).toBe(true);
      await second.stop();
    }, 60_000);
  });
}
