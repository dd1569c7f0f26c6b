/** export_runs rows: start (claiming the production minute), finish, list. */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, isoOrNull, pgErrorCode, query, queryOne } from '../platform/db/sql.ts';
import { fileMeta, type FileMeta } from '../platform/files.ts';
import { newId } from '../platform/ids.ts';
import { isoDay } from '../documents/snapshot.ts';
import type { Verification } from './verify.ts';
import type { RunReport } from './report.ts';

export interface ExportRunView {
  id: string;
  kind: 'openfrmt';
  from: string;
  to: string;
  status: 'running' | 'completed' | 'failed';
  directory: string;
  cutOffAt: string;
  recordCounts: Record<string, number> | null;
  fileId: string | null;
  verification: Verification | null;
  report: RunReport | null;
  error: string | null;
  createdAt: string;
  completedAt: string | null;
}

const json = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

export function toRunView(r: Record<string, unknown>): ExportRunView {
  return {
    id: String(r.id),
    kind: 'openfrmt',
    from: isoDay(r.from_date),
    to: isoDay(r.to_date),
    status: r.status as ExportRunView['status'],
    directory: String(r.directory),
    cutOffAt: iso(r.cut_off_at),
    recordCounts: json(r.record_counts ?? null),
    fileId: (r.file_id as string | null) ?? null,
    verification: json(r.verification ?? null),
    report: json(r.report ?? null),
    error: (r.error as string | null) ?? null,
    createdAt: iso(r.created_at),
    completedAt: isoOrNull(r.completed_at),
  };
}

export interface StartedRun {
  id: string;
  primaryId: string;
  production: Date;
}

const MINUTE = 60_000;
const STALE_MS = 60 * MINUTE;

/**
 * Inserts a running run. Its production minute is the start minute, or the minute after the
 * business's latest production when that one is not earlier (spec §2.2: a second production in
 * the same minute takes the next minute); the unique directory settles races between processes.
 */
export async function startRun(
  ex: Executor,
  a: { businessId: string; from: string; to: string; cutOff: Date; primaryId: string; keyId: string | null; directoryOf: (at: Date) => string },
): Promise<StartedRun> {
  // A run still "running" an hour after it started was cut off (process stopped): say so.
  await ex.execute(sql`UPDATE export_runs SET status = 'failed', error = 'interrupted before it finished', completed_at = ${a.cutOff.toISOString()}
    WHERE business_id = ${a.businessId} AND status = 'running' AND created_at < ${new Date(a.cutOff.getTime() - STALE_MS).toISOString()}`);
  const last = await queryOne<{ p: unknown }>(ex, sql`SELECT max(production_at) AS p FROM export_runs WHERE business_id = ${a.businessId}`);
  let production = new Date(Math.floor(a.cutOff.getTime() / MINUTE) * MINUTE);
  if (last?.p) {
    const lastMs = new Date(iso(last.p)).getTime();
    if (lastMs >= production.getTime()) production = new Date(lastMs + MINUTE);
  }
  const id = newId('exr', a.cutOff.getTime());
  for (let attempt = 0; ; attempt++) {
    try {
      await ex.execute(sql`INSERT INTO export_runs(id, business_id, from_date, to_date, status, cut_off_at, production_at, directory, primary_id, created_by_key_id, created_at)
        VALUES (${id}, ${a.businessId}, ${a.from}, ${a.to}, 'running', ${a.cutOff.toISOString()}, ${production.toISOString()},
                ${a.directoryOf(production)}, ${a.primaryId}, ${a.keyId}, ${a.cutOff.toISOString()})`);
      return { id, primaryId: a.primaryId, production };
    } catch (err) {
      if (pgErrorCode(err) !== '23505' || attempt >= 5) throw err;
      production = new Date(production.getTime() + MINUTE);
    }
  }
}

export async function finishRun(
  ex: Executor,
  at: Date,
  id: string,
  r: { status: 'completed' | 'failed'; recordCounts: Record<string, number> | null; fileId: string | null; verification: Verification | null; report: RunReport | null; error: string | null },
): Promise<ExportRunView> {
  const row = await queryOne<Record<string, unknown>>(
    ex,
    sql`UPDATE export_runs SET status = ${r.status}, record_counts = ${r.recordCounts ? JSON.stringify(r.recordCounts) : null}::jsonb,
          file_id = ${r.fileId}, verification = ${r.verification ? JSON.stringify(r.verification) : null}::jsonb,
          report = ${r.report ? JSON.stringify(r.report) : null}::jsonb, error = ${r.error}, completed_at = ${at.toISOString()}
        WHERE id = ${id} RETURNING *`,
  );
  return toRunView(row!);
}

export async function listRuns(ex: Executor, businessId: string, limit: number, before?: string): Promise<(ExportRunView & { file: FileMeta | null })[]> {
  const rows = await query<Record<string, unknown>>(
    ex,
    before
      ? sql`SELECT * FROM export_runs WHERE business_id = ${businessId} AND id < ${before} ORDER BY id DESC LIMIT ${limit}`
      : sql`SELECT * FROM export_runs WHERE business_id = ${businessId} ORDER BY id DESC LIMIT ${limit}`,
  );
  const out = [];
  for (const r of rows) {
    const v = toRunView(r);
    out.push({ ...v, file: v.fileId ? ((await fileMeta(ex, businessId, v.fileId)) ?? null) : null });
  }
  return out;
}
