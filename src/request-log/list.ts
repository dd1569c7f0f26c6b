import { newestFirstPage } from '../platform/db/newest-first.ts';
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import type { Readable } from '../platform/db/row-reader.ts';
import { iso } from '../platform/db/sql.ts';
import { firstIdAt } from '../platform/ids.ts';
import { apiRequests, type ApiRequestRow } from './tables.ts';
import type { ApiRequestView } from './schemas.ts';

/** How long rows are kept (issue 32: 7 days). */
export const REQUESTS_KEPT_MS = 7 * 86_400_000;

function toView(r: Readable<ApiRequestRow>): ApiRequestView {
  return {
    requestId: r.requestId,
    method: r.method,
    path: r.path,
    status: r.status,
    reason: r.reason,
    durationMs: r.durationMs,
    keyPrefix: r.keyPrefix,
    createdAt: iso(r.createdAt),
  };
}

/**
 * One page of the account's requests (in this mode's database), newest first in the order (created_at, id).
 * Every query names the account: a request id of another account's request finds nothing.
 */
export async function listRequests(
  ex: Executor,
  accountId: string,
  q: { take: number; cursor?: string; requestId?: string },
): Promise<{ requests: ApiRequestView[]; nextCursor: string | null }> {
  const t = apiRequests;
  const where = [sql`${t.accountId} = ${accountId}`, q.requestId ? sql`${t.requestId} = ${q.requestId}` : undefined];
  const { rows, nextCursor } = await newestFirstPage(ex, { name: 'requests', table: t }, { where, cursor: q.cursor, take: q.take });
  return { requests: rows.map(toView), nextCursor };
}

/** Deletes rows older than REQUESTS_KEPT_MS: a range of the time-ordered primary key. Answers how many went. */
export async function pruneRequests(ex: Executor, now: Date): Promise<number> {
  const t = apiRequests;
  const result = await ex.execute(sql`DELETE FROM ${t} WHERE ${t.id} < ${firstIdAt('rql', now.getTime() - REQUESTS_KEPT_MS)}`);
  return Number((result as { rowCount?: number | null }).rowCount ?? 0);
}
