/**
 * The allocation lifecycle of an issued document: the durable job `document.allocation`
 * (enqueued by the documents area at a non-strict issue of an eligible document without a number)
 * asks the authority outside any transaction, then records the answer in one short transaction
 * with its audit row and event. Transport errors are retried with backoff; refusals are final.
 */
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { recordEvent } from '../platform/outbox.ts';
import type { Job, JobHandler } from '../platform/jobs.ts';
import { JOBS, type JobKind } from '../platform/catalog/jobs.ts';
import { retryDelayMs } from '../platform/retry-schedule.ts';
import type { Services } from '../platform/http/services.ts';
import { errorSummary } from '../platform/logger.ts';
import { countAllocationOutcome } from '../platform/metrics.ts';
import { documentColumns, getDocumentById, toDocumentRow, writeIssuedAllocation, type AllocationState, type DocumentRow } from '../documents/index.ts';
import { approvalInputOfIssued } from './document-input.ts';
import { AllocationNotConnectedError, AllocationTransportError } from './provider.ts';
import { providerFor, UNCONFIGURED_MESSAGE } from './providers.ts';
import { failed, granted, refused, stillPending, warningsAfterFailure, warningsAfterGrant, warningsAfterRefusal } from './lifecycle-state.ts';

export const ALLOCATION_JOB = 'document.allocation' satisfies JobKind;

/** The service itself acts on the document (no API key). */
const SYSTEM: Actor = { accountId: null, keyId: null };

/** The catalog's retry policy: 10 s, 30 s, 90 s … capped at 1 h; 10 attempts. */
export const allocationBackoffMs = (attempt: number) => retryDelayMs(JOBS[ALLOCATION_JOB].retry, attempt);
export const ALLOCATION_MAX_ATTEMPTS = JOBS[ALLOCATION_JOB].retry.maxAttempts;

async function accountOf(ex: Executor, businessId: string): Promise<string> {
  const r = await queryOne<{ account_id: string }>(ex, sql`SELECT account_id FROM businesses WHERE id = ${businessId}`);
  return r!.account_id;
}

async function writeState(
  tx: Executor,
  d: DocumentRow,
  { allocation, warnings, at, number }: { allocation: AllocationState; warnings: DocumentRow['warnings']; at: Date; number: string | null },
) {
  await writeIssuedAllocation(tx, d.id, number, { allocation, warnings, at });
}

/** Locks the document (one query) and answers it when still waiting for this job's answer. */
async function lockPending(tx: Executor, id: string): Promise<DocumentRow | null> {
  const r = await queryOne<Record<string, unknown>>(tx, sql`SELECT ${documentColumns()} FROM documents WHERE id = ${id} FOR UPDATE`);
  if (!r) return null;
  const d = toDocumentRow(r);
  if (d.status !== 'issued' || d.allocationNumber !== null || d.allocation?.status !== 'pending') return null;
  return d;
}

export async function recordGranted(database: Database, at: Date, documentId: string, number: string): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    const d = await lockPending(tx, documentId);
    if (!d) return false;
    const allocation = granted(d.allocation, number, at);
    await writeState(tx, d, { allocation, warnings: warningsAfterGrant(d.warnings), at, number });
    await appendAudit(
      tx,
      { at, actor: SYSTEM },
      {
        businessId: d.businessId,
        action: 'document.allocation_assigned',
        entityType: 'document',
        entityId: d.id,
        before: { allocation: d.allocation, allocationNumber: null },
        after: { allocation, allocationNumber: number },
      },
    );
    await recordEvent(tx, at, {
      event: 'document.allocation_assigned',
      accountId: await accountOf(tx, d.businessId),
      businessId: d.businessId,
      data: { documentId: d.id, allocationNumber: number },
    });
    return true;
  });
}

/** A refusal or a final failure: state, warning, audit and `document.allocation_failed`. */
export async function recordUnsuccessful(
  database: Database,
  at: Date,
  documentId: string,
  outcome: { status: 'refused'; code: string; message: string } | { status: 'failed'; error: string },
): Promise<boolean> {
  return database.db.transaction(async (tx) => {
    const d = await lockPending(tx, documentId);
    if (!d) return false;
    const allocation = outcome.status === 'refused' ? refused(d.allocation, outcome.code, outcome.message, at) : failed(d.allocation, outcome.error, at);
    const warnings =
      outcome.status === 'refused' ? warningsAfterRefusal(d.warnings, outcome.code, outcome.message) : warningsAfterFailure(d.warnings, outcome.error);
    await writeState(tx, d, { allocation, warnings, at, number: null });
    await appendAudit(
      tx,
      { at, actor: SYSTEM },
      {
        businessId: d.businessId,
        action: `document.allocation_${outcome.status}`,
        entityType: 'document',
        entityId: d.id,
        before: { allocation: d.allocation },
        after: { allocation },
      },
    );
    await recordEvent(tx, at, {
      event: 'document.allocation_failed',
      accountId: await accountOf(tx, d.businessId),
      businessId: d.businessId,
      data:
        outcome.status === 'refused'
          ? { documentId: d.id, status: 'refused', code: outcome.code, message: outcome.message }
          : { documentId: d.id, status: 'failed', code: null, message: outcome.error },
    });
    return true;
  });
}

/** Keeps `pending` but shows the last transient problem (no event: the job tries again). */
async function recordTransient(database: Database, at: Date, documentId: string, error: string): Promise<void> {
  await database.db.transaction(async (tx) => {
    const d = await lockPending(tx, documentId);
    if (!d) return;
    await writeState(tx, d, { allocation: stillPending(d.allocation, error, at), warnings: d.warnings, at, number: null });
  });
}

export function allocationJobHandler(s: Services): JobHandler<typeof ALLOCATION_JOB> {
  return {
    async handle(job: Job<typeof ALLOCATION_JOB>, database: Database) {
      const d = await getDocumentById(database.db, job.refId);
      // Gone, not issued, already numbered or already decided: nothing left to ask.
      if (!d || d.status !== 'issued' || d.allocationNumber !== null || d.allocation?.status !== 'pending') return;
      const input = approvalInputOfIssued(d);
      if (!input) return;
      const provider = providerFor(s, database.mode);
      if (!provider) {
        // Retried: configuration may arrive with the next restart; after the last try it fails.
        await recordTransient(database, s.clock.now(), d.id, `unconfigured: ${UNCONFIGURED_MESSAGE}`);
        throw new Error(UNCONFIGURED_MESSAGE);
      }
      let result;
      try {
        result = await provider.requestApproval(input);
      } catch (err) {
        const reason =
          err instanceof AllocationTransportError
            ? `${err.code}: ${err.message}`
            : err instanceof AllocationNotConnectedError
              ? `not_connected: ${err.message}`
              : `error: ${errorSummary(err).message}`;
        await recordTransient(database, s.clock.now(), d.id, `attempt ${job.attempts}: ${reason}`);
        countAllocationOutcome(database.mode, 'transport_error');
        throw err;
      }
      countAllocationOutcome(database.mode, result.status === 'approved' ? 'granted' : 'refused');
      if (result.status === 'approved') await recordGranted(database, s.clock.now(), d.id, result.allocationNumber);
      else await recordUnsuccessful(database, s.clock.now(), d.id, { status: 'refused', code: result.code, message: result.message });
    },
    async onFailed(job: Job<typeof ALLOCATION_JOB>, database: Database, error: string) {
      countAllocationOutcome(database.mode, 'failed');
      await recordUnsuccessful(database, s.clock.now(), job.refId, { status: 'failed', error: `${job.attempts} attempts: ${error}` });
    },
  };
}
