/**
 * A report that ended `failed` (the system unreachable through every retry, or a cancellation whose donation
 * was not reported then) can be asked again: POST …/documents/{id}/donation-report puts it back to `pending`
 * and re-arms the durable job. A report number or a refusal is final (a refused receipt is corrected by a credit).
 */
import { AppError } from '../platform/errors.ts';
import { appendAudit } from '../platform/audit.ts';
import { rearmJob } from '../platform/jobs.ts';
import type { RequestContext } from '../platform/http/context.ts';
import type { Services } from '../platform/http/services.ts';
import type { DocumentRow } from '../documents/index.ts';
import { DONATION_JOB } from './lifecycle.ts';
import { reportView, type DonationReportView } from './report-state.ts';
import { lockReport, writeReport } from './store.ts';

const NOT_FAILED: Record<string, string> = {
  pending: 'it is already being reported',
  reported: 'it is reported: its report number is final',
  refused: 'the donation system refused it: correct the receipt with a credit and a new 405',
};

export async function retryFailedReport(s: Services, ctx: RequestContext, d: DocumentRow): Promise<DonationReportView> {
  const now = s.clock.now();
  return ctx.database.db.transaction(async (tx) => {
    const row = await lockReport(tx, d.id);
    const status = row?.status ?? 'pending';
    if (!row || status !== 'failed')
      throw new AppError('conflict', `the donation report of ${d.id} is ${status}: ${NOT_FAILED[status]}; only a failed report is asked again`);
    const again = { ...row, status: 'pending' as const, error: null, decidedAt: null, updatedAt: now.toISOString() };
    await writeReport(tx, again);
    await rearmJob(tx, now, { kind: DONATION_JOB, refId: d.id, businessId: d.businessId });
    await appendAudit(
      tx,
      { at: now, actor: ctx.actor },
      {
        businessId: d.businessId,
        action: 'document.donation_report_retry',
        entityType: 'document',
        entityId: d.id,
        before: { donationReport: { status: row.status, error: row.error } },
        after: { donationReport: { status: 'pending' } },
      },
    );
    return reportView(d, again);
  });
}
