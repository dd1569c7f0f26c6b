/**
 * One page of a list newest first in the order (created_at, id), by keyset: the rows that meet `where`
 * after the `cursor` position (the previous page's nextCursor), and the next page's cursor (null on the
 * last). One row more than the page is read to know whether a next page exists, never a count.
 */
import { and, desc, getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from './engine.ts';
import { afterCursor, cursorAtSql, decodeCursor, pageOf } from '../http/cursor.ts';

type Listed = PgTable & { createdAt: PgColumn; id: PgColumn };

export async function newestFirstPage<T extends Listed>(
  ex: Executor,
  list: { name: string; table: T },
  q: { where: (SQL | undefined)[]; cursor?: string; take: number },
): Promise<{ rows: T['$inferSelect'][]; nextCursor: string | null }> {
  const t = list.table;
  const after = q.cursor ? afterCursor(decodeCursor(list.name, q.cursor), sql`${t.createdAt}`, sql`${t.id}`) : undefined;
  const rows = await ex
    .select({ row: getTableColumns(t as PgTable), cursorAt: sql<string>`${cursorAtSql(sql`${t.createdAt}`)}` })
    .from(t as PgTable)
    .where(and(...q.where, after))
    .orderBy(desc(t.createdAt), desc(t.id))
    .limit(q.take + 1);
  const { page, nextCursor } = pageOf(list.name, rows, q.take, (r) => ({ createdAt: r.cursorAt, id: String(r.row.id) }));
  return { rows: page.map((r) => r.row as T['$inferSelect']), nextCursor };
}
