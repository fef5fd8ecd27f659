import { createReadStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { StorageConfig } from '../config/config.js';
import { S3_TIMEOUT_MS_DEFAULT } from '../config/storage-settings.js';
import { contentKey, FileMissingError, type ByteRange, type StagedFile } from './file-storage.js';
import { isContentKey } from './local-storage.js';
import { exactRange, servedStart } from './range-guard.js';
import type { StagingStorage } from './staging-storage.js';
import { storageFailure } from './storage-failure.js';
import { sweepTempDir, unlinkQuietly } from './temp-files.js';

export type S3StorageConfig = Extract<StorageConfig, { kind: 's3' }>;

export interface S3StorageOptions {
  /** false skips the HeadBucket at open (tests of a storage that is meant to fail later). */
  check?: boolean;
  /** Keys per ListObjectsV2 page (S3's most, 1000, by default; tests page through a few). */
  listPageSize?: number;
}

/** The SDK module, loaded on first use of an `s3` storage only (it is large; `local` never pays for it). */
type Sdk = typeof import('@aws-sdk/client-s3');

/**
 * The `s3` storage: content-addressed objects in a bucket of any S3-compatible service, through
 * the official AWS SDK. A PutObject is atomic (an object appears whole or not at all), so no
 * temp key is needed in the bucket; uploads are staged on local disk (`<dir>/.tmp`) first, so
 * their size and sha256 are known before the bucket is touched, and the object's payload hash
 * is signed with that sha256: the service rejects bytes that differ from what was staged.
 */
export class S3Storage implements StagingStorage {
  readonly name = 's3';

  private constructor(
    private readonly sdk: Sdk,
    private readonly client: S3Client,
    private readonly config: S3StorageConfig,
    private readonly listPageSize: number,
  ) {}

  /** Loads the SDK, makes the client and the staging folder, and checks the bucket answers (HeadBucket). */
  static async open(config: S3StorageConfig, options: S3StorageOptions = {}): Promise<S3Storage> {
    const sdk: Sdk = await import('@aws-sdk/client-s3');
    const client = new sdk.S3Client({
      ...(config.region === undefined ? {} : { region: config.region }),
      ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
      ...(config.credentials === undefined ? {} : { credentials: config.credentials }),
      forcePathStyle: config.forcePathStyle,
      // Every call has an idle limit (CORRAL_S3_TIMEOUT_MS): connecting, and then no byte either way.
      requestHandler: { connectionTimeout: config.timeoutMs ?? S3_TIMEOUT_MS_DEFAULT, socketTimeout: config.timeoutMs ?? S3_TIMEOUT_MS_DEFAULT },
      // Checksums only where S3 demands them: many S3-compatible services refuse the newer
      // trailing checksums. Integrity comes from the signed sha256 payload hash instead (put).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const storage = new S3Storage(sdk, client, config, options.listPageSize ?? 1000);
    await mkdir(storage.tempDir(), { recursive: true });
    if (options.check !== false) await storage.check();
    return storage;
  }

  tempDir(): string {
    return join(resolve(this.config.dir), '.tmp');
  }

  sweepTemp(olderThan: Date): Promise<number> {
    return sweepTempDir(this.tempDir(), olderThan);
  }

  /** Closes the SDK's connections. */
  close(): void {
    this.client.destroy();
  }

  async put(file: StagedFile): Promise<string> {
    if (!/^[0-9a-f]{64}$/.test(file.sha256)) throw new TypeError(`not a lower-case hex sha256: ${file.sha256}`);
    const key = contentKey(file.sha256);
    const objectKey = this.objectKey(key);
    try {
      const stored = await this.modifiedOf(objectKey);
      // An object already stored is refreshed in place where the service can; else the staged bytes are sent.
      if (stored === undefined || !(await this.touch(objectKey, stored))) await this.upload(objectKey, file);
    } catch (error) {
      throw storageFailure(error, 'upload');
    } finally {
      // Stored or not, the staged copy is done with: a failed put is sent again from a new upload.
      await unlinkQuietly(file.tempPath);
    }
    return key;
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    if (!isContentKey(key)) throw new FileMissingError(key);
    try {
      const answer = await this.client.send(
        new this.sdk.GetObjectCommand({
          Bucket: this.config.bucket,
          Key: this.objectKey(key),
          ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
        }),
      );
      const stream = toReadable(answer.Body);
      if (range === undefined) return stream;
      return exactRange(stream, range, { start: servedStart(answer.ContentRange), length: answer.ContentLength });
    } catch (error) {
      if (isNotFound(error)) throw new FileMissingError(key);
      throw storageFailure(error, 'download');
    }
  }

  async remove(key: string): Promise<void> {
    if (!isContentKey(key)) return;
    // DeleteObject of a missing key succeeds (204), as `remove` wants.
    try {
      await this.client.send(new this.sdk.DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
    } catch (error) {
      throw storageFailure(error, 'removal');
    }
  }

  async *list(): AsyncIterable<{ key: string; modified: Date }> {
    const prefix = this.config.prefix === '' ? '' : `${this.config.prefix}/`;
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new this.sdk.ListObjectsV2Command({
          Bucket: this.config.bucket,
          MaxKeys: this.listPageSize,
          ...(prefix === '' ? {} : { Prefix: prefix }),
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
      );
      for (const object of page.Contents ?? []) {
        const key = object.Key?.slice(prefix.length);
        if (key === undefined || !isContentKey(key)) continue;
        yield { key, modified: object.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  private objectKey(key: string): string {
    return this.config.prefix === '' ? key : `${this.config.prefix}/${key}`;
  }

  /** The object's LastModified, or undefined when it is not stored. */
  private async modifiedOf(objectKey: string): Promise<Date | undefined> {
    try {
      const head = await this.client.send(new this.sdk.HeadObjectCommand({ Bucket: this.config.bucket, Key: objectKey }));
      return head.LastModified ?? new Date(0);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** PutObject of the staged file, signed with its sha256 (the service rejects other bytes). */
  private async upload(objectKey: string, file: StagedFile): Promise<void> {
    const command = new this.sdk.PutObjectCommand({
      Bucket: this.config.bucket,
      Key: objectKey,
      Body: createReadStream(file.tempPath),
      ContentLength: file.size,
      // Rows say what the bytes are; an object shared by several rows is served by Corral, never as-is.
      ContentType: 'application/octet-stream',
    });
    command.middlewareStack.add(signedPayload(file.sha256), { step: 'build', name: 'corralSignedPayload' });
    await this.client.send(command);
  }

  /**
   * Sets an existing object's LastModified to now by copying it onto itself (metadata replaced;
   * done by the service, no bytes sent), so an orphan sweep never takes bytes that a new, not yet
   * committed upload has just put again. False when the service kept the old time (s3rver does;
   * S3 too within the same second): the caller then sends the bytes again instead.
   */
  private async touch(objectKey: string, modified: Date): Promise<boolean> {
    const copied = await this.client.send(
      new this.sdk.CopyObjectCommand({
        Bucket: this.config.bucket,
        Key: objectKey,
        CopySource: `${this.config.bucket}/${objectKey}`,
        MetadataDirective: 'REPLACE',
        ContentType: 'application/octet-stream',
      }),
    );
    const now = copied.CopyObjectResult?.LastModified;
    return now !== undefined && now.getTime() > modified.getTime();
  }

  private async check(): Promise<void> {
    const where = `bucket ${JSON.stringify(this.config.bucket)}${this.config.endpoint === undefined ? '' : ` at ${this.config.endpoint}`}`;
    try {
      await this.client.send(new this.sdk.HeadBucketCommand({ Bucket: this.config.bucket }));
    } catch (error) {
      const status = (error as Partial<S3ServiceException>).$metadata?.httpStatusCode;
      const reason = status === 404 ? 'it does not exist' : status === 403 ? 'access is denied (check the credentials)' : error instanceof Error ? error.message : String(error);
      throw new Error(`CORRAL_STORAGE=s3: the ${where} cannot be used: ${reason}`, { cause: error });
    }
  }
}

function toReadable(body: { transformToWebStream(): unknown } | undefined): Readable {
  if (body instanceof Readable) return body;
  if (body === undefined) return Readable.from([]);
  return Readable.fromWeb(body.transformToWebStream() as import('node:stream/web').ReadableStream);
}

/** NoSuchKey, or a bare 404 (HeadObject answers have no body to name the error). */
function isNotFound(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'NoSuchKey' || error.name === 'NotFound') return true;
  return (error as Partial<S3ServiceException>).$metadata?.httpStatusCode === 404;
}

/**
 * A build-step middleware that signs the payload as its sha256 (x-amz-content-sha256), which
 * the SigV4 signer takes as given: S3 then checks the received bytes against the staged hash.
 */
function signedPayload(sha256: string) {
  return <Args extends { request: unknown }, Result>(next: (args: Args) => Promise<Result>) =>
    async (args: Args): Promise<Result> => {
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers !== undefined) request.headers['x-amz-content-sha256'] = sha256;
      return next(args);
    };
}
