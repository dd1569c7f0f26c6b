import { createHash } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import pg from 'pg';
import type { Executor } from './engine.ts';

const PREPARED = new WeakMap<SQL, string>();
/** Prepared statements per label at most (a label whose text keeps changing falls back to unnamed statements). */
const MAX_TEXTS_PER_LABEL = 8;
/** Per label, the statement name of each of its texts. */
const namesByLabel = new Map<string, Map<string, string>>();

/**
 * Marks a statement of the hot path to run as a named prepared statement: PostgreSQL parses and plans
 * it once per connection instead of at every call (planning was ~1 ms of PostgreSQL's CPU per issued
 * document, more than executing the lookups). The name is the label and a digest of the text, so a
 * text never meets another text's statement; a label with more than a few texts stops being prepared.
 */
export function prepared(label: string, q: SQL): SQL {
  PREPARED.set(q, label);
  return q;
}

function statementName(label: string, text: string): string | undefined {
  let names = namesByLabel.get(label);
  if (!names) namesByLabel.set(label, (names = new Map()));
  let name = names.get(text);
  if (name === undefined && names.size < MAX_TEXTS_PER_LABEL) {
    name = `${label}_${createHash('sha1').update(text).digest('hex').slice(0, 12)}`;
    names.set(text, name);
  }
  return name;
}

interface DriverSession {
  dialect: { sqlToQuery(q: SQL): { sql: string; params: unknown[] } };
  client: { query(config: { name?: string; text: string; values: unknown[]; types: unknown }): Promise<{ rows: unknown[] }> };
}

// drizzle's reading of the values it leaves as text (instants, days, intervals and their arrays), kept
// so that a prepared statement answers what `execute` answers.
const AS_TEXT = new Set([
  pg.types.builtins.TIMESTAMPTZ,
  pg.types.builtins.TIMESTAMP,
  pg.types.builtins.DATE,
  pg.types.builtins.INTERVAL,
  1231,
  1115,
  1185,
  1187,
  1182,
]);
const asText = (v: string) => v;
const TYPES = { getTypeParser: (oid: number, format?: 'text' | 'binary') => (AS_TEXT.has(oid) ? asText : pg.types.getTypeParser(oid, format)) };

/** Runs a raw query and returns its rows (both drivers answer `{rows}`). */
export async function query<T = Record<string, unknown>>(ex: Executor, q: SQL): Promise<T[]> {
  const label = PREPARED.get(q);
  if (label === undefined) return ((await ex.execute(q)) as unknown as { rows: T[] }).rows;
  // Straight to the driver with a statement name: drizzle's `execute` builds a prepared-query object,
  // its result configs and tracing spans per call, measured on the issue path as much as the statement's own work.
  const session = ex._.session as unknown as DriverSession;
  const compiled = session.dialect.sqlToQuery(q);
  const name = statementName(label, compiled.sql);
  const result = await session.client.query({ ...(name && { name }), text: compiled.sql, values: compiled.params, types: TYPES });
  return result.rows as T[];
}

/**
 * A statement of the hot path given as text and values (built once, e.g. insertText), sent straight to
 * the driver as a named prepared statement, as `query` sends a `prepared` one.
 */
export async function queryText<T = Record<string, unknown>>(ex: Executor, label: string, text: string, values: unknown[]): Promise<T[]> {
  const session = ex._.session as unknown as DriverSession;
  const name = statementName(label, text);
  const result = await session.client.query({ ...(name && { name }), text, values, types: TYPES });
  return result.rows as T[];
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

/** The DETAIL of a failed query's error (a function's RAISE … USING DETAIL), if any. */
export function pgErrorDetail(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    const detail = (e as { detail?: unknown }).detail;
    if (typeof detail === 'string') return detail;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A statement with independent writes (INSERT/UPDATE/DELETE, none touching a row another one touches)
 * sent beside it, so they cost no round trip of their own: `WITH w0 AS (…), w1 AS (…) <main>`.
 * PostgreSQL runs every data-modifying WITH part exactly once, in one snapshot; row triggers fire as for
 * separate statements.
 */
export function withWrites(writes: SQL[], main: SQL): SQL {
  if (writes.length === 0) return main;
  const parts = writes.map((w, i) => sql`${sql.raw(`w${i}`)} AS (${w})`);
  return sql`WITH ${sql.join(parts, sql`, `)} ${main}`;
}
