import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentKey, FileMissingError, type ByteRange } from '../../src/files/file-storage.js';
import type { StagingStorage } from '../../src/files/staging-storage.js';
import { stageUpload } from '../../src/files/stage-upload.js';

/** A storage under test, and how to throw it away. */
export interface StorageUnderTest {
  storage: StagingStorage;
  close(): Promise<void>;
}

/** Every stored byte of a read, as one Buffer. */
export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Stages `bytes` as an upload would (through stageUpload) and puts them. */
export async function store(storage: StagingStorage, bytes: Buffer): Promise<{ key: string; tempPath: string }> {
  const { file } = await stageUpload(storage, Readable.from([bytes]), { maxBytes: bytes.length });
  return { key: await storage.put(file), tempPath: file.tempPath };
}

async function keys(storage: StagingStorage): Promise<string[]> {
  const found: string[] = [];
  for await (const { key } of storage.list()) found.push(key);
  return found.sort();
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * What every FileStorage must do (src/files/file-storage.ts), run against one implementation.
 * Each case stores bytes no other case stores, so the cases share one storage.
 */
export function storageContract(label: string, open: () => Promise<StorageUnderTest>): void {
  describe(`FileStorage contract: ${label}`, () => {
    let subject: StorageUnderTest;
    let storage: StagingStorage;
    beforeAll(async () => {
      subject = await open();
      storage = subject.storage;
    });
    afterAll(async () => {
      await subject?.close();
    });

    it('stores under the content key and reads back the same bytes; the temp file is taken over', async () => {
      const bytes = Buffer.from('hello, attachment\n');
      const { key, tempPath } = await store(storage, bytes);
      expect(key).toBe(contentKey(sha256(bytes)));
      expect(existsSync(tempPath)).toBe(false);
      expect(await readAll(await storage.read(key))).toEqual(bytes);
    });

    it('reads an inclusive byte range', async () => {
      const bytes = Buffer.from('0123456789abcdef-range');
      const { key } = await store(storage, bytes);
      expect(await text(await storage.read(key, { start: 3, end: 7 }))).toBe('34567');
      expect(await text(await storage.read(key, { start: 0, end: 0 }))).toBe('0');
      const last = bytes.length - 1;
      expect(await readAll(await storage.read(key, { start: last, end: last }))).toEqual(bytes.subarray(last));
    });

    it('stores an empty file', async () => {
      const { key } = await store(storage, Buffer.alloc(0));
      expect(key).toBe(contentKey(sha256(Buffer.alloc(0))));
      expect((await readAll(await storage.read(key))).length).toBe(0);
    });

    it('keeps one object for the same bytes put twice, and drops the second temp file', async () => {
      const bytes = Buffer.from('twice, the same bytes');
      const first = await store(storage, bytes);
      const second = await store(storage, bytes);
      expect(second.key).toBe(first.key);
      expect(existsSync(second.tempPath)).toBe(false);
      expect((await keys(storage)).filter((key) => key === first.key)).toHaveLength(1);
      expect(await readAll(await storage.read(first.key))).toEqual(bytes);
    });

    it('puts the same bytes concurrently without a partial or failed put', async () => {
      const bytes = Buffer.alloc(256 * 1024, 7);
      const results = await Promise.all([1, 2, 3].map(() => store(storage, bytes)));
      expect(new Set(results.map((result) => result.key)).size).toBe(1);
      // Buffer.equals: vitest's deep equality is slow on large buffers.
      expect((await readAll(await storage.read(results[0]!.key))).equals(bytes)).toBe(true);
    });

    it('answers FileMissingError for a key that is not stored, and for a malformed one', async () => {
      const missing = contentKey(sha256(Buffer.from('never stored')));
      await expect(storage.read(missing)).rejects.toBeInstanceOf(FileMissingError);
      await expect(storage.read(missing, { start: 0, end: 1 })).rejects.toBeInstanceOf(FileMissingError);
      await expect(storage.read('../../etc/passwd')).rejects.toBeInstanceOf(FileMissingError);
    });

    it('removes an object; removing a missing key is no error', async () => {
      const bytes = Buffer.from('to be removed');
      const { key } = await store(storage, bytes);
      expect(await keys(storage)).toContain(key);
      await storage.remove(key);
      await expect(storage.read(key)).rejects.toBeInstanceOf(FileMissingError);
      expect(await keys(storage)).not.toContain(key);
      await storage.remove(key);
    });

    it('lists every stored key with a modified time, and no temp file', async () => {
      const before = Date.now();
      const stored = await Promise.all(['list a', 'list b', 'list c'].map((s) => store(storage, Buffer.from(s))));
      // A temp file being staged right now is not a stored object.
      await stageUpload(storage, Readable.from([Buffer.from('staged, not put')]), { maxBytes: 100 });
      const listed = new Map<string, Date>();
      for await (const { key, modified } of storage.list()) listed.set(key, modified);
      for (const { key } of stored) {
        expect(listed.get(key)).toBeInstanceOf(Date);
        // S3 keeps whole seconds.
        expect(listed.get(key)!.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
      }
      for (const key of listed.keys()) expect(key).toMatch(/^[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}$/);
      expect(await readdir(storage.tempDir())).toHaveLength(1);
      await storage.sweepTemp(new Date(Date.now() + 60_000));
    });

    it('round-trips random bytes through put and ranged reads equal to Buffer slices (property)', async () => {
      const withRange = fc
        .uint8Array({ minLength: 1, maxLength: 5000 })
        .chain((array) =>
          fc.tuple(
            fc.constant(Buffer.from(array)),
            fc.nat({ max: array.length - 1 }),
            fc.nat({ max: array.length - 1 }),
          ),
        );
      await fc.assert(
        fc.asyncProperty(withRange, async ([bytes, a, b]) => {
          const { key } = await store(storage, bytes);
          expect(key).toBe(contentKey(sha256(bytes)));
          expect(await readAll(await storage.read(key))).toEqual(bytes);
          const range: ByteRange = { start: Math.min(a, b), end: Math.max(a, b) };
          expect(await readAll(await storage.read(key, range))).toEqual(bytes.subarray(range.start, range.end + 1));
        }),
        { numRuns: 40 },
      );
    });
  });
}
