import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestEnv, TAX_IDS, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { commands } from '../../src/cli/commands.ts';
import { parseArgs } from '../../src/cli/args.ts';
import { unzipSync } from 'fflate';
import { issueFixture } from '../exports/fixture.ts';
import { runOpenfrmtExport } from '../../src/exports/run.ts';
import { getOwnedBusiness } from '../../src/businesses/records.ts';
import { CHUNK_SIZE, fileContent, fileStream, storeFile, storeFileFromPath, storeFileStream } from '../../src/platform/files.ts';

// Issue 17: files larger than one chunk are stored in file_chunks (migration 0012), written and read
// a chunk at a time, protected like files, downloaded as a stream, backed up and restored.
let env: TestEnv;
let target: TestEnv;
let a: TestAccount;
let targetAccount: TestAccount;
let bid: string;
let work: string;
const at = new Date('2026-03-01T10:00:00Z');
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const q = (v: string) => `'${v.replace(/'/g, "''")}'`;

beforeAll(async () => {
  env = await createTestEnv();
  target = await createTestEnv();
  a = await env.account();
  targetAccount = await target.account({ name: 'restored here' });
  bid = (await env.business(a.test, { name: 'קבצים גדולים בע"מ', taxId: TAX_IDS.company2 })).id;
  work = mkdtempSync(path.join(tmpdir(), 'pinkas-chunks-test-'));
  chmodSync(work, 0o755);
});
afterAll(async () => {
  await env?.close();
  await target?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function all(it: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of it) parts.push(c);
  return Buffer.concat(parts);
}

/** Yields `bytes` in uneven pieces (the storer must re-cut them into whole chunks). */
function* pieces(bytes: Buffer, sizes = [1, 7, 300, 2049, 33]): Generator<Uint8Array> {
  for (let i = 0, k = 0; i < bytes.length; k++) {
    const n = sizes[k % sizes.length];
    yield bytes.subarray(i, i + n);
    i += n;
  }
}

describe('chunked storage', () => {
  it('writes content larger than one chunk as chunks (content NULL), reads it back a chunk at a time, and stores the same content once', async () => {
    const db = env.s.databases.sandbox.db;
    const bytes = randomBytes(3500);
    const f = await db.transaction((tx) =>
      storeFileStream(tx, at, { businessId: bid, mime: 'application/octet-stream', name: 'x.bin', source: pieces(bytes), chunkSize: 1000 }),
    );
    expect(f).toMatchObject({ existed: false, size: 3500, sha256: sha(bytes) });
    const [row] = await env.sql<any>('sandbox', `SELECT content IS NULL AS no_content, chunk_size FROM files WHERE id = ${q(f.id)}`);
    expect(row).toEqual({ no_content: true, chunk_size: 1000 });
    const chunks = await env.sql<any>('sandbox', `SELECT n, length(bytes) AS len, business_id FROM file_chunks WHERE file_id = ${q(f.id)} ORDER BY n`);
    expect(chunks).toEqual([0, 1, 2, 3].map((n) => ({ n, len: n < 3 ? 1000 : 500, business_id: bid })));
    const streamed: Buffer[] = [];
    for await (const c of fileStream(db, f.id)) streamed.push(c);
    expect(streamed.map((c) => c.length)).toEqual([1000, 1000, 1000, 500]);
    expect(Buffer.concat(streamed).equals(bytes)).toBe(true);
    expect((await fileContent(db, f.id))!.content.equals(bytes)).toBe(true);

    // Again (other pieces, another transaction): the existing file, and no chunks left behind.
    const again = await db.transaction((tx) =>
      storeFileStream(tx, at, { businessId: bid, mime: 'application/octet-stream', name: 'y.bin', source: pieces(bytes, [999]), chunkSize: 1000 }),
    );
    expect(again).toMatchObject({ existed: true, id: f.id });
    const [{ n }] = await env.sql<any>('sandbox', `SELECT count(*)::int AS n FROM file_chunks WHERE business_id = ${q(bid)} AND file_id <> ${q(f.id)}`);
    expect(n).toBe(0);
  });

  it('keeps content of one chunk or less inline, as before', async () => {
    const db = env.s.databases.sandbox.db;
    for (const size of [0, 10, 1000]) {
      const bytes = randomBytes(size);
      const f = await db.transaction((tx) =>
        storeFileStream(tx, at, { businessId: bid, mime: 'application/octet-stream', name: 's.bin', source: pieces(bytes), chunkSize: 1000 }),
      );
      const [row] = await env.sql<any>(
        'sandbox',
        `SELECT chunk_size, length(content) AS len, (SELECT count(*)::int FROM file_chunks WHERE file_id = f.id) AS chunks FROM files f WHERE id = ${q(f.id)}`,
      );
      expect(row).toEqual({ chunk_size: null, len: size, chunks: 0 });
      expect((await all(fileStream(db, f.id))).equals(bytes)).toBe(true);
    }
  });

  it('storeFile chunks content over CHUNK_SIZE; storeFileFromPath reads a file; GET /v1/files/{id} streams it whole', async () => {
    const db = env.s.databases.sandbox.db;
    const big = randomBytes(CHUNK_SIZE * 2 + 12345);
    const f = await db.transaction((tx) => storeFile(tx, at, { businessId: bid, bytes: big, mime: 'application/zip', name: 'big.zip' }));
    const [row] = await env.sql<any>(
      'sandbox',
      `SELECT chunk_size, (SELECT count(*)::int FROM file_chunks WHERE file_id = f.id) AS chunks FROM files f WHERE id = ${q(f.id)}`,
    );
    expect(row).toEqual({ chunk_size: CHUNK_SIZE, chunks: 3 });
    const res = await env.call('GET', `/v1/files/${f.id}`, { key: a.test });
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(big.length));
    expect(res.headers['x-content-sha256']).toBe(sha(big));
    expect(Buffer.from(res.raw).equals(big)).toBe(true);
    // Another account's key does not reach it.
    const other = await env.account();
    expect((await env.call('GET', `/v1/files/${f.id}`, { key: other.test })).status).toBe(404);

    const p = path.join(work, 'from-disk.bin');
    const onDisk = randomBytes(5000);
    writeFileSync(p, onDisk);
    const g = await db.transaction((tx) =>
      storeFileFromPath(tx, at, { businessId: bid, path: p, mime: 'application/octet-stream', name: 'd.bin', chunkSize: 2048 }),
    );
    expect(g).toMatchObject({ existed: false, size: 5000, sha256: sha(onDisk) });
    expect((await all(fileStream(db, g.id))).equals(onDisk)).toBe(true);
  });
});

describe('the OPENFRMT zip', () => {
  it('is stored from its temporary file in chunks and downloads whole', async () => {
    const b = await env.business(a.test);
    await issueFixture(env, a, b.id);
    env.clock.advance(60_000);
    const business = await getOwnedBusiness(env.s.databases.sandbox.db, a.id, b.id);
    const r = await runOpenfrmtExport(
      env.s,
      env.s.databases.sandbox,
      business,
      { from: '2026-01-01', to: '2026-12-31' },
      { accountId: a.id, keyId: a.testKeyId },
      { fileChunkSize: 512 },
    );
    expect(r.exportRun.status).toBe('completed');
    expect(r.exportRun.verification!.ok).toBe(true);
    const [row] = await env.sql<any>(
      'sandbox',
      `SELECT chunk_size, content IS NULL AS no_content, (SELECT count(*)::int FROM file_chunks WHERE file_id = f.id) AS chunks FROM files f WHERE id = ${q(r.file.id)}`,
    );
    expect(row).toEqual({ chunk_size: 512, no_content: true, chunks: Math.ceil(r.file.size / 512) });
    expect(row.chunks).toBeGreaterThan(1);
    const res = await env.call('GET', `/v1/files/${r.file.id}`, { key: a.test });
    expect(res.status).toBe(200);
    expect(sha(res.raw)).toBe(r.file.sha256);
    expect(Object.keys(unzipSync(new Uint8Array(res.raw))).sort()).toEqual([`${r.exportRun.directory}/BKMVDATA.TXT`, `${r.exportRun.directory}/INI.TXT`]);
  });
});

describe('protection (file_chunks_complete, file_chunks_immutable, file_chunks_no_truncate, files_immutable)', () => {
  it('refuses to change, remove or add to the chunks of a stored file, and to make a chunked file inline', async () => {
    const db = env.s.databases.sandbox.db;
    const bytes = randomBytes(2500);
    const f = await db.transaction((tx) =>
      storeFileStream(tx, at, { businessId: bid, mime: 'application/octet-stream', name: 'p.bin', source: [bytes], chunkSize: 1000 }),
    );
    const probe = `SELECT n, md5(bytes) FROM file_chunks WHERE file_id = ${q(f.id)} ORDER BY n`;
    const before = await env.sql('sandbox', probe);
    const refused = async (statement: string, why: RegExp) => {
      const err = await env.sql('sandbox', statement).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, statement).not.toBeNull();
      expect(String((err as any).cause?.message ?? (err as Error).message), statement).toMatch(why);
      expect(await env.sql('sandbox', probe)).toEqual(before);
    };
    await refused(`UPDATE file_chunks SET bytes = 'forged'::bytea WHERE file_id = ${q(f.id)} AND n = 1`, /file_chunks is append-only: UPDATE refused/);
    await refused(`DELETE FROM file_chunks WHERE file_id = ${q(f.id)}`, /file_chunks is append-only: DELETE refused/);
    await refused('TRUNCATE file_chunks CASCADE', /file_chunks is append-only: TRUNCATE refused/);
    await refused(
      `INSERT INTO file_chunks(file_id, business_id, n, bytes) VALUES (${q(f.id)}, ${q(bid)}, 3, 'more'::bytea)`,
      /already stored; its chunks are complete/,
    );
    await refused(`UPDATE files SET chunk_size = NULL, content = 'x'::bytea WHERE id = ${q(f.id)}`, /stored content is immutable/);
    await refused(`DELETE FROM files WHERE id = ${q(f.id)}`, /file_chunks/);
    expect((await all(fileStream(db, f.id))).equals(bytes)).toBe(true);
  });
});

describe('backup and restore of a business with a chunked file', () => {
  it('carries the chunked file (bytes once, as its files/ entry) and restores it chunked, byte for byte', async () => {
    const db = env.s.databases.sandbox.db;
    const bytes = randomBytes(CHUNK_SIZE + 4321);
    const f = await db.transaction((tx) => storeFile(tx, at, { businessId: bid, bytes, mime: 'application/octet-stream', name: 'carried.bin' }));
    const r = await env.call('POST', `/v1/businesses/${bid}/backups`, { key: a.test });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.backup.summary.tables.file_chunks).toBeGreaterThanOrEqual(2);
    const zip = await env.call('GET', `/v1/files/${r.body.file.id}`, { key: a.test });
    expect(zip.status).toBe(200);
    const zipPath = path.join(work, 'backup.zip');
    writeFileSync(zipPath, zip.raw);
    const result = await commands['backups restore'].run(
      target.s,
      parseArgs(['backups', 'restore', '--file', zipPath, '--mode', 'test', '--json', '--account', targetAccount.id]),
    );
    expect(result.json).toMatchObject({ businessId: bid });
    const rows = (e: TestEnv) =>
      e.sql(
        'sandbox',
        `SELECT f.id, f.sha256, f.size, f.chunk_size, f.content IS NULL AS no_content,
                               (SELECT array_agg(md5(c.bytes) ORDER BY c.n) FROM file_chunks c WHERE c.file_id = f.id) AS chunks
                        FROM files f WHERE f.business_id = ${q(bid)} AND f.id NOT IN (SELECT file_id FROM backups) ORDER BY f.id`,
      );
    const restored = await rows(target);
    // The backup zip itself (over a chunk here, so chunked too) is not in the backup.
    const [zipRow] = await env.sql<any>('sandbox', `SELECT chunk_size FROM files WHERE id = ${q(r.body.file.id)}`);
    expect(zipRow.chunk_size).toBe(CHUNK_SIZE);
    expect(restored).toEqual(await rows(env));
    expect(restored.find((x: any) => x.id === f.id)).toMatchObject({ chunk_size: CHUNK_SIZE, no_content: true });
    expect((await fileContent(target.s.databases.sandbox.db, f.id))!.content.equals(bytes)).toBe(true);
    // Restored rows are protected again.
    await expect(target.sql('sandbox', `DELETE FROM file_chunks WHERE file_id = ${q(f.id)}`)).rejects.toThrow();
  });
});
