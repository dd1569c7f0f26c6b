/**
 * The rules of a donation receipt (405) at draft and issue (decisions.md "Document types beyond the four",
 * israel-tax.md §7), pure: an approval under section 46 in force on its date, the donor's ID number, the
 * approval frozen into the snapshot, and the report to the digital donation system as a job after issue.
 */
import { AppError, validation } from '../platform/errors.ts';
import type { JobKind } from '../platform/catalog/jobs.ts';
import type { BusinessRecord, Section46Approval } from '../businesses/index.ts';
import { DOC_TYPES, type DocType } from './doc-types.ts';
import type { DocumentParty } from './snapshot-types.ts';

/** Whether an approval is in force on a day (both ends included). */
export function approvalInForce(a: Section46Approval | null, day: string): boolean {
  return a !== null && a.validFrom <= day && day <= a.validTo;
}

const DONOR_ID_PROBLEM =
  "a 405 donation receipt needs the donor's ID number (9 digits with its check digit): the digital donation system credits the donor by it";

/** The donor's ID number is required on a 405's party (its check digit was checked as the party was written). */
export function donorIdProblem(docType: DocType, party: Pick<DocumentParty, 'taxId'> | null): string | null {
  return DOC_TYPES[docType].donation && !party?.taxId ? DONOR_ID_PROBLEM : null;
}

/**
 * A 405 at issue: refused 422 `donation_approval_missing` without an approval in force on its date, and
 * 400 `validation` when its party (as it is now) has no ID number. Other types pass.
 */
export function checkDonationAtIssue(
  business: Pick<BusinessRecord, 'section46Approval'>,
  d: { docType: DocType; documentDate: string },
  party: Pick<DocumentParty, 'taxId'> | null,
): void {
  if (!DOC_TYPES[d.docType].donation) return;
  const a = business.section46Approval;
  if (!approvalInForce(a, d.documentDate)) {
    const held = a
      ? `its approval ${a.number} is valid from ${a.validFrom} to ${a.validTo}`
      : 'it has none: set section46Approval (number, validFrom, validTo) on the business';
    throw new AppError(
      'donation_approval_missing',
      `a 405 donation receipt dated ${d.documentDate} needs the organisation's section 46 approval in force on that day; ${held}`,
    );
  }
  const problem = donorIdProblem(d.docType, party);
  if (problem) throw validation('party.taxId', problem);
}

/** What a 405's snapshot freezes beside the rest: the approval it prints (checked in force at issue). */
export function donationSnapshotPart(business: Pick<BusinessRecord, 'section46Approval'>, docType: DocType): { section46?: Section46Approval } {
  return DOC_TYPES[docType].donation && business.section46Approval ? { section46: { ...business.section46Approval } } : {};
}

/** The jobs a donation receipt adds at issue: its report to the digital donation system (src/donations); its credit reports the cancellation. */
export function donationJobs(docType: DocType): { kind: JobKind }[] {
  return DOC_TYPES[docType].donation ? [{ kind: 'document.donation_report' }] : [];
}
