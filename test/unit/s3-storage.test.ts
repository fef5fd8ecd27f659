import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageConfig } from '../../src/config/config.js';
import { openStorage } from '../../src/files/open-storage.js';
import { S3Storage } from '../../src/files/s3-storage.js';
import { startS3rver, type S3rverProcess } from '../support/s3rver-process.js';
import { readAll, storageContract, store } from '../support/storage-contract.js';

/**
 * The s3 storage through the real AWS SDK against s3rver, an S3-compatible server from npm
 * (path-style addressing, its fixed S3RVER/S3RVER credentials, SigV4), in a child process.
 */
let server: S3rverProcess;
let endpoint: string;
let credentials: S3rverProcess['credentials'];

beforeAll(async () => {
  server = await startS3rver();
  endpoint = server.endpoint;
  credentials = server.credentials;
});

afterAll(async () => {
  await server?.stop();
});

let buckets = 0;
/** A fresh bucket, and the storage config for it. */
async function bucket(extra: Partial<Extract<StorageConfig, { kind: 's3' }>> = {}): Promise<Extract<StorageConfig, { kind: 's3' }> & { cleanup(): Promise<void> }> {
  buckets += 1;
  const name = `corral-test-${process.pid}-${buckets}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', credentials, forcePathStyle: true });
  await client.send(new CreateBucketCommand({ Bucket: name }));
  client.destroy();
  const dir = await mkdtemp(join(tmpdir(), 'corral-s3-staging-'));
  return {
    kind: 's3', dir, bucket: name, region: 'us-east-1', endpoint, forcePathStyle: true, credentials, prefix: '', ...extra,
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

storageContract('s3 (s3rver)', async () => {
  const config = await bucket();
  const storage = await openStorage({ storage: config });
  return { storage, close: async () => { storage.close(); await config.cleanup(); } };
});

storageContract('s3 (s3rver) under a key prefix', async () => {
  const config = await bucket({ prefix: 'corral/uploads' });
  const storage = await openStorage({ storage: config });
  return { storage, close: async () => { storage.close(); await config.cleanup(); } };
});

describe('s3 storage', () => {
  it('stores objects under the prefix, as application/octet-stream, and lists them without it', async () => {
    const config = await bucket({ prefix: 'tenant-a/files' });
    const storage = (await openStorage({ storage: config })) as S3Storage;
    try {
      const bytes = Buffer.from('<svg onload="alert(1)"/>');
      const { key } = await store(storage, bytes);
      const client = new S3Client({ endpoint, region: 'us-east-1', credentials, forcePathStyle: true });
      const head = await client.send(new HeadObjectCommand({ Bucket: config.bucket, Key: `tenant-a/files/${key}` }));
      expect(head.ContentLength).toBe(bytes.length);
      expect(head.ContentType).toBe('application/octet-stream');
      // An object outside the content-key shape (someone else's, in the same bucket) is never listed.
      await client.send(new PutObjectCommand({ Bucket: config.bucket, Key: 'tenant-a/files/readme.txt', Body: 'x' }));
      client.destroy();
      const listed = [];
      for await (const entry of storage.list()) listed.push(entry.key);
      expect(listed).toEqual([key]);
      expect(await readdir(storage.tempDir())).toEqual([]);
    } finally {
      storage.close();
      await config.cleanup();
    }
  });

  it('refreshes an object\'s LastModified when the same bytes are put again (an orphan sweep must not take them)', async () => {
    const config = await bucket();
    const storage = (await openStorage({ storage: config })) as S3Storage;
    try {
      const bytes = Buffer.from('put again, s3');
      const { key } = await store(storage, bytes);
      // s3rver's LastModified is its file's mtime: set it a day back, as if the object were old.
      const [first, second, name] = key.split('/');
      const file = join(server.directory, config.bucket, first!, second!, `${name}._S3rver_object`);
      const dayAgo = new Date(Date.now() - 86_400_000);
      await utimes(file, dayAgo, dayAgo);
      const before = [];
      for await (const entry of storage.list()) before.push(entry.modified.getTime());
      expect(before).toEqual([Math.floor(dayAgo.getTime() / 1000) * 1000]);
      await store(storage, bytes);
      const after = [];
      for await (const entry of storage.list()) after.push(entry);
      expect(after).toHaveLength(1);
      expect(after[0]!.modified.getTime()).toBeGreaterThan(Date.now() - 60_000);
      expect((await readAll(await storage.read(key))).equals(bytes)).toBe(true);
    } finally {
      storage.close();
      await config.cleanup();
    }
  });

  it('signs the upload with the staged sha256 as its payload hash (S3 then rejects other bytes)', async () => {
    const config = await bucket();
    const storage = (await openStorage({ storage: config })) as S3Storage;
    try {
      const sent: Record<string, string>[] = [];
      // Private access, to watch the requests as signed: the last step before they leave.
      storage['client'].middlewareStack.add(
        (next) => async (args) => {
          const request = args.request as { method?: string; headers?: Record<string, string> };
          if (request.method === 'PUT' && request.headers !== undefined) sent.push({ ...request.headers });
          return next(args);
        },
        { step: 'finalizeRequest', priority: 'low', name: 'watchSigned' },
      );
      const bytes = Buffer.from('signed bytes');
      const { key } = await store(storage, bytes);
      expect(sent).toHaveLength(1);
      expect(sent[0]!['x-amz-content-sha256']).toBe(key.slice(6));
      expect(sent[0]!.authorization).toMatch(/x-amz-content-sha256/);
    } finally {
      storage.close();
      await config.cleanup();
    }
  });

  it('lists past one page (ListObjectsV2 continuation)', async () => {
    const config = await bucket({ prefix: 'paged' });
    const storage = (await openStorage({ storage: config }, { listPageSize: 2 })) as S3Storage;
    try {
      const stored = [];
      for (let i = 0; i < 5; i += 1) stored.push((await store(storage, Buffer.from(`page ${i}`))).key);
      const listed = [];
      for await (const entry of storage.list()) listed.push(entry.key);
      expect(listed.sort()).toEqual(stored.sort());
    } finally {
      storage.close();
      await config.cleanup();
    }
  });

  it('reads an object of a few MiB with a range in the middle', async () => {
    const config = await bucket();
    const storage = (await openStorage({ storage: config })) as S3Storage;
    try {
      const bytes = Buffer.alloc(3 * 1024 * 1024);
      for (let i = 0; i < bytes.length; i += 1) bytes[i] = (i * 31) & 0xff;
      const { key } = await store(storage, bytes);
      // Buffer.equals: vitest's deep equality walks a few MiB byte by byte, for seconds.
      expect((await readAll(await storage.read(key))).equals(bytes)).toBe(true);
      const middle = await readAll(await storage.read(key, { start: 1_000_000, end: 2_000_000 }));
      expect(middle.length).toBe(1_000_001);
      expect(middle.equals(bytes.subarray(1_000_000, 2_000_001))).toBe(true);
    } finally {
      storage.close();
      await config.cleanup();
    }
  });

  it('fails to open with a clear message when the bucket does not exist', async () => {
    const config = await bucket();
    await expect(openStorage({ storage: { ...config, bucket: 'no-such-bucket-here' } })).rejects.toThrow(
      /CORRAL_STORAGE=s3: the bucket "no-such-bucket-here" at http:\/\/127\.0\.0\.1:\d+ cannot be used: it does not exist/,
    );
    await config.cleanup();
  });
});
