/** Reads and writes of donation_reports (migration 0061); only this domain writes the table. */
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { donationReports, type DonationReportRow } from './tables.ts';

export async function getReport(ex: Executor, documentId: string): Promise<DonationReportRow | undefined> {
  const [row] = await ex.select().from(donationReports).where(eq(donationReports.documentId, documentId));
  return row;
}

/** The report row locked for this transaction (undefined: none yet). */
export async function lockReport(ex: Executor, documentId: string): Promise<DonationReportRow | undefined> {
  const [row] = await ex.select().from(donationReports).where(eq(donationReports.documentId, documentId)).for('update');
  return row;
}

/**
 * Writes the report's state: the first row, or the pending one moved on (the guard trigger refuses a
 * change to an answer, so callers lock and check first). `requestedAt` of an existing row is kept.
 */
export async function writeReport(ex: Executor, r: typeof donationReports.$inferInsert): Promise<void> {
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
