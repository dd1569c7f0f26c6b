import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.ts';
import { issueDoc, pdfPath, renderRunner, tempDataDir } from '../prints/helpers.ts';
import { dataUri, multipart, png, pdf } from '../expenses/fixtures.ts';
import { commands } from '../../src/cli/commands.ts';
import { parseArgs } from '../../src/cli/args.ts';

// Issue 31, "done when": issuing, printing, sharing, uploading, exporting, backing up and restoring work on
// both backends, and no file byte is left in PostgreSQL. The same walk on the disk store and on a bucket of a
// local S3-protocol server (s3rver); the restore goes to another install with a store of its own.
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
let s3: S3TestServer;
let dataDir: string;

beforeAll(async () => {
  s3 = await startS3Server();
  // One DATA_DIR for both installs of a walk: the seal key the backup is written with is the restore's too.
  dataDir = tempDataDir();
});
afterAll(async () => {
  await s3?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The environment of an install on `backend`; on s3, a key prefix of its own in the one bucket. */
function storeEnv(backend: string): Record<string, string> {
  const base = { DATA_DIR: dataDir, OPENFRMT_MAKER_TAX_ID: '123456782' };
  return backend === 's3' ? { ...base, ...s3.env, FILES_S3_PREFIX: `install-${randomBytes(4).toString('hex')}/` } : base;
}

describe.each(['fs', 's3'])('on the %s store', (backend) => {
  let env: TestEnv;
  let target: TestEnv;
  let a: TestAccount;
  let bid: string;

  beforeAll(async () => {
    env = await createTestEnv({ env: storeEnv(backend) });
    target = await createTestEnv({ env: storeEnv(backend) });
    a = await env.account();
    bid = (await env.business(a.test)).id;
  });
  afterAll(async () => {
    await env?.close();
    await target?.close();
  });

  async function download(e: TestEnv, key: string, fileId: string): Promise<Buffer> {
    const res = await e.call('GET', `/v1/files/${fileId}`, { key });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers['x-content-sha256']).toBe(sha(res.raw));
    return Buffer.from(res.raw);
  }

  it('keeps a logo, and the signed PDFs of an issued document, in the store; prints and shares them', async () => {
    const logo = await png(60, 30);
    const patched = await env.call('PATCH', `/v1/businesses/${bid}`, { key: a.test, body: { branding: { logo: dataUri('image/png', logo) } } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const logoId = patched.body.business.branding.logoRef.fileId;
    expect((await download(env, a.test, logoId)).equals(logo)).toBe(true);

    const doc = await issueDoc(env, a.test, bid);
    expect(await renderRunner(env).runDue('sandbox')).toBe(1);
    const printed = await env.call('POST', pdfPath(bid, doc.id, 'print'), { key: a.test });
    expect(printed.status).toBe(200);
    expect(printed.headers['x-print-variant']).toBe('origin');
    expect(printed.raw.subarray(0, 5).toString()).toBe('%PDF-');
    const shared = await env.call('POST', pdfPath(bid, doc.id, 'share'), { key: a.test });
    expect(shared.status).toBe(200);
    const viaLink = await env.call('GET', shared.body.path);
    expect(viaLink.status).toBe(200);
    expect(viaLink.headers['x-print-variant']).toBe('copy');
    expect(sha(viaLink.raw)).toBe((await env.sql<any>('sandbox', `SELECT sha256 FROM files WHERE id = '${shared.body.fileId}'`))[0].sha256);

    // A logo given at issue (documents/issue.ts stores it with the database handle's bound store).
    const other = await png(40, 40, '#abcdef');
    const draft = await env.call('POST', `/v1/businesses/${bid}/documents`, {
      key: a.test,
      body: {
        docType: 320,
        party: { name: 'לקוח' },
        lines: [{ description: 'x', quantity: 1, unitPriceExVat: 1000 }],
        payments: [{ method: 'cash', amount: 1180 }],
      },
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const issued = await env.call('POST', `/v1/businesses/${bid}/documents/${draft.body.document.id}/issue`, {
      key: a.test,
      body: { branding: { logo: dataUri('image/png', other) } },
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    const [row] = await env.sql<any>('sandbox', `SELECT store FROM files WHERE business_id = '${bid}' AND sha256 = '${sha(other)}'`);
    expect(row.store).toBe(backend);
    expect(await renderRunner(env).runDue('sandbox')).toBe(1);
  });

  it('streams an uploaded receipt into the store (multipart and JSON), refusing one over the limit', async () => {
    const receipt = pdf('a receipt, streamed');
    const m = multipart('file', 'r.pdf', { mime: 'application/pdf', bytes: receipt });
    const up = await env.call('POST', `/v1/businesses/${bid}/expenses/upload`, { key: a.test, payload: m.payload, headers: m.headers });
    expect(up.status, JSON.stringify(up.body)).toBe(201);
    expect((await download(env, a.test, up.body.expense.receiptFileId)).equals(receipt)).toBe(true);
    const image = await png(90, 90, '#123456');
    const json = await env.call('POST', `/v1/businesses/${bid}/expenses/upload`, { key: a.test, body: { file: dataUri('image/png', image) } });
    expect(json.status, JSON.stringify(json.body)).toBe(201);
    expect((await download(env, a.test, json.body.expense.receiptFileId)).equals(image)).toBe(true);
    const huge = Buffer.concat([receipt.subarray(0, 20), Buffer.alloc(env.s.config.expenses.uploadMaxBytes + 1, 0x20)]);
    const big = multipart('file', 'big.pdf', { mime: 'application/pdf', bytes: huge });
    const refused = await env.call('POST', `/v1/businesses/${bid}/expenses/upload`, { key: a.test, payload: big.payload, headers: big.headers });
    expect(refused.status).toBe(413);
    expect(await env.s.fileStores.sandbox.current.stat(sha(huge))).toBeNull();
  });

  it('puts an OPENFRMT export into the store and serves it back whole', async () => {
    const r = await env.call('POST', `/v1/businesses/${bid}/exports/openfrmt`, { key: a.test, body: { from: '2026-01-01', to: '2026-12-31' } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const zip = await download(env, a.test, r.body.file.id);
    expect(sha(zip)).toBe(r.body.file.sha256);
    expect(Object.keys(unzipSync(new Uint8Array(zip))).some((n) => n.endsWith('BKMVDATA.TXT'))).toBe(true);
  });

  it('names the store in every row and keeps no file byte in PostgreSQL', async () => {
    const rows = await env.sql<any>('sandbox', `SELECT sha256, store, content IS NULL AS no_content, chunk_size FROM files WHERE business_id = '${bid}'`);
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const row of rows) {
      expect(row).toMatchObject({ store: backend, no_content: true, chunk_size: null });
      expect(await env.s.fileStores.sandbox.current.stat(row.sha256)).not.toBeNull();
    }
    expect((await env.sql<any>('sandbox', 'SELECT count(*)::int AS n FROM file_chunks'))[0].n).toBe(0);
    expect(env.s.fileStores.sandbox.current.backend).toBe(backend);
  });

  it("backs the business up with every file, and restores it into another install's own store", async () => {
    const made = await env.call('POST', `/v1/businesses/${bid}/backups`, { key: a.test });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const zip = await download(env, a.test, made.body.file.id);
    const entries = unzipSync(new Uint8Array(zip));
    const files = await env.sql<any>('sandbox', `SELECT id, sha256 FROM files WHERE business_id = '${bid}' AND id <> '${made.body.file.id}'`);
    for (const f of files) expect(sha(entries[`files/${f.sha256}`]), f.id).toBe(f.sha256);

    const file = path.join(dataDir, `backup-${backend}.zip`);
    writeFileSync(file, zip);
    const owner = await target.account({ name: 'restored here' });
    const restored = await commands['backups restore'].run(
      target.s,
      parseArgs(['backups', 'restore', '--file', file, '--mode', 'test', '--json', '--account', owner.id]),
    );
    expect(restored.json).toMatchObject({ businessId: bid, files: files.length });
    const there = await target.sql<any>('sandbox', `SELECT id, sha256, store, content IS NULL AS no_content FROM files WHERE business_id = '${bid}'`);
    expect(there.map((f: any) => f.sha256).sort()).toEqual(files.map((f: any) => f.sha256).sort());
    for (const f of there) {
      expect(f).toMatchObject({ store: backend, no_content: true });
      expect(await target.s.fileStores.sandbox.current.stat(f.sha256)).not.toBeNull();
      expect(sha(await download(target, owner.test, f.id))).toBe(f.sha256);
    }
    // The other install's store is its own: another folder, or another prefix of the bucket.
    expect(target.s.fileStores.sandbox.current.location).not.toBe(env.s.fileStores.sandbox.current.location);
  });
});
