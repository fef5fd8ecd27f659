import { mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { contentKey } from '../../src/files/file-storage.js';
import { LocalStorage } from '../../src/files/local-storage.js';
import { HEAD_BYTES, stageUpload, UploadTooLargeError } from '../../src/files/stage-upload.js';
import { readAll, storageContract, store } from '../support/storage-contract.js';

storageContract('local', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'corral-local-storage-'));
  return { storage: await LocalStorage.open(dir), close: () => rm(dir, { recursive: true, force: true }) };
});

describe('local storage', () => {
  const dirs: string[] = [];
  const fresh = async (): Promise<LocalStorage> => {
    const dir = await mkdtemp(join(tmpdir(), 'corral-local-'));
    dirs.push(dir);
    return LocalStorage.open(join(dir, 'uploads'));
  };
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('lays objects out as ab/cd/abcd… with the temp folder beside them, never listed', async () => {
    const storage = await fresh();
    const { key } = await store(storage, Buffer.from('layout'));
    const [first, second, name] = key.split('/');
    expect((await stat(join(storage.dir, first!, second!, name!))).isFile()).toBe(true);
    expect((await readdir(storage.dir)).sort()).toEqual(['.tmp', first].sort());
  });

  it('refreshes the modified time when the same bytes are put again (an orphan sweep must not take them)', async () => {
    const storage = await fresh();
    const bytes = Buffer.from('put again');
    const { key } = await store(storage, bytes);
    const old = new Date('2020-01-01T00:00:00Z');
    await utimes(join(storage.dir, key), old, old);
    await store(storage, bytes);
    const listed = [];
    for await (const entry of storage.list()) listed.push(entry);
    expect(listed).toHaveLength(1);
    expect(listed[0]!.modified.getTime()).toBeGreaterThan(old.getTime());
  });

  it('takes over a staged file from outside its temp folder too', async () => {
    const storage = await fresh();
    const outside = join(dirs[0]!, 'elsewhere.bin');
    await writeFile(outside, 'from elsewhere');
    const sha256 = 'e0f8a3d6f1a1c6b43a0bb0ee8cd5c4d3b0e3f4e8c5f6a3c1a0d7c2b5e8f9a0b1';
    // The storage trusts the staged sha256 (stageUpload computed it); this one is made up.
    const key = await storage.put({ tempPath: outside, size: 14, sha256, mimetype: 'text/plain' });
    expect(key).toBe(contentKey(sha256));
    expect((await readAll(await storage.read(key))).toString()).toBe('from elsewhere');
    await expect(stat(outside)).rejects.toThrow();
  });

  it('refuses a staged file whose sha256 is not lower-case hex (it would name a path)', async () => {
    const storage = await fresh();
    await expect(storage.put({ tempPath: '/nonexistent', size: 0, sha256: '../../x', mimetype: 'x/y' })).rejects.toThrow(TypeError);
  });
});

describe('stageUpload', () => {
  const dirs: string[] = [];
  const fresh = async (): Promise<LocalStorage> => {
    const dir = await mkdtemp(join(tmpdir(), 'corral-stage-'));
    dirs.push(dir);
    return LocalStorage.open(dir);
  };
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('counts, hashes and keeps the first 4100 bytes of a streamed upload', async () => {
    const storage = await fresh();
    const chunks = Array.from({ length: 50 }, (_, i) => Buffer.alloc(1000, i));
    const all = Buffer.concat(chunks);
    const { file, head } = await stageUpload(storage, Readable.from(chunks), { maxBytes: all.length, mimetype: 'image/png' });
    expect(file.size).toBe(50_000);
    expect(file.sha256).toBe((await import('node:crypto')).createHash('sha256').update(all).digest('hex'));
    expect(file.mimetype).toBe('image/png');
    expect(head).toEqual(all.subarray(0, HEAD_BYTES));
    expect(file.tempPath.startsWith(storage.tempDir())).toBe(true);
    expect(await readAll((await import('node:fs')).createReadStream(file.tempPath))).toEqual(all);
  });

  it('keeps the whole of an upload shorter than the sniffing head', async () => {
    const storage = await fresh();
    const { file, head } = await stageUpload(storage, Readable.from([Buffer.from('ab'), Buffer.from('c')]), { maxBytes: 3 });
    expect(head.toString()).toBe('abc');
    expect(file.size).toBe(3);
    expect(file.mimetype).toBe('application/octet-stream');
  });

  it('rejects with UploadTooLargeError one byte past the limit, stops reading and removes the temp file', async () => {
    const storage = await fresh();
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled += 1;
        this.push(Buffer.alloc(1024));
      },
    });
    const staging = stageUpload(storage, endless, { maxBytes: 10 * 1024 });
    await expect(staging).rejects.toBeInstanceOf(UploadTooLargeError);
    await expect(staging).rejects.toMatchObject({ limit: 10 * 1024 });
    expect(endless.destroyed).toBe(true);
    expect(pulled).toBeLessThan(50);
    expect(await readdir(storage.tempDir())).toEqual([]);
  });

  it('accepts exactly the limit', async () => {
    const storage = await fresh();
    const { file } = await stageUpload(storage, Readable.from([Buffer.alloc(100)]), { maxBytes: 100 });
    expect(file.size).toBe(100);
  });

  it('removes the temp file when the source fails mid-stream', async () => {
    const storage = await fresh();
    const failing = new Readable({ read() {} });
    const staging = stageUpload(storage, failing, { maxBytes: 1e6 });
    failing.push(Buffer.alloc(500));
    setImmediate(() => failing.destroy(new Error('client went away')));
    await expect(staging).rejects.toThrow('client went away');
    expect(await readdir(storage.tempDir())).toEqual([]);
  });

  it('sweepTemp removes temp files older than the cut-off only, and nothing stored', async () => {
    const storage = await fresh();
    const { key } = await store(storage, Buffer.from('stored, not temp'));
    const old = await stageUpload(storage, Readable.from([Buffer.from('old')]), { maxBytes: 10 });
    const recent = await stageUpload(storage, Readable.from([Buffer.from('recent')]), { maxBytes: 10 });
    const stranger = join(storage.tempDir(), 'not-ours.txt');
    await writeFile(stranger, 'x');
    const cutOff = new Date('2026-01-01T00:00:00Z');
    await utimes(old.file.tempPath, new Date(cutOff.getTime() - 1000), new Date(cutOff.getTime() - 1000));
    await utimes(recent.file.tempPath, cutOff, cutOff);
    await utimes(stranger, new Date(0), new Date(0));
    expect(await storage.sweepTemp(cutOff)).toBe(1);
    const left = (await readdir(storage.tempDir())).map((name) => join(storage.tempDir(), name)).sort();
    expect(left).toEqual([recent.file.tempPath, stranger].sort());
    expect((await readAll(await storage.read(key))).toString()).toBe('stored, not temp');
  });
});
