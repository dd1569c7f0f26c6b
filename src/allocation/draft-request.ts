/**
 * Strict mode: POST …/documents/{id}/allocation asks the authority for a DRAFT's number
 * synchronously, with the figures issue will freeze, and stores the answer on the draft so it then
 * issues with it. Granted → allocation_number and allocation.status `granted`; refused → status
 * `refused` with the error (200: the authority answered); unreachable → 502 `provider`.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../platform/canonical-json.ts';
import { israelDate } from '../platform/clock.ts';
import { AppError, conflict, unconfigured, validation } from '../platform/errors.ts';
import { appendAudit } from '../platform/audit.ts';
import type { RequestContext } from '../platform/http/context.ts';
import type { Services } from '../platform/http/services.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { getDocumentRow, writeDraftAllocation, type AllocationState, type DocumentRow } from '../documents/index.ts';
import { approvalInputOfDraft, draftRequestProblem } from './document-input.ts';
import { granted, refused, warningsAfterGrant } from './lifecycle-state.ts';
import { AllocationNotConnectedError, AllocationTransportError, type ApprovalInput } from './provider.ts';
import { requireProvider } from './providers.ts';

/** What the authority approved, so a later edit of the draft is noticed. */
export function figuresFingerprint(input: ApprovalInput): string {
  const { invoiceIssuanceDate: _ignored, ...figures } = input;
  return createHash('sha256').update(canonicalJson(figures)).digest('hex').slice(0, 32);
}

type DraftAllocation = AllocationState & { figures?: string; requestSeq?: number };

function numberIsStale(d: DocumentRow, figures: string): boolean {
  const stored = (d.allocation as DraftAllocation | null)?.figures;
  return stored !== undefined && stored !== figures;
}

/**
 * The ITA's invoice_id of this request: the document id, then `<id>.2`, `<id>.3`… once the figures
 * changed after an earlier request, so the authority never sees one invoice id with two sets of figures.
 */
function requestSeqOf(d: DocumentRow, figures: string): number {
  const prev = d.allocation as DraftAllocation | null;
  if (!prev?.figures) return 1;
  return prev.figures === figures ? (prev.requestSeq ?? 1) : (prev.requestSeq ?? 1) + 1;
}

export async function requestDraftAllocation(s: Services, ctx: RequestContext, business: BusinessRecord, documentId: string): Promise<DocumentRow> {
  const database = ctx.database;
  const draft = await getDocumentRow(database.db, business.id, documentId);
  if (draft.status !== 'draft') throw new AppError('not_draft', 'the document is issued: an issued document gets its number through the background request');
  const now = s.clock.now();
  const a = approvalInputOfDraft(draft, business, israelDate(now));
  const figures = figuresFingerprint(a.input);
  // Idempotent: a number asked for these same figures (or given by the caller) is kept. A draft
  // edited since its number was granted asks again: the number must match what is issued.
  if (draft.allocationNumber && !numberIsStale(draft, figures)) return draft;
  const problem = draftRequestProblem(draft, a);
  if (problem) throw validation('document', problem);
  const provider = requireProvider(s, database.mode);
  const requestSeq = requestSeqOf(draft, figures);

  let result;
  try {
    result = await provider.requestApproval({ ...a.input, invoiceId: requestSeq > 1 ? `${draft.id}.${requestSeq}` : draft.id });
  } catch (err) {
    if (err instanceof AllocationNotConnectedError) throw unconfigured(err.message);
    if (err instanceof AllocationTransportError) throw new AppError('provider', `the tax authority could not be reached: ${err.message}`);
    throw err;
  }

  const at = s.clock.now();
  return database.db.transaction(async (tx) => {
    const d = await getDocumentRow(tx, business.id, documentId, true);
    if (d.status !== 'draft') throw conflict('the document was issued while its allocation number was being requested');
    if (d.allocationNumber && !numberIsStale(d, figures)) return d;
    const decided = result.status === 'approved' ? granted(null, result.allocationNumber, at) : refused(null, result.code, result.message, at);
    const allocation: DraftAllocation = { ...decided, requestedAt: now.toISOString(), figures, requestSeq };
    const number = result.status === 'approved' ? result.allocationNumber : null;
    const warnings = result.status === 'approved' ? warningsAfterGrant(d.warnings) : d.warnings;
    await writeDraftAllocation(tx, d.id, number, { allocation, warnings, at });
    await appendAudit(
      tx,
      { at, actor: ctx.actor },
      {
        businessId: business.id,
        action: result.status === 'approved' ? 'document.allocation_assigned' : 'document.allocation_refused',
        entityType: 'document',
        entityId: d.id,
        before: { allocation: d.allocation, allocationNumber: d.allocationNumber },
        after: { allocation, allocationNumber: number },
      },
    );
    return { ...d, allocationNumber: number, allocation, warnings, updatedAt: at.toISOString() };
  });
}
