/**
 * Allocation numbers (Israel Invoices, חשבוניות ישראל): which documents need one.
 * decisions.md: 305 and 320 that carry VAT, whose party has a tax id, and whose totalExVat is
 * strictly greater than the threshold in force on the document date. Never 330 or 400.
 * Thresholds before VAT (israel-tax.md §4.2): 25,000 NIS from 2024-05-05, 20,000 from 2025-01-01,
 * 10,000 from 2026-01-01, 5,000 from 2026-06-01. Before 2024-05-05 nothing needed one.
 * Which types may need one is the types' table (doc-types.ts `allocation`).
 */
import { docTypeRuleOf } from './doc-types.ts';

export const ALLOCATION_THRESHOLDS: readonly { from: string; agorot: number }[] = [
  { from: '2026-06-01', agorot: 500_000 },
  { from: '2026-01-01', agorot: 1_000_000 },
  { from: '2025-01-01', agorot: 2_000_000 },
  { from: '2024-05-05', agorot: 2_500_000 },
];

/** The threshold (agorot, before VAT) in force on an ISO date, or null before the model began. */
export function allocationThreshold(documentDate: string): number | null {
  for (const t of ALLOCATION_THRESHOLDS) if (documentDate >= t.from) return t.agorot;
  return null;
}

export interface EligibilityInput {
  docType: number;
  documentDate: string;
  totalExVat: number;
  vatAmount: number;
  partyTaxId: string | null | undefined;
}

export type Eligibility = { required: true; threshold: number } | { required: false; why: string };

export function allocationEligibility(d: EligibilityInput): Eligibility {
  if (!docTypeRuleOf(d.docType)?.allocation) return { required: false, why: `doc type ${d.docType} never needs one` };
  if (d.vatAmount <= 0) return { required: false, why: 'the document carries no VAT' };
  if (!d.partyTaxId) return { required: false, why: 'the buyer has no tax id' };
  const threshold = allocationThreshold(d.documentDate);
  if (threshold === null) return { required: false, why: 'before 2024-05-05 no document needed one' };
  if (d.totalExVat <= threshold) return { required: false, why: `the amount before VAT is not above ${threshold / 100} NIS` };
  return { required: true, threshold };
}
