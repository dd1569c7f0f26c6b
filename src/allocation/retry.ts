/**
 * An issued document whose request ended `failed` (the authority unreachable for hours, or the
 * business connected too late) can be asked again: POST …/documents/{id}/allocation re-arms the
 * durable job and answers 202 with the document back in `pending`. A refusal is final (the
 * invoice itself must be corrected), so only `failed` re-arms.
 */
import { AppError } from '../platform/errors.ts';
import { appendAudit } from '../platform/audit.ts';
import { rearmJob } from '../platform/jobs.ts';
import type { RequestContext } from '../platform/http/context.ts';
import type { Services } from '../platform/http/services.ts';
import { getDocumentRow, writeIssuedAllocation, type AllocationState, type DocumentRow } from '../documents/index.ts';
import { ALLOCATION_WARNING_CODES } from './lifecycle-state.ts';
import { ALLOCATION_JOB } from './lifecycle.ts';

export async function retryFailedAllocation(s: Services, ctx: RequestContext, businessId: string, documentId: string): Promise<DocumentRow> {
  const now = s.clock.now();
  return ctx.database.db.transaction(async (tx) => {
    const d = await getDocumentRow(tx, businessId, documentId, true);
    const status = d.allocation?.status ?? 'not_required';
    if (status !== 'failed') {
      const why =
        status === 'pending'
          ? 'its allocation number is already being requested'
          : status === 'granted'
            ? 'it already has its allocation number'
            : status === 'refused'
              ? 'the tax authority refused it: correct the invoice (credit note and a new invoice)'
              : 'it needs no allocation number';
      throw new AppError('not_draft', `the document is issued and ${why}; only a failed request is asked again`);
    }
    const allocation: AllocationState = { status: 'pending', number: null, error: null, requestedAt: now.toISOString(), decidedAt: null };
    const warnings = [
      ...d.warnings.filter((w) => !(ALLOCATION_WARNING_CODES as readonly string[]).includes(w.code)),
      { code: 'allocation_missing', message: 'an allocation number is required; it is being requested from the tax authority again' },
    ];
    await writeIssuedAllocation(tx, d.id, null, { allocation, warnings, at: now });
    await rearmJob(tx, now, { kind: ALLOCATION_JOB, refId: d.id, businessId });
    await appendAudit(
      tx,
      { at: now, actor: ctx.actor },
      {
        businessId,
        action: 'document.allocation_retry',
        entityType: 'document',
        entityId: d.id,
        before: { allocation: d.allocation },
        after: { allocation },
      },
    );
    return { ...d, allocation, warnings, updatedAt: now.toISOString() };
  });
}
