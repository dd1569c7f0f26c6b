import { createReadStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import type { S3Config } from '../config-files.ts';
import type { Mode } from '../db/engine.ts';
import { discardSpool, removeStaleFiles, type Spool } from './spool.ts';
import { ObjectMissing, SHA256_HEX, type FileStore, type ObjectInfo } from './store.ts';

const status = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

export function s3Client(c: S3Config): S3Client {
  return new S3Client({
    region: c.region,
    endpoint: c.endpoint ?? undefined,
    forcePathStyle: c.forcePathStyle,
    credentials: c.credentials ?? undefined,
    // Our own SHA-256 goes with every put (below); the SDK's extra CRC32 in aws-chunked bodies is what many
    // S3-compatible services mishandle, so it is sent only where the protocol requires one.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 120_000 },
  });
}

/**
 * The S3-compatible store: objects at `<prefix><mode>/<first two hex digits>/<sha256>` in one bucket, so the key
 * names the content and live and sandbox never share a key. Every put carries the sha256 twice: as
 * `x-amz-checksum-sha256` (S3 refuses a body that does not match it, and stores it with the object; an
 * Object Lock bucket requires a checksum on every put) and as the metadata `x-amz-meta-sha256` (hex). Writes
 * are spooled to local disk first (the key is known only once the content has been hashed).
 */
export class S3FileStore implements FileStore {
  readonly backend = 's3' as const;
  readonly location: string;
  readonly spoolDir: string;
  private readonly keyPrefix: string;

  /** `spoolDir`: a local folder of this install's own (FILES_DIR/<mode>/.spool, beside the disk store's objects). */
  constructor(
    private readonly client: S3Client,
    private readonly config: S3Config,
    mode: Mode,
    spoolDir: string,
  ) {
    this.keyPrefix = `${config.prefix}${mode}/`;
    this.location = `s3://${config.bucket}/${this.keyPrefix}`;
    this.spoolDir = spoolDir;
  }

  private keyOf(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return `${this.keyPrefix}${sha256.slice(0, 2)}/${sha256}`;
  }

  private async put(sha256: string, body: PutObjectCommandInput['Body'], size: number): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.config.bucket,
        Key: this.keyOf(sha256),
        Body: body,
        ContentLength: size,
        ContentType: 'application/octet-stream',
        ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
        Metadata: { sha256 },
      }),
    );
  }

  async putSpool(spool: Spool): Promise<void> {
    try {
      await this.put(spool.sha256, createReadStream(spool.path), spool.size);
    } finally {
      await discardSpool(spool);
    }
  }

  putBytes(sha256: string, bytes: Buffer): Promise<void> {
    return this.put(sha256, bytes, bytes.length);
  }

  async read(sha256: string, range?: { start: number; end: number }): Promise<Readable> {
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.config.bucket, Key: this.keyOf(sha256), Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      return out.Body as Readable;
    } catch (err) {
      if (status(err) === 404) throw new ObjectMissing(sha256, this.location);
      throw err;
    }
  }

  async stat(sha256: string): Promise<ObjectInfo | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: this.keyOf(sha256) }));
      return { sha256, size: head.ContentLength ?? 0, modifiedAt: head.LastModified ?? new Date(0) };
    } catch (err) {
      if (status(err) === 404) return null;
      throw err;
    }
  }

  async *list(): AsyncGenerator<ObjectInfo> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.config.bucket, Prefix: this.keyPrefix, ContinuationToken: token, MaxKeys: 1000 }),
      );
      for (const o of page.Contents ?? []) {
        const name = (o.Key ?? '').slice(this.keyPrefix.length).split('/')[1] ?? '';
        if (SHA256_HEX.test(name) && o.Key === this.keyOf(name)) yield { sha256: name, size: o.Size ?? 0, modifiedAt: o.LastModified ?? new Date(0) };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * S3 has no atomic move aside: the object's age is read again just before the delete, and in a versioned
   * bucket (which Object Lock requires) only the version that was read is deleted, so a writer's new put of
   * the same content survives. In an unversioned bucket a put landing between the two calls could be lost:
   * docs/files.md says why that needs an orphan older than the grace period re-put within milliseconds.
   */
  async removeIfOlder(sha256: string, olderThan: Date): Promise<boolean> {
    const Key = this.keyOf(sha256);
    let head;
    try {
      head = await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key }));
    } catch (err) {
      if (status(err) === 404) return false;
      throw err;
    }
    if (!head.LastModified || head.LastModified >= olderThan) return false;
    const versioned = head.VersionId && head.VersionId !== 'null';
    await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key, VersionId: versioned ? head.VersionId : undefined }));
    return true;
  }

  sweepSpools(olderThan: Date): Promise<number> {
    return removeStaleFiles(this.spoolDir, olderThan);
  }

  async check(): Promise<void> {
    try {
      await mkdir(this.spoolDir, { recursive: true });
      await this.client.send(new HeadBucketCommand({ Bucket: this.config.bucket }));
    } catch (err) {
      const code = status(err);
      throw new Error(`the S3 bucket ${this.location} cannot be used${code ? ` (HTTP ${code})` : ''}: ${(err as Error).name}: ${(err as Error).message}`);
    }
  }
}
