import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { DiskFileStore } from '../../src/platform/file-store/disk.ts';
import { s3Client, S3FileStore } from '../../src/platform/file-store/s3.ts';
import { ObjectMissing, type FileStore } from '../../src/platform/file-store/store.ts';
import { spoolStream, SpoolTooLarge } from '../../src/platform/file-store/spool.ts';
import type { S3Config } from '../../src/platform/config.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';

// The two backends of the file store (issue 31) through one interface, each against the real thing: a
// folder, and a local S3-protocol server (s3rver) spoken to by @aws-sdk/client-s3.
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
let s3: S3TestServer;
let work: string;

beforeAll(async () => {
  s3 = await startS3Server();
  work = mkdtempSync(path.join(tmpdir(), 'pinkas-store-test-'));
});
afterAll(async () => {
  await s3?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const s3Config = (over: Partial<S3Config> = {}): S3Config => ({
  bucket: s3.bucket,
  region: 'us-east-1',
  endpoint: s3.endpoint,
  forcePathStyle: true,
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  prefix: 'install-a/',
  ...over,
});

async function all(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of stream) parts.push(p as Buffer);
  return Buffer.concat(parts);
}

function* pieces(bytes: Buffer, size: number): Generator<Buffer> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const backends: [string, () => FileStore][] = [
  ['fs', () => new DiskFileStore(path.join(work, 'files', 'live'))],
  ['s3', () => new S3FileStore(s3Client(s3Config()), s3Config(), 'live', path.join(work, 's3-spool'))],
];

describe.each(backends)('the %s store', (backend, make) => {
  let store: FileStore;
  beforeAll(async () => {
    store = make();
    await store.check();
  });

  it('puts bytes under their sha256 and reads them back whole and by range', async () => {
    const bytes = randomBytes(300_000);
    await store.putBytes(sha(bytes), bytes);
    expect((await all(await store.read(sha(bytes)))).equals(bytes)).toBe(true);
    expect((await all(await store.read(sha(bytes), { start: 1000, end: 1999 }))).equals(bytes.subarray(1000, 2000))).toBe(true);
    expect((await all(await store.read(sha(bytes), { start: 299_990, end: 299_999 }))).equals(bytes.subarray(299_990))).toBe(true);
    const info = await store.stat(sha(bytes));
    expect(info).toMatchObject({ sha256: sha(bytes), size: 300_000 });
    expect(store.backend).toBe(backend);
  });

  it('commits a spooled stream (no copy left behind) and lists what it holds', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const spool = await spoolStream(pieces(bytes, 65_536), { dir: store.spoolDir });
    expect(spool).toMatchObject({ sha256: sha(bytes), size: bytes.length });
    expect(spool.head.equals(bytes.subarray(0, 64 * 1024))).toBe(true);
    expect(spool.tail.equals(bytes.subarray(bytes.length - 1024))).toBe(true);
    await store.putSpool(spool);
    expect(readdirSync(store.spoolDir)).toEqual([]);
    expect((await all(await store.read(spool.sha256))).equals(bytes)).toBe(true);
    const listed: string[] = [];
    for await (const o of store.list()) listed.push(o.sha256);
    expect(listed).toContain(sha(bytes));
  });

  it('enforces a size limit while the bytes arrive: the source is not read to its end and no spool remains', async () => {
    let served = 0;
    async function* endless() {
      for (;;) {
        served += 1024;
        yield Buffer.alloc(1024, 1);
      }
    }
    await expect(spoolStream(endless(), { dir: store.spoolDir, maxBytes: 10_000 })).rejects.toBeInstanceOf(SpoolTooLarge);
    expect(served).toBeLessThanOrEqual(11 * 1024);
    expect(readdirSync(store.spoolDir)).toEqual([]);
  });

  it('says a missing object is missing', async () => {
    const nothing = sha(Buffer.from('never stored'));
    await expect(store.read(nothing)).rejects.toBeInstanceOf(ObjectMissing);
    expect(await store.stat(nothing)).toBeNull();
    expect(await store.removeIfOlder(nothing, new Date(Date.now() + 3_600_000))).toBe(false);
  });

  it('removes an object only when it was written before the cut-off', async () => {
    const bytes = Buffer.from(`orphan of ${backend}`);
    await store.putBytes(sha(bytes), bytes);
    expect(await store.removeIfOlder(sha(bytes), new Date(Date.now() - 3_600_000))).toBe(false);
    expect(await store.stat(sha(bytes))).not.toBeNull();
    expect(await store.removeIfOlder(sha(bytes), new Date(Date.now() + 3_600_000))).toBe(true);
    expect(await store.stat(sha(bytes))).toBeNull();
  });
});

describe('the fs store on disk', () => {
  it('keeps modes apart, writes read-only objects in two-digit folders, and sweeps stale spools only', async () => {
    const live = new DiskFileStore(path.join(work, 'modes', 'live'));
    const sandbox = new DiskFileStore(path.join(work, 'modes', 'sandbox'));
    const bytes = Buffer.from('live only');
    await live.putBytes(sha(bytes), bytes);
    expect(await sandbox.stat(sha(bytes))).toBeNull();
    const file = path.join(work, 'modes', 'live', sha(bytes).slice(0, 2), sha(bytes));
    expect(statSync(file).mode & 0o777).toBe(0o444);
    const stale = path.join(live.spoolDir, 'crashed.spool');
    const fresh = path.join(live.spoolDir, 'writing.spool');
    writeFileSync(stale, 'half');
    writeFileSync(fresh, 'half');
    utimesSync(stale, new Date('2026-01-01'), new Date('2026-01-01'));
    expect(await live.sweepSpools(new Date(Date.now() - 3_600_000))).toBe(1);
    expect(readdirSync(live.spoolDir)).toEqual(['writing.spool']);
  });

  it('writes again after its folders were removed (it creates a folder only when a write finds it missing)', async () => {
    const root = path.join(work, 'removed');
    const store = new DiskFileStore(root);
    const first = Buffer.from('before the folders went');
    await store.putBytes(sha(first), first);
    rmSync(root, { recursive: true, force: true });
    const again = Buffer.from('after the folders went');
    await store.putBytes(sha(again), again);
    expect(await all(await store.read(sha(again)))).toEqual(again);
    const spool = await spoolStream([again], { dir: path.join(work, 'removed-spools') });
    rmSync(path.join(root, sha(again).slice(0, 2)), { recursive: true, force: true });
    await store.putSpool(spool);
    expect(statSync(path.join(root, sha(again).slice(0, 2), sha(again))).mode & 0o777).toBe(0o444);
  });

  it('refuses to start on a folder it cannot write', async () => {
    const blocked = path.join(work, 'not-a-folder');
    writeFileSync(blocked, 'a file where the store should be');
    await expect(new DiskFileStore(path.join(blocked, 'live')).check()).rejects.toThrow(/cannot be written/);
  });
});

describe('the s3 store over the protocol', () => {
  it('keys an object by its sha256 under the prefix and mode, and carries the hash as metadata', async () => {
    const client = s3Client(s3Config());
    const store = new S3FileStore(client, s3Config(), 'sandbox', path.join(work, 's3-spool'));
    const bytes = Buffer.from('a signed PDF, say');
    await store.putBytes(sha(bytes), bytes);
    const key = `install-a/sandbox/${sha(bytes).slice(0, 2)}/${sha(bytes)}`;
    const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }));
    expect(head.Metadata).toEqual({ sha256: sha(bytes) });
    expect(head.ContentLength).toBe(bytes.length);
    expect(await new S3FileStore(client, s3Config(), 'live', path.join(work, 's3-spool')).stat(sha(bytes))).toBeNull();
  });

  it('reads back what the bucket holds, unchecked: an object altered in the bucket comes back altered (file-read.ts refuses it)', async () => {
    const client = s3Client(s3Config());
    const store = new S3FileStore(client, s3Config(), 'live', path.join(work, 's3-spool'));
    const bytes = Buffer.from('the original');
    await store.putBytes(sha(bytes), bytes);
    const key = `install-a/live/${sha(bytes).slice(0, 2)}/${sha(bytes)}`;
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: Buffer.from('the forgery!') }));
    const read = await all(await store.read(sha(bytes)));
    expect(read.toString()).toBe('the forgery!');
    expect(sha(read)).not.toBe(sha(bytes));
  });

  it('fails loudly when the credentials are refused: at the start check, on a put and on a read', async () => {
    const bad = s3Config({ credentials: { accessKeyId: 'NOT-A-KEY', secretAccessKey: 'whatever' } });
    const store = new S3FileStore(s3Client(bad), bad, 'live', path.join(work, 's3-spool'));
    await expect(store.check()).rejects.toThrow(/cannot be used \(HTTP 403\)/);
    const bytes = Buffer.from('refused');
    await expect(store.putBytes(sha(bytes), bytes)).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
    await expect(store.read(sha(bytes))).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
  });

  it('fails loudly on a bucket that does not exist', async () => {
    const missing = s3Config({ bucket: 'no-such-bucket' });
    await expect(new S3FileStore(s3Client(missing), missing, 'live', path.join(work, 's3-spool')).check()).rejects.toThrow(/cannot be used \(HTTP 404\)/);
  });
});
