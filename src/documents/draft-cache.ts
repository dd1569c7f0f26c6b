/**
 * Drafts this process created, with their row version (xmin), so that issuing one sends no read
 * before issue_document: one round trip instead of two (issue 28). issue_document compares the
 * version under the row's lock and answers `draft_changed` when the row moved since (a PATCH through
 * another process, an allocation request, a restore); the issue then reads the row and tries again.
 * An entry is taken once, by the issue that uses it, and a PATCH or DELETE through this process drops
 * it. Bounded per database, oldest first: a miss costs only the read.
 */
import type { Database } from '../platform/db/engine.ts';
import type { DocumentRow } from './snapshot.ts';

export interface CachedDraft {
  row: DocumentRow;
  version: string;
}

/** ~3 KB a draft: a few MB at most, far more than the drafts awaiting issue in a burst. */
export const DRAFT_CACHE_ENTRIES = 2_000;

const caches = new WeakMap<Database, Map<string, CachedDraft>>();

function cacheOf(database: Database): Map<string, CachedDraft> {
  let cache = caches.get(database);
  if (!cache) caches.set(database, (cache = new Map()));
  return cache;
}

export function rememberDraft(database: Database, draft: CachedDraft): void {
  const cache = cacheOf(database);
  cache.set(draft.row.id, draft);
  if (cache.size > DRAFT_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
}

/** The draft as this process wrote it, once; undefined when not remembered or of another business. */
export function takeDraft(database: Database, businessId: string, id: string): CachedDraft | undefined {
  const cache = caches.get(database);
  const draft = cache?.get(id);
  if (!draft) return undefined;
  cache!.delete(id);
  return draft.row.businessId === businessId ? draft : undefined;
}

export function forgetDraft(database: Database, id: string): void {
  caches.get(database)?.delete(id);
}
