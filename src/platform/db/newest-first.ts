/**
 * One page of a list newest first in the order (created_at, id), by keyset: the rows that meet `where`
 * after the `cursor` position (the previous page's nextCursor), and the next page's cursor (null on the
 * last). One row more than the page is read to know whether a next page exists, never a count.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from './engine.ts';
import { query } from './sql.ts';
import { columnList, rowReader, type Readable } from './row-reader.ts';
import { afterCursor, cursorAtSql, decodeCursor, pageOf } from '../http/cursor.ts';

type Listed = PgTable & { createdAt: PgColumn; id: PgColumn };

/** The conditions given, joined by AND (none: every row). */
export function allOf(conditions: (SQL | undefined)[]): SQL {
  const given = conditions.filter((c): c is SQL => c !== undefined);
  return given.length === 0 ? sql`TRUE` : sql.join(given, sql` AND `);
}

const readers = new WeakMap<PgTable, (raw: Record<string, unknown>) => unknown>();

export async function newestFirstPage<T extends Listed>(
  ex: Executor,
  list: { name: string; table: T },
  q: { where: (SQL | undefined)[]; cursor?: string; take: number },
): Promise<{ rows: Readable<T['$inferSelect']>[]; nextCursor: string | null }> {
  const t = list.table;
  let read = readers.get(t);
  if (!read) readers.set(t, (read = rowReader(t)));
  const after = q.cursor ? afterCursor(decodeCursor(list.name, q.cursor), sql`${t.createdAt}`, sql`${t.id}`) : undefined;
  const raw = await query<Record<string, unknown> & { cursor_at: string }>(
    ex,
    sql`SELECT ${columnList(t)}, ${cursorAtSql(sql`${t.createdAt}`)} AS cursor_at FROM ${t}
        WHERE ${allOf([...q.where, after])} ORDER BY ${t.createdAt} DESC, ${t.id} DESC LIMIT ${q.take + 1}`,
  );
  const { page, nextCursor } = pageOf(list.name, raw, q.take, (r) => ({ createdAt: r.cursor_at, id: String(r.id) }));
  return { rows: page.map((r) => read(r) as Readable<T['$inferSelect']>), nextCursor };
}
