/** export_runs rows: start (claiming the production minute), finish, list. */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, isoOrNull, pgErrorCode, query, queryOne } from '../platform/db/sql.ts';
import { fileMeta, type FileMeta } from '../platform/files.ts';
import { newId } from '../platform/ids.ts';
import { AppError, notFound } from '../platform/errors.ts';
import { appendAudit } from '../platform/audit.ts';
import { isoDay } from '../platform/db/sql.ts';
import type { Verification } from './verify.ts';
import type { RunReport } from './report.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { exportRuns } from './tables.ts';
import type { ExportKind, ExportStatus } from './lists.ts';

export interface ExportRunView {
  id: string;
  kind: ExportKind;
  from: string;
  to: string;
  status: ExportStatus;
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
    kind: r.kind === 'pcn874' ? 'pcn874' : 'openfrmt',
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
const INTERRUPTED = 'interrupted before it finished';

/**
 * A run still "running" an hour after it started was cut off (process stopped): say so.
 * Audited too (by no key: the service found it), so no failure is silent.
 */
async function failInterruptedRuns(ex: Executor, businessId: string, cutOff: Date): Promise<void> {
  const interrupted = await query<{ id: string; period_from: string; period_to: string }>(
    ex,
    sql`UPDATE export_runs SET status = 'failed', error = ${INTERRUPTED}, completed_at = ${cutOff.toISOString()}
        WHERE business_id = ${businessId} AND status = 'running' AND created_at < ${new Date(cutOff.getTime() - STALE_MS).toISOString()}
        RETURNING id, from_date::text AS period_from, to_date::text AS period_to`,
  );
  for (const r of interrupted) {
    await appendAudit(
      ex,
      { at: cutOff, actor: { accountId: null, keyId: null } },
      {
        businessId,
        action: 'export.openfrmt',
        entityType: 'export_run',
        entityId: r.id,
        after: { from: r.period_from, to: r.period_to, status: 'failed', fileId: null, error: INTERRUPTED },
      },
    );
  }
}

/**
 * Inserts a running run. Its production minute is the Israel wall-clock minute of its start — never a
 * minute that has not begun yet. Spec §2.2 gives every production its own `MMDDhhmm` directory, the
 * second production of a minute taking the next one; a run that would need a later minute than its
 * own (another run of the business already holds this minute, or — in the hour repeated when
 * daylight saving time ends — the same wall-clock minute one hour earlier) is refused with 409
 * `conflict` and a Retry-After up to the first free minute, instead of writing a production time in
 * the future. The unique (business_id, directory) settles races between processes the same way.
 */
export async function startRun(
  ex: Executor,
  a: { businessId: string; from: string; to: string; cutOff: Date; primaryId: string; keyId: string | null; directoryOf: (at: Date) => string },
): Promise<StartedRun> {
  await failInterruptedRuns(ex, a.businessId, a.cutOff);
  const production = new Date(Math.floor(a.cutOff.getTime() / MINUTE) * MINUTE);
  // This minute and the 61 after it (a repeated hour plus one): which directories are taken.
  const minutes = Array.from({ length: 62 }, (_, i) => new Date(production.getTime() + i * MINUTE));
  const names = minutes.map((m) => a.directoryOf(m));
  const taken = new Set(
    (
      await query<{ directory: string }>(
        ex,
        sql`SELECT directory FROM export_runs WHERE business_id = ${a.businessId} AND directory IN (${sql.join(
          names.map((n) => sql`${n}`),
          sql`, `,
        )})`,
      )
    ).map((r) => r.directory),
  );
  const refuse = () => {
    const free = minutes[names.findIndex((n, i) => i > 0 && !taken.has(n))] ?? minutes[minutes.length - 1];
    const seconds = Math.max(1, Math.ceil((free.getTime() - a.cutOff.getTime()) / 1000));
    return new AppError(
      'conflict',
      `another OPENFRMT production of this business already has the directory ${names[0]} (spec §2.2: one production per minute); ` +
        `the production time is the run's real start minute, never a later one: retry in ${seconds} s`,
      { 'Retry-After': String(seconds) },
    );
  };
  if (taken.has(names[0])) throw refuse();
  const id = newId('exr', a.cutOff.getTime());
  try {
    await ex.execute(
      insertInto(exportRuns, {
        id,
        businessId: a.businessId,
        fromDate: a.from,
        toDate: a.to,
        status: 'running',
        cutOffAt: a.cutOff,
        productionAt: production,
        directory: names[0],
        primaryId: a.primaryId,
        createdByKeyId: a.keyId,
        createdAt: a.cutOff,
      }),
    );
  } catch (err) {
    // Another process took the minute between the read and the insert.
    if (pgErrorCode(err) === '23505') {
      taken.add(names[0]);
      throw refuse();
    }
    throw err;
  }
  return { id, primaryId: a.primaryId, production };
}

export async function finishRun(
  ex: Executor,
  at: Date,
  id: string,
  r: {
    status: 'completed' | 'failed';
    recordCounts: Record<string, number> | null;
    fileId: string | null;
    verification: Verification | null;
    report: RunReport | null;
    error: string | null;
  },
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

/** One run of the business with its file's metadata; 404 when the business has no such run. */
export async function getRun(ex: Executor, businessId: string, id: string): Promise<{ exportRun: ExportRunView; file: FileMeta | null }> {
  const row = await queryOne<Record<string, unknown>>(ex, sql`SELECT * FROM export_runs WHERE id = ${id} AND business_id = ${businessId}`);
  if (!row) throw notFound('export run');
  const exportRun = toRunView(row);
  return { exportRun, file: exportRun.fileId ? ((await fileMeta(ex, businessId, exportRun.fileId)) ?? null) : null };
}

/**
 * Starts a PCN874 run (vat/pcn874-run.ts): the file of one VAT period, produced when the period has
 * ended. Its `directory` (`PCN874.TXT/<run id>`) is unique per business by the run id.
 */
export async function startPcn874Run(
  ex: Executor,
  r: { id: string; businessId: string; from: string; to: string; name: string; at: Date; keyId: string | null },
): Promise<void> {
  await ex.execute(
    insertInto(exportRuns, {
      id: r.id,
      businessId: r.businessId,
      kind: 'pcn874',
      fromDate: r.from,
      toDate: r.to,
      status: 'running',
      cutOffAt: r.at,
      productionAt: r.at,
      directory: `${r.name}/${r.id}`,
      primaryId: null,
      createdByKeyId: r.keyId,
      createdAt: r.at,
    }),
  );
}
