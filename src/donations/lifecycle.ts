/**
 * The donation report of an issued 405: the durable job `document.donation_report` (enqueued by the issue,
 * and by the credit that cancels one) reports it outside any transaction, then records the answer in one
 * short transaction with its audit row and event. Transport errors are retried with the catalog's backoff;
 * refusals are final; without a live client the report waits, pending and `unconfigured`, using no attempt.
 */
import type { Database } from '../platform/db/engine.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { recordEvent } from '../platform/outbox.ts';
import { RetryLaterError, type Job, type JobHandler } from '../platform/jobs.ts';
import { JOBS, type JobKind } from '../platform/catalog/jobs.ts';
import { retryDelayMs } from '../platform/retry-schedule.ts';
import type { Services } from '../platform/http/services.ts';
import { errorSummary } from '../platform/logger.ts';
import { getDocumentWithAccount, type DocumentRow } from '../documents/index.ts';
import { DOC_TYPES } from '../documents/doc-types.ts';
import { DonationTransportError } from './provider.ts';
import { reporterFor, UNCONFIGURED_MESSAGE } from './providers.ts';
import { reportInputOf, reportKindOf } from './report-state.ts';
import { getReport, lockReport, writeReport } from './store.ts';

export const DONATION_JOB = 'document.donation_report' satisfies JobKind;

/** The service itself acts on the document (no API key). */
const SYSTEM: Actor = { accountId: null, keyId: null };

/** The catalog's retry policy: 10 s, 30 s, 90 s … capped at 1 h; 10 attempts. */
export const donationBackoffMs = (attempt: number) => retryDelayMs(JOBS[DONATION_JOB].retry, attempt);
export const DONATION_MAX_ATTEMPTS = JOBS[DONATION_JOB].retry.maxAttempts;

/** An unconfigured live report looks for the client again this often (configuration arrives with a restart). */
export const UNCONFIGURED_RECHECK_MS = 3_600_000;
/** A cancellation waits this long between looks at the report of the donation it cancels. */
export const CANCELLATION_WAIT_MS = 30_000;

type Doc = DocumentRow & { accountId: string };
type Answer =
  | { status: 'reported'; reportNumber: string; cancels: string | null }
  | { status: 'refused'; code: string; message: string; cancels: string | null }
  | { status: 'failed'; code: string | null; message: string };

/** Keeps the report pending with the last problem shown (no event: the job tries again). */
async function recordPending(database: Database, at: Date, d: Doc, error: string): Promise<void> {
  await database.db.transaction(async (tx) => {
    const row = await lockReport(tx, d.id);
    if (row && row.status !== 'pending') return;
    await writeReport(tx, {
      documentId: d.id,
      businessId: d.businessId,
      kind: reportKindOf(d),
      status: 'pending',
      error,
      requestedAt: row?.requestedAt ?? new Date(d.issuedAt!),
      decidedAt: null,
      updatedAt: at,
    });
  });
}

/** The system's answer (or the final failure): the row, its audit row and its event, once. */
export async function recordAnswer(database: Database, at: Date, d: Doc, a: Answer): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    const row = await lockReport(tx, d.id);
    if (row && row.status !== 'pending') return false;
    const kind = reportKindOf(d);
    const reported = a.status === 'reported';
    const error = reported ? null : `${a.code ?? a.status}: ${a.message}`;
    const cancels = a.status === 'failed' ? null : a.cancels;
    const next = { status: a.status, reportNumber: reported ? a.reportNumber : null, cancelsReportNumber: cancels, error };
    await writeReport(tx, {
      documentId: d.id,
      businessId: d.businessId,
      kind,
      ...next,
      requestedAt: row?.requestedAt ?? new Date(d.issuedAt!),
      decidedAt: at,
      updatedAt: at,
    });
    await appendAudit(
      tx,
      { at, actor: SYSTEM },
      {
        businessId: d.businessId,
        action: reported ? 'document.donation_reported' : `document.donation_report_${a.status}`,
        entityType: 'document',
        entityId: d.id,
        before: { donationReport: row ? { status: row.status, error: row.error } : null },
        after: { donationReport: { kind, ...next } },
      },
    );
    if (reported) {
      await recordEvent(tx, at, {
        event: 'document.donation_reported',
        accountId: d.accountId,
        businessId: d.businessId,
        data: { documentId: d.id, kind, reportNumber: a.reportNumber, cancelsReportNumber: cancels },
      });
    } else {
      await recordEvent(tx, at, {
        event: 'document.donation_report_failed',
        accountId: d.accountId,
        businessId: d.businessId,
        data: { documentId: d.id, kind, status: a.status, code: a.code, message: a.message },
      });
    }
    return true;
  });
}

/**
 * A cancellation names the report of the donation it cancels: it waits while that one is pending, and
 * fails when the donation was never reported (nothing to cancel at the system). Null: the answer is recorded.
 */
async function cancelledReportNumber(s: Services, database: Database, d: Doc): Promise<string | null> {
  const original = await getReport(database.db, d.linkedDocumentId!);
  if (!original || original.status === 'pending') {
    await recordPending(database, s.clock.now(), d, 'waiting for the report number of the donation it cancels');
    throw new RetryLaterError(CANCELLATION_WAIT_MS, 'waiting for the report of the donation it cancels');
  }
  if (original.status === 'reported') return original.reportNumber;
  await recordAnswer(database, s.clock.now(), d, {
    status: 'failed',
    code: 'not_reported',
    message: `the donation it cancels was not reported (${original.status}: ${original.error ?? ''}); there is no report to cancel`,
  });
  return null;
}

async function report(s: Services, job: Job<typeof DONATION_JOB>, database: Database, d: Doc): Promise<void> {
  let cancels: string | null = null;
  if (reportKindOf(d) === 'cancellation') {
    cancels = await cancelledReportNumber(s, database, d);
    if (cancels === null) return;
  }
  const input = reportInputOf(d, cancels);
  if (!input) {
    await recordAnswer(database, s.clock.now(), d, {
      status: 'failed',
      code: 'incomplete',
      message: 'the receipt has no section 46 approval or no donor ID number',
    });
    return;
  }
  const reporter = reporterFor(s, database.mode);
  if (!reporter) {
    await recordPending(database, s.clock.now(), d, `unconfigured: ${UNCONFIGURED_MESSAGE}`);
    throw new RetryLaterError(UNCONFIGURED_RECHECK_MS, UNCONFIGURED_MESSAGE);
  }
  let result;
  try {
    result = await reporter.report(input);
  } catch (err) {
    const reason = err instanceof DonationTransportError ? `${err.code}: ${err.message}` : `error: ${errorSummary(err).message}`;
    await recordPending(database, s.clock.now(), d, `attempt ${job.attempts}: ${reason}`);
    throw err;
  }
  await recordAnswer(database, s.clock.now(), d, { ...result, cancels });
}

export function donationJobHandler(s: Services): JobHandler<typeof DONATION_JOB> {
  return {
    async handle(job: Job<typeof DONATION_JOB>, database: Database) {
      const d = await getDocumentWithAccount(database.db, job.refId);
      // Gone, not issued or not a donation receipt: nothing to report.
      if (!d || d.status !== 'issued' || !DOC_TYPES[d.docType].donation) return;
      const row = await getReport(database.db, d.id);
      if (row && row.status !== 'pending') return;
      await report(s, job, database, d);
    },
    async onFailed(job: Job<typeof DONATION_JOB>, database: Database, error: string) {
      const d = await getDocumentWithAccount(database.db, job.refId);
      if (d) await recordAnswer(database, s.clock.now(), d, { status: 'failed', code: null, message: `${job.attempts} attempts: ${error}` });
    },
  };
}
