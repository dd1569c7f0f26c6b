import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createTestEnv, type TestAccount, type TestEnv } from '../helpers/env.ts';
import { adminUrl, databaseUrl } from '../helpers/databases.ts';
import { issueDoc, pdfPath, renderRunner, tempDataDir } from '../prints/helpers.ts';
import { dataUri, jpeg } from '../expenses/fixtures.ts';
import { commands } from '../../src/cli/commands.ts';
import { parseArgs } from '../../src/cli/args.ts';
import { openPool, type Database } from '../../src/platform/db/engine.ts';
import { migrate, MIGRATIONS_DIR } from '../../src/platform/db/migrate.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { createLogger } from '../../src/platform/logger.ts';
import { createFileStores, FileStores } from '../../src/platform/file-store/stores.ts';
import { DiskFileStore } from '../../src/platform/file-store/disk.ts';
import type { Spool } from '../../src/platform/file-store/spool.ts';
import { checkedBytes, readFile, type FileReading } from '../../src/platform/file-read.ts';
import { migrateFiles } from '../../src/platform/file-migrate.ts';
import { verifyFiles } from '../../src/platform/file-verify.ts';
import { storedFile } from '../../src/platform/files.ts';

// Issue 31, migration: books written before migration 0030 keep their files' bytes in PostgreSQL (inline
// `files.content`, or `file_chunks` for a large one). Reading them keeps working; `pinkas files migrate`
// moves them to the store in batches, resumable, with the service running, each copy checked before the
// database lets go of the bytes.
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const hex = (b: Uint8Array) => `'\\x${Buffer.from(b).toString('hex')}'::bytea`;

/** Inserts a file the way pinkas did before 0030: inline up to `chunk` bytes, else chunked (raw SQL, as its code wrote them). */
async function legacyFile(ex: { query(text: string): Promise<unknown> }, f: { id: string; businessId: string; bytes: Buffer; chunk?: number }) {
  const { id, businessId, bytes, chunk = 1000 } = f;
  if (bytes.length <= chunk) {
    await ex.query(`INSERT INTO files(id, business_id, sha256, mime, size, name, content, created_at)
      VALUES ('${id}', '${businessId}', '${sha(bytes)}', 'application/octet-stream', ${bytes.length}, '${id}.bin', ${hex(bytes)}, now())`);
    return;
  }
  await ex.query('BEGIN');
  for (let n = 0; n * chunk < bytes.length; n++) {
    await ex.query(
      `INSERT INTO file_chunks(file_id, business_id, n, bytes) VALUES ('${id}', '${businessId}', ${n}, ${hex(bytes.subarray(n * chunk, (n + 1) * chunk))})`,
    );
  }
  await ex.query(`INSERT INTO files(id, business_id, sha256, mime, size, name, content, chunk_size, created_at)
    VALUES ('${id}', '${businessId}', '${sha(bytes)}', 'application/zip', ${bytes.length}, '${id}.zip', NULL, ${chunk}, now())`);
  await ex.query('COMMIT');
}

describe('a database migrated before 0030, with files in it', () => {
  let name: string;
  let database: Database;
  let client: pg.Client;
  let r: FileReading;
  let filesDir: string;
  const inline = randomBytes(700);
  const chunked = randomBytes(2500);
  const third = randomBytes(1800);

  beforeAll(async () => {
    // Every migration before 0030, in a folder of their own: the schema the old code wrote to.
    const before = mkdtempSync(path.join(tmpdir(), 'pinkas-migrations-before-'));
    for (const f of readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql') && f < '0030'))
      copyFileSync(path.join(MIGRATIONS_DIR, f), path.join(before, f));
    name = `pinkas_t_legacy_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    database = await openPool('sandbox', databaseUrl(name), { poolSize: 3 });
    await migrate(database, before);
    rmSync(before, { recursive: true, force: true });
    client = new pg.Client({ connectionString: databaseUrl(name) });
    await client.connect();
    await client.query(`INSERT INTO businesses(id, account_id, created_by_key_id, name, tax_id, dealer_type, created_at, updated_at)
      VALUES ('biz_old', 'acct_old', 'key_old', 'ספרים ישנים', '516179157', 'company', now(), now())`);
    await legacyFile(client, { id: 'file_inline', businessId: 'biz_old', bytes: inline });
    await legacyFile(client, { id: 'file_chunked', businessId: 'biz_old', bytes: chunked });
    await legacyFile(client, { id: 'file_third', businessId: 'biz_old', bytes: third });
    // Now the change: 0030 applied to the books as they are.
    expect(await migrate(database)).toContain('0030_files_out_of_the_database.sql');
    filesDir = mkdtempSync(path.join(tmpdir(), 'pinkas-legacy-files-'));
    const config = loadConfig({ PINKAS_ENV: 'test', DATA_DIR: '/nonexistent', FILES_DIR: filesDir });
    r = { db: database.db, stores: createFileStores(config.files).sandbox, logger: createLogger('silent'), clock: new ManualClock() };
  });
  afterAll(async () => {
    await client?.end();
    await database?.close();
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    if (filesDir) rmSync(filesDir, { recursive: true, force: true });
  });

  const all = async (it: AsyncIterable<Buffer>) => {
    const parts: Buffer[] = [];
    for await (const p of it) parts.push(p);
    return Buffer.concat(parts);
  };

  it('keeps the old rows as they were (no store) and reads them, checked, from the database', async () => {
    const rows = (await client.query(`SELECT id, store, content IS NULL AS no_content, chunk_size FROM files ORDER BY id`)).rows;
    expect(rows).toEqual([
      { id: 'file_chunked', store: null, no_content: true, chunk_size: 1000 },
      { id: 'file_inline', store: null, no_content: false, chunk_size: null },
      { id: 'file_third', store: null, no_content: true, chunk_size: 1000 },
    ]);
    expect((await readFile(r, 'file_inline'))!.content.equals(inline)).toBe(true);
    expect((await readFile(r, 'file_chunked'))!.content.equals(chunked)).toBe(true);
    expect((await verifyFiles(r)).ok).toBe(true);
  });

  it('moves the files a batch at a time and can be stopped and resumed', async () => {
    const first = await migrateFiles(r, { batch: 1, maxBatches: 1 });
    expect(first).toMatchObject({ moved: 1, left: 2, problems: [] });
    const second = await migrateFiles(r, { batch: 1 });
    expect(second).toMatchObject({ moved: 2, left: 0, problems: [] });
    const rows = (await client.query(`SELECT id, store, content IS NULL AS no_content, chunk_size FROM files ORDER BY id`)).rows;
    for (const row of rows) expect(row).toMatchObject({ store: 'fs', no_content: true, chunk_size: null });
    expect((await client.query('SELECT count(*)::int AS n FROM file_chunks')).rows[0].n).toBe(0);
    for (const [id, bytes] of [
      ['file_inline', inline],
      ['file_chunked', chunked],
      ['file_third', third],
    ] as const) {
      expect((await readFile(r, id))!.content.equals(bytes), id).toBe(true);
      expect(await r.stores.current.stat(sha(bytes))).toMatchObject({ size: bytes.length });
    }
    expect(await migrateFiles(r, { batch: 10 })).toMatchObject({ moved: 0, left: 0 });
    expect((await verifyFiles(r)).ok).toBe(true);
  });

  it('a read that began on the database follows a move that happens under it (range read from the store)', async () => {
    const big = randomBytes(5000);
    await legacyFile(client, { id: 'file_moving', businessId: 'biz_old', bytes: big });
    const reading = checkedBytes(r, (await storedFile(r.db, 'file_moving'))!);
    const firstChunk = await reading.next();
    expect(firstChunk.value).toEqual(big.subarray(0, 1000));
    expect(await migrateFiles(r, { batch: 10 })).toMatchObject({ moved: 1, left: 0 });
    const rest = await all({ [Symbol.asyncIterator]: () => reading });
    expect(Buffer.concat([firstChunk.value as Buffer, rest]).equals(big)).toBe(true);
  });

  it('leaves in place a file whose bytes do not match its row, and one whose copy does not read back', async () => {
    const good = randomBytes(300);
    await legacyFile(client, { id: 'file_altered', businessId: 'biz_old', bytes: good });
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(`UPDATE files SET content = ${hex(randomBytes(300))} WHERE id = 'file_altered'`);
    await client.query('COMMIT');
    const fine = randomBytes(400);
    await legacyFile(client, { id: 'file_unlucky', businessId: 'biz_old', bytes: fine });

    // A store that loses bytes on the way (a broken disk, a proxy): the copy must be read back before the row lets go.
    const disk = r.stores.current as DiskFileStore;
    const lossy = Object.create(disk) as DiskFileStore;
    lossy.putSpool = async (spool: Spool) => {
      await disk.putSpool(spool);
      if (spool.sha256 === sha(fine)) await disk.putBytes(spool.sha256, Buffer.from('lost on the way'));
    };
    const result = await migrateFiles({ ...r, stores: new FileStores(lossy, { fs: lossy }) }, { batch: 10 });
    expect(result.moved).toBe(0);
    expect(result.left).toBe(2);
    expect(result.problems.map((p) => [p.fileId, p.problem.replace(/:.*$/s, '')])).toEqual([
      ['file_altered', 'its bytes could not be read whole and matching (left in place)'],
      ['file_unlucky', `the copy in ${disk.location} does not read back matching (left in place)`],
    ]);
    const rows = (await client.query(`SELECT id, store, content IS NULL AS no_content FROM files WHERE id IN ('file_altered', 'file_unlucky') ORDER BY id`))
      .rows;
    expect(rows).toEqual([
      { id: 'file_altered', store: null, no_content: false },
      { id: 'file_unlucky', store: null, no_content: false },
    ]);
    const audited = (await client.query(`SELECT entity_id FROM audit_log WHERE action = 'file.integrity_failed'`)).rows;
    expect(audited).toEqual([{ entity_id: 'file_altered' }]);
    // With a sound store the intact one moves; the altered one stays where it is, refused.
    expect(await migrateFiles(r, { batch: 10 })).toMatchObject({ moved: 1, left: 1 });
    expect((await readFile(r, 'file_unlucky'))!.content.equals(fine)).toBe(true);
  });

  it('refuses raw SQL that would put bytes back, or drop chunks of a file still in the database', async () => {
    const kept = randomBytes(2100);
    await legacyFile(client, { id: 'file_kept', businessId: 'biz_old', bytes: kept });
    const refused = (q: string) => expect(client.query(q)).rejects.toThrow(/immutable|append-only/);
    await refused(`DELETE FROM file_chunks WHERE file_id = 'file_kept'`);
    await refused(`UPDATE files SET content = ${hex(kept)} WHERE id = 'file_inline'`);
    await refused(`UPDATE files SET store = NULL WHERE id = 'file_inline'`);
    await refused(`UPDATE files SET store = 'fs', content = 'x'::bytea WHERE id = 'file_altered'`);
  });
});

describe('books of a running service, from before 0030', () => {
  let env: TestEnv;
  let a: TestAccount;
  let bid: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDataDir();
    env = await createTestEnv({ env: { DATA_DIR: dataDir, OPENFRMT_MAKER_TAX_ID: '123456782' } });
    a = await env.account();
    bid = (await env.business(a.test)).id;
  });
  afterAll(async () => {
    await env?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Puts every file of the business back into the database, inline or chunked, and removes its object: the books as 0029 left them. */
  async function asBefore(): Promise<Map<string, Buffer>> {
    const store = env.s.fileStores.sandbox.current;
    const bytes = new Map<string, Buffer>();
    const rows = await env.sql<any>('sandbox', `SELECT id, sha256, size FROM files WHERE business_id = '${bid}' ORDER BY id`);
    for (const row of rows) {
      const parts: Buffer[] = [];
      for await (const p of await store.read(row.sha256)) parts.push(p as Buffer);
      const content = Buffer.concat(parts);
      bytes.set(row.id, content);
      if (content.length <= 4096) {
        await env.tamper('sandbox', `UPDATE files SET store = NULL, content = ${hex(content)} WHERE id = '${row.id}'`);
      } else {
        const n = Math.ceil(content.length / 4096);
        const chunks = Array.from({ length: n }, (_, i) => `('${row.id}', '${bid}', ${i}, ${hex(content.subarray(i * 4096, (i + 1) * 4096))})`);
        await env.tamper('sandbox', `INSERT INTO file_chunks(file_id, business_id, n, bytes) VALUES ${chunks.join(', ')}`);
        await env.tamper('sandbox', `UPDATE files SET store = NULL, chunk_size = 4096 WHERE id = '${row.id}'`);
      }
      expect(await store.removeIfOlder(row.sha256, new Date(Date.now() + 3_600_000))).toBe(true);
    }
    return bytes;
  }

  it('prints, shares and downloads from the database, then migrates with the CLI and serves the same bytes from the store', async () => {
    const doc = await issueDoc(env, a.test, bid);
    expect(await renderRunner(env).runDue('sandbox')).toBe(1);
    const receipt = await jpeg(300, 200);
    expect((await env.call('POST', `/v1/businesses/${bid}/expenses/upload`, { key: a.test, body: { file: dataUri('image/jpeg', receipt) } })).status).toBe(201);
    const exported = await env.call('POST', `/v1/businesses/${bid}/exports/openfrmt`, { key: a.test, body: { from: '2026-01-01', to: '2026-12-31' } });
    expect(exported.status).toBe(201);
    const before = await asBefore();
    const inDb = await env.sql<any>(
      'sandbox',
      `SELECT count(*) FILTER (WHERE chunk_size IS NOT NULL)::int AS chunked, count(*)::int AS n FROM files WHERE store IS NULL`,
    );
    expect(inDb[0].n).toBe(before.size);
    expect(inDb[0].chunked).toBeGreaterThanOrEqual(1);

    const printed = await env.call('POST', pdfPath(bid, doc.id, 'print'), { key: a.test });
    expect(printed.status).toBe(200);
    const shared = await env.call('POST', pdfPath(bid, doc.id, 'share'), { key: a.test });
    expect((await env.call('GET', shared.body.path)).status).toBe(200);
    for (const [id, bytes] of before) expect(Buffer.from((await env.call('GET', `/v1/files/${id}`, { key: a.test })).raw).equals(bytes), id).toBe(true);

    const migrated = await commands['files migrate'].run(env.s, parseArgs(['files', 'migrate', '--mode', 'test', '--batch', '2', '--json']));
    expect(migrated.exitCode).toBe(0);
    expect(migrated.json.test).toMatchObject({ moved: before.size, left: 0, problems: [] });
    const left = await env.sql<any>(
      'sandbox',
      `SELECT (SELECT count(*)::int FROM files WHERE content IS NOT NULL OR store IS NULL) AS in_db, (SELECT count(*)::int FROM file_chunks) AS chunks`,
    );
    expect(left).toEqual([{ in_db: 0, chunks: 0 }]);
    for (const [id, bytes] of before) expect(Buffer.from((await env.call('GET', `/v1/files/${id}`, { key: a.test })).raw).equals(bytes), id).toBe(true);
    const verified = await commands['files verify'].run(env.s, parseArgs(['files', 'verify', '--mode', 'test', '--json']));
    expect(verified).toMatchObject({ exitCode: 0, json: { ok: true } });
    expect((await env.call('POST', `/v1/businesses/${bid}/backups`, { key: a.test })).status).toBe(201);
  });
});
