/**
 * The allocation state of a document and its warnings, as pure transitions:
 *
 *   not_required                      (never changes)
 *   pending  → granted                an approval; allocation_number set once
 *   pending  → refused                the authority refused (432, 434, 436, 406…); not retried
 *   pending  → failed                 transport errors until the retries ran out, or no grant
 *   draft: anything → granted/refused by POST …/documents/{id}/allocation (strict mode)
 */
import type { AllocationState, DocumentWarning } from '../documents/index.ts';

export const ALLOCATION_WARNING_CODES = ['allocation_missing', 'allocation_refused', 'allocation_failed'] as const;

const withoutAllocationWarnings = (ws: DocumentWarning[]) => ws.filter((w) => !(ALLOCATION_WARNING_CODES as readonly string[]).includes(w.code));

export function granted(prev: AllocationState | null, number: string, at: Date): AllocationState {
  return { status: 'granted', number, error: null, requestedAt: prev?.requestedAt ?? at.toISOString(), decidedAt: at.toISOString() };
}

export function refused(prev: AllocationState | null, code: string, message: string, at: Date): AllocationState {
  return { status: 'refused', number: null, error: `${code}: ${message}`, requestedAt: prev?.requestedAt ?? at.toISOString(), decidedAt: at.toISOString() };
}

export function failed(prev: AllocationState | null, error: string, at: Date): AllocationState {
  return { status: 'failed', number: null, error, requestedAt: prev?.requestedAt ?? at.toISOString(), decidedAt: at.toISOString() };
}

/** Still pending, with the last transient problem shown (the job retries). */
export function stillPending(prev: AllocationState | null, error: string, at: Date): AllocationState {
  return { status: 'pending', number: null, error, requestedAt: prev?.requestedAt ?? at.toISOString(), decidedAt: null };
}

export function warningsAfterGrant(ws: DocumentWarning[]): DocumentWarning[] {
  return withoutAllocationWarnings(ws);
}

export function warningsAfterRefusal(ws: DocumentWarning[], code: string, message: string): DocumentWarning[] {
  return [
    ...withoutAllocationWarnings(ws),
    {
      code: 'allocation_refused',
      message: `the tax authority refused an allocation number (${code}: ${message}); the buyer cannot deduct the VAT of this invoice until it is corrected`,
    },
  ];
}

export function warningsAfterFailure(ws: DocumentWarning[], error: string): DocumentWarning[] {
  return [
    ...withoutAllocationWarnings(ws),
    {
      code: 'allocation_failed',
      message: `no allocation number could be obtained from the tax authority (${error}); the buyer cannot deduct the VAT of this invoice without one`,
    },
  ];
}

/** Is the document still waiting for the authority's answer? (The PDF area waits while true.) */
export const awaitingAllocation = (a: AllocationState | null): boolean => a?.status === 'pending';
