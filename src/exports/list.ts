/**
 * The runs' list (the routes' paging), apart from store.ts so that a run (run.ts) loads no HTTP paging code.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';
import { fileMeta, type FileMeta } from '../platform/files.ts';
import { afterCursor, cursorAtSql, decodeCursor, pageOf } from '../platform/http/cursor.ts';
import { toRunView, type ExportRunView } from './store.ts';

/**
 * One page of runs, newest first in the order (created_at, id) (the index export_runs_list).
 * `cursor` is the previous page's nextCursor; `before` (a run id, the older form) keeps the runs
 * whose id sorts below it, for compatibility.
 */
export async function listRuns(
  ex: Executor,
  businessId: string,
  q: { limit: number; before?: string; cursor?: string },
): Promise<{ exportRuns: (ExportRunView & { file: FileMeta | null })[]; nextCursor: string | null }> {
  const conditions = [sql`business_id = ${businessId}`];
  if (q.before) conditions.push(sql`id < ${q.before}`);
  if (q.cursor) conditions.push(afterCursor(decodeCursor('exports', q.cursor)));
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT *, ${cursorAtSql()} AS cursor_at FROM export_runs WHERE ${sql.join(conditions, sql` AND `)} ORDER BY created_at DESC, id DESC LIMIT ${q.limit + 1}`,
  );
  const { page, nextCursor } = pageOf('exports', rows, q.limit, (r) => ({ createdAt: String(r.cursor_at), id: String(r.id) }));
  const exportRuns = [];
  for (const r of page) {
    const v = toRunView(r);
    exportRuns.push({ ...v, file: v.fileId ? ((await fileMeta(ex, businessId, v.fileId)) ?? null) : null });
  }
  return { exportRuns, nextCursor };
}
