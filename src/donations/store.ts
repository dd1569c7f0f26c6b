/** Reads and writes of donation_reports (migration 0061); only this domain writes the table. */
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { insertInto, type InsertValues } from '../platform/db/insert-values.ts';
import { columnList, rowReader, type Readable } from '../platform/db/row-reader.ts';
import { queryOne } from '../platform/db/sql.ts';
import { donationReports, type DonationReportRow } from './tables.ts';

/** A report row as read: instants as ISO 8601 text. */
export type StoredReport = Readable<DonationReportRow>;
const readReport = rowReader(donationReports);

async function reportOf(ex: Executor, documentId: string, forUpdate: boolean): Promise<StoredReport | undefined> {
  const t = donationReports;
  const lock = forUpdate ? sql` FOR UPDATE` : sql``;
  const row = await queryOne(ex, sql`SELECT ${columnList(t)} FROM ${t} WHERE ${t.documentId} = ${documentId}${lock}`);
  return row && readReport(row);
}

export async function getReport(ex: Executor, documentId: string): Promise<StoredReport | undefined> {
  return reportOf(ex, documentId, false);
}

/** The report row locked for this transaction (undefined: none yet). */
export async function lockReport(ex: Executor, documentId: string): Promise<StoredReport | undefined> {
  return reportOf(ex, documentId, true);
}

/**
 * Writes the report's state: the first row, or the pending one moved on (the guard trigger refuses a
 * change to an answer, so callers lock and check first). `requestedAt` of an existing row is kept.
 */
export async function writeReport(ex: Executor, r: InsertValues<typeof donationReports>): Promise<void> {
  await ex.execute(
    sql`${insertInto(donationReports, r)}
        ON CONFLICT (document_id) DO UPDATE SET status = EXCLUDED.status, report_number = EXCLUDED.report_number,
          cancels_report_number = EXCLUDED.cancels_report_number, error = EXCLUDED.error,
          decided_at = EXCLUDED.decided_at, updated_at = EXCLUDED.updated_at`,
  );
}

/** The report number a 405 prints, and whether it is still awaited (prints' render job). */
export async function donationReportNumberOf(ex: Executor, documentId: string): Promise<{ number: string | null; pending: boolean }> {
  const row = await getReport(ex, documentId);
  return { number: row?.reportNumber ?? null, pending: !row || row.status === 'pending' };
}
