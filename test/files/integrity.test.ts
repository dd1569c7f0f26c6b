import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';
import { issueDoc, pdfPath, renderRunner, tempDataDir } from '../prints/helpers.ts';
import { dataUri, jpeg, pdf } from '../expenses/fixtures.ts';
import { commands } from '../../src/cli/commands.ts';
import { parseArgs } from '../../src/cli/args.ts';
import { putStream, recordFile } from '../../src/platform/files.ts';
import { IN_MEMORY_MAX } from '../../src/platform/file-read.ts';
import { s3Client } from '../../src/platform/file-store/s3.ts';

// Issue 31, integrity: every read checks the bytes against the row's sha256. An altered or missing object
// answers 500 `internal`, is logged and audited, and no byte of it is served; `pinkas files verify` finds it.
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
let s3: S3TestServer;
let dataDir: string;

beforeAll(async () => {
  s3 = await startS3Server();
  dataDir = tempDataDir();
});
afterAll(async () => {
  await s3?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe.each(['fs', 's3'])('on the %s store', (backend) => {
  let env: TestEnv;
  let a: TestAccount;
  let bid: string;
  const logged: string[] = [];

  beforeAll(async () => {
    const s3Env = backend === 's3' ? { ...s3.env, FILES_S3_PREFIX: `integrity-${randomBytes(4).toString('hex')}/` } : {};
    env = await createTestEnv({ env: { DATA_DIR: dataDir, ...s3Env } });
    env.s.logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk, _enc, done) {
          logged.push(String(chunk));
          done();
        },
      }),
    );
    a = await env.account();
    bid = (await env.business(a.test)).id;
  });
  afterAll(async () => env?.close());

  /** Replaces the object's bytes behind pinkas's back (null: removes it), as whoever can write the folder or bucket could. */
  async function alter(sha256: string, bytes: Buffer | null): Promise<void> {
    const files = env.s.config.files;
    if (backend === 'fs') {
      const file = path.join(files.dir, 'sandbox', sha256.slice(0, 2), sha256);
      if (bytes === null) return rmSync(file);
      chmodSync(file, 0o644);
      return writeFileSync(file, bytes);
    }
    const Key = `${files.s3!.prefix}sandbox/${sha256.slice(0, 2)}/${sha256}`;
    const client = s3Client(files.s3!);
    if (bytes === null) await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key }));
    else await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key, Body: bytes }));
  }

  const auditOf = (fileId: string) =>
    env.sql<any>('sandbox', `SELECT account_id, after FROM audit_log WHERE action = 'file.integrity_failed' AND entity_id = '${fileId}' ORDER BY seq`);
  const refused = (res: { status: number; body: any }) => {
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ reason: 'internal' });
    expect(res.body.error).toMatch(/failed its integrity check and is not served/);
  };

  it('refuses an altered signed PDF on print, on its share link and on download; logs and audits it', async () => {
    const doc = await issueDoc(env, a.test, bid);
    expect(await renderRunner(env).runDue('sandbox')).toBe(1);
    const shared = await env.call('POST', pdfPath(bid, doc.id, 'share'), { key: a.test, body: { kind: 'copy' } });
    expect(shared.status).toBe(200);
    const [copy] = await env.sql<any>('sandbox', `SELECT id, sha256 FROM files WHERE id = '${shared.body.fileId}'`);
    const original = (await env.call('GET', shared.body.path)).raw;
    const forged = Buffer.from(original);
    forged[forged.length - 20] ^= 1;
    await alter(copy.sha256, forged);

    refused(await env.call('GET', shared.body.path));
    refused(await env.call('POST', pdfPath(bid, doc.id, 'print'), { key: a.test, body: { kind: 'copy' } }));
    refused(await env.call('GET', `/v1/files/${copy.id}`, { key: a.test }));
    const audit = await auditOf(copy.id);
    expect(audit).toHaveLength(3);
    expect(audit[0].after).toEqual({
      store: backend,
      expected: { sha256: copy.sha256, size: original.length },
      found: { sha256: sha(forged), size: forged.length, problem: 'the bytes do not hash to the sha256 of the file' },
    });
    expect(logged.some((l) => l.includes('stored file failed its integrity check') && l.includes(copy.id))).toBe(true);
  });

  it('refuses a receipt whose object is gone, for download and thumbnails alike', async () => {
    const image = await jpeg(64, 64);
    const up = await env.call('POST', `/v1/businesses/${bid}/expenses/upload`, { key: a.test, body: { file: dataUri('image/jpeg', image) } });
    expect(up.status).toBe(201);
    const fileId = up.body.expense.receiptFileId;
    await alter(sha(image), null);
    refused(await env.call('GET', `/v1/files/${fileId}`, { key: a.test }));
    refused(await env.call('POST', `/v1/businesses/${bid}/files/thumbs`, { key: a.test, body: { ids: [fileId] } }));
    const [first] = await auditOf(fileId);
    expect(first.after.found).toMatchObject({ sha256: null, size: null });
    expect(first.after.found.problem).toMatch(/missing/);
  });

  it(`streams a file over ${IN_MEMORY_MAX} bytes only after checking all of it, and sends none of an altered one`, async () => {
    const big = randomBytes(IN_MEMORY_MAX + 300_000);
    const store = env.s.fileStores.sandbox.current;
    const object = await putStream(
      store,
      (function* () {
        for (let i = 0; i < big.length; i += 1 << 20) yield big.subarray(i, i + (1 << 20));
      })(),
    );
    const file = await env.db.sandbox.db.transaction((tx) =>
      recordFile(tx, env.clock.now(), { businessId: bid, object, mime: 'application/zip', name: 'big.zip' }),
    );
    const ok = await env.call('GET', `/v1/files/${file.id}`, { key: a.test });
    expect(ok.status).toBe(200);
    expect(Buffer.from(ok.raw).equals(big)).toBe(true);
    // The checked spool the answer streamed from goes once the answer's stream has closed.
    const spools = () => readdirSync(store.spoolDir).filter((n) => n.endsWith('.spool'));
    for (let i = 0; i < 100 && spools().length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(spools()).toEqual([]);

    const forged = Buffer.from(big);
    forged[forged.length - 1] ^= 0xff;
    await alter(object.sha256, forged);
    const res = await env.call('GET', `/v1/files/${file.id}`, { key: a.test });
    refused(res);
    expect(res.raw.length).toBeLessThan(1000);
    expect(spools()).toEqual([]);
  });

  it('refuses to back up a business with an altered file (no backup is recorded)', async () => {
    refused(await env.call('POST', `/v1/businesses/${bid}/backups`, { key: a.test }));
    expect(await env.sql('sandbox', `SELECT id FROM backups WHERE business_id = '${bid}'`)).toEqual([]);
  });

  it('`files verify` reads every file and lists the altered and the missing ones (exit 1)', async () => {
    const healthy = pdf('an intact receipt');
    expect((await env.call('POST', `/v1/businesses/${bid}/expenses/upload`, { key: a.test, body: { file: dataUri('application/pdf', healthy) } })).status).toBe(
      201,
    );
    const r = await commands['files verify'].run(env.s, parseArgs(['files', 'verify', '--mode', 'test', '--json']));
    expect(r.exitCode).toBe(1);
    const walk = r.json.test as any;
    expect(walk.ok).toBe(false);
    const bad = await env.sql<any>('sandbox', `SELECT DISTINCT entity_id FROM audit_log WHERE action = 'file.integrity_failed'`);
    expect(walk.problems.map((p: any) => p.fileId).sort()).toEqual(bad.map((b: any) => b.entity_id).sort());
    expect(walk.problems, JSON.stringify(walk.problems)).toHaveLength(3);
    expect(walk.files).toBeGreaterThan(walk.problems.length);
    expect(r.text).toMatch(/FILES FAILED THEIR CHECK \(3 of \d+\)/);
    const live = r.json.live;
    expect(live).toBeUndefined();
  });
});
