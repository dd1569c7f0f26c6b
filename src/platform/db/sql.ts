import { sql, type SQL } from 'drizzle-orm';
import type { Executor } from './engine.ts';

/** Runs a raw query and returns its rows (both drivers answer `{rows}`). */
export async function query<T = Record<string, unknown>>(ex: Executor, q: SQL): Promise<T[]> {
  const result = (await ex.execute(q)) as unknown as { rows: T[] };
  return result.rows;
}

export async function queryOne<T = Record<string, unknown>>(ex: Executor, q: SQL): Promise<T | undefined> {
  const rows = await query<T>(ex, q);
  return rows[0];
}

/** Timestamps arrive as Date (typed columns) or as `2026-01-02 10:00:00.123+00` (raw); answer ISO 8601 UTC. */
export function iso(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  const s = String(v);
  const normalized = s.includes('T') ? s : s.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00');
  return new Date(normalized).toISOString();
}

/** `date` columns arrive as Date (pg parses them) or as text (a cast in a raw query): answer `YYYY-MM-DD`. */
export function isoDay(v: unknown): string {
  if (v instanceof Date) {
    // pg parses a date as local midnight; read it back in local time.
    const y = v.getFullYear();
    const m = String(v.getMonth() + 1).padStart(2, '0');
    const d = String(v.getDate()).padStart(2, '0');
    return `${y}-${m}-${d}`;
  }
  return String(v).slice(0, 10);
}

export function isoOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : iso(v);
}

/** The PostgreSQL SQLSTATE of a failed query, looking through drizzle's wrapper. */
export function pgErrorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The database's own message of a failed query (e.g. a trigger's refusal). */
export function pgErrorMessage(err: unknown): string {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const inner = (e as { cause?: unknown }).cause;
    if (!inner) return String((e as { message?: unknown }).message);
    e = inner;
  }
  return String(e);
}

/**
 * Runs independent writes (INSERT/UPDATE/DELETE, none touching a row another one touches) as one
 * statement, so they cost one round trip: `WITH w0 AS (…), w1 AS (…) SELECT 1`. PostgreSQL runs every
 * data-modifying WITH part exactly once, in one snapshot; row triggers fire as for separate statements.
 */
export async function writeTogether(ex: Executor, writes: SQL[]): Promise<void> {
  if (writes.length === 0) return;
  if (writes.length === 1) {
    await ex.execute(writes[0]);
    return;
  }
  const parts = writes.map((w, i) => sql`${sql.raw(`w${i}`)} AS (${w})`);
  await ex.execute(sql`WITH ${sql.join(parts, sql`, `)} SELECT 1`);
}
