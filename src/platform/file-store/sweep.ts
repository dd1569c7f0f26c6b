import { sql } from 'drizzle-orm';
import type { Executor } from '../db/engine.ts';
import { query } from '../db/sql.ts';
import type { FileStore, ObjectInfo } from './store.ts';

export interface SweepResult {
  /** Objects looked at. */
  objects: number;
  /** Orphans removed: older than the grace period, named by no row. */
  removed: number;
  /** Spools of writes that never committed, removed. */
  spools: number;
  /** Orphans the store refused to remove (an Object Lock retention not yet over): kept, tried again next time. */
  refused: number;
}

const BATCH = 500;

/** Of these objects, the ones some row names in `store`'s backend (or a row not yet moved out of the database). */
async function referenced(db: Executor, store: FileStore, batch: ObjectInfo[]): Promise<Set<string>> {
  const shas = batch.map((o) => o.sha256);
  const rows = await query<{ sha256: string }>(
    db,
    sql`SELECT DISTINCT sha256 FROM files WHERE sha256 IN ${shas} AND (store = ${store.backend} OR store IS NULL)`,
  );
  return new Set(rows.map((r) => r.sha256));
}

/**
 * Removes the orphans of one store: objects that no `files` row of its database names and that were written
 * before `now - graceMs`. Writers put an object before the transaction that records it commits, so a young
 * object may be a write about to commit: the grace period (FILES_SWEEP_GRACE_HOURS) is far longer than any
 * transaction. Every writer puts its object again even when it exists (which makes it young again), and the
 * store's removeIfOlder checks the age once more at the delete, so a row never ends up naming a removed object.
 * Rows still in the database (store NULL) keep their content's object: `files migrate` may have put it.
 */
export async function sweepOrphans(o: { db: Executor; store: FileStore; now: Date; graceMs: number }): Promise<SweepResult> {
  const olderThan = new Date(o.now.getTime() - o.graceMs);
  const result: SweepResult = { objects: 0, removed: 0, spools: 0, refused: 0 };
  const remove = async (sha256: string) => {
    try {
      if (await o.store.removeIfOlder(sha256, olderThan)) result.removed++;
    } catch {
      result.refused++;
    }
  };
  const flush = async (batch: ObjectInfo[]) => {
    if (batch.length === 0) return;
    const named = await referenced(o.db, o.store, batch);
    for (const object of batch) if (!named.has(object.sha256)) await remove(object.sha256);
  };
  let batch: ObjectInfo[] = [];
  for await (const object of o.store.list()) {
    result.objects++;
    if (object.modifiedAt >= olderThan) continue;
    batch.push(object);
    if (batch.length === BATCH) {
      await flush(batch);
      batch = [];
    }
  }
  await flush(batch);
  result.spools = await o.store.sweepSpools(olderThan);
  return result;
}
