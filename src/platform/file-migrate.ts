import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { errorSummary } from './logger.ts';
import { queryOne } from './db/sql.ts';
import { putSpool, storedFile, type StoredFile } from './files.ts';
import { checkedBytes, type FileReading } from './file-read.ts';
import { fileIds, type FileProblem } from './file-verify.ts';
import { discardSpool, spoolStream } from './file-store/spool.ts';
import type { FileStore } from './file-store/store.ts';

export interface MigrateResult {
  /** Files whose bytes were moved into the configured store. */
  moved: number;
  bytes: number;
  /** Files left where they are, and why (their bytes do not match their row, the copy did not read back). */
  problems: FileProblem[];
  /** Files still to move (0 once done; more when stopped by maxBatches). */
  left: number;
}

/** Reads back what the store now holds and hashes it: a put is trusted only once its bytes came back whole. */
async function copyMatches(store: FileStore, file: StoredFile): Promise<boolean> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const piece of await store.read(file.sha256)) {
    hash.update(piece as Buffer);
    size += (piece as Buffer).length;
  }
  return size === file.size && hash.digest('hex') === file.sha256;
}

/**
 * Moves one file's bytes: read from where they are, checked against the row (spooled locally, so memory stays
 * bounded), put into the store, read back and checked, and only then, in one short transaction, the row names
 * the store and loses its content and chunks. A reader that read the row just before follows the move
 * (file-read.ts). Answers the problem that left the file in place, or null.
 */
async function moveOne(r: FileReading, store: FileStore, file: StoredFile): Promise<string | null> {
  let spool;
  try {
    spool = await spoolStream(checkedBytes(r, file), { dir: store.spoolDir });
  } catch (err) {
    return `its bytes could not be read whole and matching (left in place): ${(err as Error).message}`;
  }
  try {
    await putSpool(store, spool);
  } finally {
    await discardSpool(spool);
  }
  if (!(await copyMatches(store, file))) return `the copy in ${store.location} does not read back matching (left in place)`;
  await r.db.transaction(async (tx) => {
    const from = file.store === null ? sql`store IS NULL` : sql`store = ${file.store}`;
    await tx.execute(sql`UPDATE files SET store = ${store.backend}, content = NULL, chunk_size = NULL WHERE id = ${file.id} AND ${from}`);
    await tx.execute(sql`DELETE FROM file_chunks WHERE file_id = ${file.id}`);
  });
  return null;
}

/** The rows whose bytes are not in `store`: still in the database, or in the other backend. */
const notIn = (store: FileStore) => sql`(store IS NULL OR store <> ${store.backend})`;

/**
 * `pinkas files migrate`: moves every file not yet in the configured store there, a batch at a time, with the
 * service running. Resumable: what is done is what the rows say, so a stopped run (or a crash) is continued by
 * running it again; an object put before a crash is put again (or swept, if its row was never moved). Ends
 * with a VACUUM of files and file_chunks, so the moved bytes' space is free for PostgreSQL to reuse.
 */
export async function migrateFiles(
  r: FileReading,
  opts: { batch: number; maxBatches?: number; onBatch?: (done: MigrateResult) => void },
): Promise<MigrateResult> {
  const store = r.stores.current;
  const result: MigrateResult = { moved: 0, bytes: 0, problems: [], left: 0 };
  let batches = 0;
  for await (const ids of fileIds(r, notIn(store))) {
    for (let i = 0; i < ids.length; i += opts.batch) {
      if (opts.maxBatches !== undefined && batches >= opts.maxBatches) return { ...result, left: await countLeft(r, store) };
      for (const id of ids.slice(i, i + opts.batch)) {
        const file = await storedFile(r.db, id);
        if (!file || file.store === store.backend) continue;
        const problem = await moveOne(r, store, file);
        if (problem) result.problems.push({ fileId: file.id, businessId: file.businessId, store: file.store ?? 'database', problem });
        else {
          result.moved++;
          result.bytes += file.size;
        }
      }
      batches++;
      opts.onBatch?.(result);
    }
  }
  if (result.moved > 0) await vacuum(r);
  return { ...result, left: await countLeft(r, store) };
}

async function countLeft(r: FileReading, store: FileStore): Promise<number> {
  return (await queryOne<{ n: number }>(r.db, sql`SELECT count(*)::int AS n FROM files WHERE ${notIn(store)}`))!.n;
}

/** Plain VACUUM: dead rows' bytes freed for reuse without locking out the running service (VACUUM FULL would). */
async function vacuum(r: FileReading): Promise<void> {
  try {
    await r.db.execute(sql`VACUUM (ANALYZE) files, file_chunks`);
  } catch (err) {
    r.logger.warn({ err: errorSummary(err) }, 'VACUUM of files and file_chunks failed; autovacuum will free the space');
  }
}
