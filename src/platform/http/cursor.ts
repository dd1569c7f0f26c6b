/**
 * Opaque list cursors. Every list is ordered by (created time, id), newest first; a cursor is the
 * position of a page's last row in that order, and the next page is every row strictly after it.
 * Unlike the `before` instant (which drops the rows that share the last row's instant) or `skip`
 * (which shifts when rows are inserted), a position never skips or repeats a row.
 *
 * Format: base64url of `{"l": list, "t": created time to the microsecond, "i": id}`. The list name
 * makes a cursor of another list a clear 400 instead of a silently wrong page; the microseconds
 * are the column's own precision, so rows written with now() compare exactly too.
 */
import { sql, type SQL } from 'drizzle-orm';
import { Type } from 'typebox';
import { validation } from '../errors.ts';

export interface CursorPosition {
  /** created_at, ISO 8601 UTC with microseconds (as `cursorAtSql` reads it). */
  createdAt: string;
  id: string;
}

const CURSOR_PARAM = 'querystring.cursor';
const MAX_CURSOR_LENGTH = 400;
// What cursorAtSql writes: to the microsecond, UTC.
const MICRO_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export function encodeCursor(list: string, at: CursorPosition): string {
  return Buffer.from(JSON.stringify({ l: list, t: at.createdAt, i: at.id }), 'utf8').toString('base64url');
}

/** The position a cursor holds; a 400 `validation` naming `cursor` when it is not one of `list`'s. */
export function decodeCursor(list: string, raw: string): CursorPosition {
  const bad = (problem: string) => validation(CURSOR_PARAM, `${problem}; pass the nextCursor of the previous page of this list`);
  if (raw.length === 0 || raw.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(raw)) throw bad('not a cursor');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw bad('not a cursor');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('not a cursor');
  const { l, t, i } = value as Record<string, unknown>;
  if (typeof t !== 'string' || typeof i !== 'string' || typeof l !== 'string') throw bad('not a cursor');
  if (l !== list) throw bad(`a cursor of another list (${l.slice(0, 40)})`);
  if (!MICRO_ISO.test(t) || Number.isNaN(Date.parse(t)) || !ID.test(i)) throw bad('not a cursor');
  return { createdAt: t, id: i };
}

/** The column as the cursor carries it: text, UTC, microseconds (a JS Date would drop them). */
export const cursorAtSql = (column: SQL = sql`created_at`): SQL => sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * The rows strictly after `at` in the order (created_at DESC, id DESC). Written with a plain
 * `created_at <=` bound first so an index ending with (created_at DESC, id DESC) reads a range.
 */
export function afterCursor(at: CursorPosition, createdAt: SQL = sql`created_at`, id: SQL = sql`id`): SQL {
  return sql`(${createdAt} <= ${at.createdAt}::timestamptz AND (${createdAt} < ${at.createdAt}::timestamptz OR ${id} < ${at.id}))`;
}

/**
 * A page from `take + 1` rows read in the list's order: the first `take`, and the cursor of the
 * last of them when another row follows (null on the last page).
 */
export function pageOf<R>(list: string, rows: R[], take: number, positionOf: (row: R) => CursorPosition): { page: R[]; nextCursor: string | null } {
  const page = rows.slice(0, take);
  const nextCursor = rows.length > take && page.length > 0 ? encodeCursor(list, positionOf(page[page.length - 1])) : null;
  return { page, nextCursor };
}

/** The `cursor` query parameter of every list. */
export const CursorQuery = Type.String({
  minLength: 1,
  maxLength: MAX_CURSOR_LENGTH,
  description:
    'Opaque position: the `nextCursor` of the previous page. Answers the rows strictly after it in the order (created time, id), newest first: ' +
    'no row is skipped or repeated, and rows created meanwhile (newer) do not appear on later pages. The way to page.',
});

/** The `nextCursor` field of every list answer. */
export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Pass as `cursor` for the next page; null on the last page.',
});
