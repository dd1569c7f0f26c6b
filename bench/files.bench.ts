/**
 * File store figures (issue 31), on a private embedded cluster (so its WAL is this bench's alone):
 * (1) WAL bytes per stored PDF pair: the two `files` rows as written before migration 0030 (the bytes inline)
 *     and now (the metadata; the bytes go to the store, outside PostgreSQL);
 * (2) the database's growth at N documents with their PDFs, before and after (and the disk store's size);
 * (3) download throughput of GET /v1/files/{id} from each backend: the disk store, an S3-protocol server on
 *     loopback (s3rver, a Node fake: its figure is a floor, not what a real bucket gives), and, for reference,
 *     a row not yet migrated (bytes in PostgreSQL). Small files (the signed PDFs) and one large file (spooled
 *     and checked before it is sent).
 * (4) puts into the disk store: the event loop's CPU a put. BENCH_FILES_PARTS=wal,downloads,puts picks parts.
 * The PDFs are real (renderDocumentPair, signed), 100 distinct pairs, each stored document a copy made unique.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/platform/config.ts';
import { systemClock } from '../src/platform/clock.ts';
import { createLogger } from '../src/platform/logger.ts';
import { queryOne } from '../src/platform/db/sql.ts';
import { insertInto } from '../src/platform/db/insert-values.ts';
import { files } from '../src/platform/db/tables.ts';
import type { Database } from '../src/platform/db/engine.ts';
import { newId } from '../src/platform/ids.ts';
import { putBytes, recordFile } from '../src/platform/files.ts';
import { createServices } from '../src/services.ts';
import { buildApp } from '../src/app.ts';
import { createAccount } from '../src/accounts/accounts.ts';
import { mintKey } from '../src/accounts/keys.ts';
import { renderDocumentPair } from '../src/pdf/render.ts';
import { sampleModel } from '../src/pdf/samples.ts';
import { generateSelfSignedP12, parseP12 } from '../src/pdf/certificate.ts';
import { pdfSigner } from '../src/pdf/sign.ts';
import { startS3Server } from '../test/helpers/s3-server.ts';
import { embeddedDatabases } from './databases.ts';
import { processCpuMs } from './issue/stats.ts';
import { DiskFileStore } from '../src/platform/file-store/disk.ts';

const line = (label: string, value: string) => console.log(`${label.padEnd(72)} ${value}`);
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
/** Documents stored for the WAL and size figures. */
const N = Number(process.env.FILES_BENCH_DOCUMENTS ?? 1000);

async function realPairs(count: number): Promise<{ origin: Buffer; copy: Buffer }[]> {
  const at = new Date();
  const signer = pdfSigner(parseP12(generateSelfSignedP12({ commonName: 'bench', password: 'b', now: at }), 'b'), { name: 'pinkas' });
  const base = sampleModel(320, 'classic');
  const pairs = [];
  for (let i = 0; i < count; i++) {
    const model = {
      ...base,
      docNumber: 7000 + i,
      note: `הזמנה ${i * 37}`,
      lines: base.lines.map((l, j) => ({ ...l, description: `${l.description} ${i}-${j}` })),
    };
    pairs.push(await renderDocumentPair(model, { signer, at }));
  }
  return pairs;
}

/** Document i's two PDFs: a real pair with a comment after %%EOF that makes its content (and sha256) its own. */
const pairOf = (pairs: { origin: Buffer; copy: Buffer }[], i: number) => {
  const p = pairs[i % pairs.length];
  const tag = Buffer.from(`\n% bench document ${i}\n`);
  return [Buffer.concat([p.origin, tag]), Buffer.concat([p.copy, tag])];
};

const walLsn = async (d: Database) => String((await queryOne<{ lsn: string }>(d.db, sql`SELECT pg_current_wal_insert_lsn()::text AS lsn`))!.lsn);
const walSince = async (d: Database, from: string) =>
  Number((await queryOne<{ n: string }>(d.db, sql`SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ${from}::pg_lsn)::bigint AS n`))!.n);
const dbSize = async (d: Database) => Number((await queryOne<{ n: string }>(d.db, sql`SELECT pg_database_size(current_database()) AS n`))!.n);
const filesSize = async (d: Database) =>
  Number((await queryOne<{ n: string }>(d.db, sql`SELECT pg_total_relation_size('files') + pg_total_relation_size('file_chunks') AS n`))!.n);

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/** Stores N documents' PDF pairs in `d`, each pair in its own transaction as the render job does; answers WAL and growth. */
async function storeDocuments(d: Database, write: (tx: Database['db'], i: number, pdfs: Buffer[]) => Promise<void>, pairs: { origin: Buffer; copy: Buffer }[]) {
  await d.db.execute(sql`INSERT INTO businesses(id, account_id, created_by_key_id, name, tax_id, dealer_type, created_at, updated_at)
    VALUES ('biz_bench', 'acct_bench', 'key_bench', 'bench', '516179157', 'company', now(), now()) ON CONFLICT DO NOTHING`);
  await d.db.execute(sql`CHECKPOINT`);
  const size0 = await dbSize(d);
  const lsn = await walLsn(d);
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const pdfs = pairOf(pairs, i);
    await d.db.transaction((tx) => write(tx as unknown as Database['db'], i, pdfs));
  }
  const ms = performance.now() - t0;
  const wal = await walSince(d, lsn);
  await d.db.execute(sql`VACUUM ANALYZE files`);
  return { walPerPair: wal / N, growth: (await dbSize(d)) - size0, filesTable: await filesSize(d), ms };
}

/** The rows as pinkas wrote them before 0030: the bytes inline in files.content (a PDF is far under a chunk). */
const inlineRow = (at: Date, bytes: Buffer, name: string) =>
  insertInto(files, {
    id: newId('file', at.getTime()),
    businessId: 'biz_bench',
    sha256: sha(bytes),
    mime: 'application/pdf',
    size: bytes.length,
    name,
    content: bytes,
    createdAt: at,
  });

async function walAndSize(pairs: { origin: Buffer; copy: Buffer }[]) {
  const before = await embeddedDatabases(2);
  const after = await embeddedDatabases(2);
  const filesDir = mkdtempSync(path.join(tmpdir(), 'pinkas-bench-files-'));
  try {
    const inline = await storeDocuments(
      before.sandbox,
      async (tx, i, [origin, copy]) => {
        await tx.execute(inlineRow(new Date(), origin, `${i}-origin.pdf`));
        await tx.execute(inlineRow(new Date(), copy, `${i}-copy.pdf`));
      },
      pairs,
    );
    const config = loadConfig({ PINKAS_ENV: 'test', DATA_DIR: filesDir });
    const s = createServices(config, systemClock, createLogger('silent'), { live: after.live, sandbox: after.sandbox });
    const store = s.fileStores.sandbox.current;
    let putMs = 0;
    const stored = await storeDocuments(
      after.sandbox,
      async (tx, i, [origin, copy]) => {
        // The puts happen before the transaction in the render job; timed apart, outside the WAL figure's meaning.
        const t = performance.now();
        const objects = [await putBytes(store, origin), await putBytes(store, copy)];
        putMs += performance.now() - t;
        await recordFile(tx, new Date(), { businessId: 'biz_bench', object: objects[0], mime: 'application/pdf', name: `${i}-origin.pdf` });
        await recordFile(tx, new Date(), { businessId: 'biz_bench', object: objects[1], mime: 'application/pdf', name: `${i}-copy.pdf` });
      },
      pairs,
    );
    const pdfBytes = pairs.reduce((n, p) => n + p.origin.length + p.copy.length, 0) / pairs.length;
    console.log(`\n(1, 2) ${N} documents, a signed PDF pair each (${(pdfBytes / 1024).toFixed(1)} KB a pair on average), one transaction a pair`);
    line('WAL per stored PDF pair, bytes inline (before 0030)', `${Math.round(inline.walPerPair)} B`);
    line('WAL per stored PDF pair, metadata rows (the bytes in the store)', `${Math.round(stored.walPerPair)} B`);
    line(`database growth at ${N} documents, before → after`, `${mb(inline.growth)} → ${mb(stored.growth)}`);
    line(`files + file_chunks (tables, TOAST, indexes) at ${N}, before → after`, `${mb(inline.filesTable)} → ${mb(stored.filesTable)}`);
    line(`the disk store at ${N} documents`, mb(await folderBytes(path.join(filesDir, 'files', 'sandbox'))));
    line(
      `the same at 100,000 documents (×${100_000 / N}, linear)`,
      `${mb((inline.filesTable * 100_000) / N)} → ${mb((stored.filesTable * 100_000) / N)} in PostgreSQL`,
    );
    line(
      'time to store a pair: before / after (of which the two puts, fsynced)',
      `${(inline.ms / N).toFixed(2)} / ${(stored.ms / N).toFixed(2)} ms (${(putMs / N).toFixed(2)} ms)`,
    );
  } finally {
    rmSync(filesDir, { recursive: true, force: true });
    await before.close();
    await after.close();
  }
}

/** Requests `urls` with `concurrency` in flight (a second pass after a warm-up); answers requests/s and MB/s. */
async function throughput(app: Awaited<ReturnType<typeof buildApp>>, key: string, urls: string[], concurrency: number) {
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    return res.rawPayload.length;
  };
  for (const u of urls.slice(0, 10)) await get(u);
  let next = 0;
  let bytes = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const got = await get(urls[next++]);
        bytes += got;
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  return `${(urls.length / s).toFixed(urls.length / s < 10 ? 2 : 0)} downloads/s, ${(bytes / 1_048_576 / s).toFixed(1)} MB/s`;
}

async function downloads(pairs: { origin: Buffer; copy: Buffer }[]) {
  const s3 = await startS3Server('bench');
  const sets = await embeddedDatabases(4);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'pinkas-bench-download-'));
  try {
    console.log('\n(3) GET /v1/files/{id} in process (auth, the row, the read, the sha256 check, the answer); 400 PDFs, then one 64 MB file 4 times');
    const large = randomBytes(64 * 1_048_576);
    for (const backend of ['fs', 's3', 'database'] as const) {
      const env = { PINKAS_ENV: 'test', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '10000000', DATA_DIR: dataDir, ...(backend === 's3' ? s3.env : {}) };
      const config = loadConfig({ ...env, FILES_S3_PREFIX: backend === 's3' ? `${randomBytes(3).toString('hex')}/` : '' });
      const s = createServices(config, systemClock, createLogger('silent'), { live: sets.live, sandbox: sets.sandbox });
      const app = await buildApp(s);
      const account = await createAccount(sets.live.db, new Date(), { name: `bench ${backend}`, approvalStatus: 'approved' });
      const { secret: key } = await mintKey(sets.live.db, new Date(), { accountId: account.id, mode: 'test' });
      const biz = (
        await app.inject({
          method: 'POST',
          url: '/v1/businesses',
          headers: { 'x-api-key': key },
          payload: { name: 'עסק', taxId: '516179157', dealerType: 'company' },
        })
      ).json().business.id;
      const ids: string[] = [];
      const add = async (bytes: Buffer, name: string) => {
        if (backend === 'database') {
          const at = new Date();
          const row = await queryOne<{ id: string }>(
            sets.sandbox.db,
            sql`${insertInto(files, { id: newId('file', at.getTime()), businessId: biz, sha256: sha(bytes), mime: 'application/pdf', size: bytes.length, name, content: bytes, createdAt: at })} RETURNING id`,
          );
          return row!.id;
        }
        const object = await putBytes(s.fileStores.sandbox.current, bytes);
        return (await sets.sandbox.db.transaction((tx) => recordFile(tx, new Date(), { businessId: biz, object, mime: 'application/pdf', name }))).id;
      };
      for (let i = 0; i < 200; i++) for (const pdf of pairOf(pairs, 50_000 + i)) ids.push(await add(pdf, `${i}.pdf`));
      const urls = ids.map((id) => `/v1/files/${id}`);
      line(`${backend}: small PDFs, 1 at a time`, await throughput(app, key, urls, 1));
      line(`${backend}: small PDFs, 8 in flight`, await throughput(app, key, urls, 8));
      if (backend !== 'database') {
        // A database row holds at most a chunk inline; a large file there was chunked (not written any more).
        const bigId = await add(Buffer.concat([large, Buffer.from(backend)]), 'large.zip');
        line(`${backend}: one 64 MB file, 4 times (checked in a spool, then sent)`, await throughput(app, key, Array(4).fill(`/v1/files/${bigId}`), 1));
      }
      await app.close();
      await s.pdfRenderer.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await sets.close();
    await s3.close();
  }
}

/**
 * (4) Puts into the disk store as the render job makes them (16 KB objects, 8 in flight): puts a second and the event
 * loop's CPU a put (/proc, this thread alone). The store's folder is new and nothing is deleted before it: on an ext4
 * without a journal, files deleted in the last minutes make each new inode dearer (docs/benchmarks.md).
 */
async function puts(count: number) {
  const dir = mkdtempSync(path.join(tmpdir(), 'pinkas-bench-puts-'));
  try {
    const store = new DiskFileStore(dir);
    const objects = Array.from({ length: 2 * count }, () => randomBytes(16_000));
    console.log(`\n(4) puts into the disk store: 16 KB objects, 8 in flight (spool, fsync, rename, the folder's fsync)`);
    for (const [round, from] of [0, count].entries()) {
      let next = 0;
      const cpu0 = processCpuMs(process.pid, process.pid);
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < count) {
            const bytes = objects[from + next++];
            await store.putBytes(sha(bytes), bytes);
          }
        }),
      );
      const s = (performance.now() - t0) / 1000;
      line(
        `${count} puts, round ${round + 1}`,
        `${(count / s).toFixed(0)} puts/s   event loop ${((processCpuMs(process.pid, process.pid) - cpu0) / count).toFixed(3)} ms a put`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  const parts = process.env.BENCH_FILES_PARTS?.split(',') ?? ['wal', 'downloads', 'puts'];
  const pairs = parts.some((p) => p !== 'puts') ? await realPairs(100) : [];
  if (parts.includes('wal')) await walAndSize(pairs);
  if (parts.includes('downloads')) await downloads(pairs);
  if (parts.includes('puts')) await puts(1500);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
