/**
 * What an issue computes from its draft before the one call that writes it (issue.ts): the refusals by
 * type, the figures and currency, the allocation state and warnings, the party as it is now, the
 * branding, the frozen snapshot and the issued row. Nothing here takes a lock.
 */
import type { Executor } from '../platform/db/engine.ts';
import { AppError, validation } from '../platform/errors.ts';
import { storeFile } from '../platform/files.ts';
import type { FileStore } from '../platform/file-store/store.ts';
import type { Services } from '../platform/http/services.ts';
import { type BusinessRecord, type StoredBranding, decodeLogo } from '../businesses/index.ts';
import { getParty } from '../parties/index.ts';
import { allocationEligibility } from './allocation-eligibility.ts';
import { dealerOf, type DocumentRow, type Totals } from './snapshot.ts';
import { type AllocationState, type DocumentLine, type DocumentParty, type DocumentSnapshot, type DocumentWarning } from './snapshot-types.ts';
import type { IssueBodyInput } from './schemas.ts';
import { buyerTaxIdRequired, paymentsProblem, totalsOfDraft } from './totals.ts';
import { DOC_TYPES, docTypeAllowed, docTypeRefusal } from './doc-types.ts';
import { donationSnapshotPart } from './donation.ts';
import { frozenCurrency, rateAtIssue, shekelFiguresProblem, type FrozenCurrency } from './issue-currency.ts';

/** The business's branding, or the issue body's override applied on top of it. */
export async function brandingFor(
  ex: Executor,
  store: FileStore,
  { at, business, override }: { at: Date; business: BusinessRecord; override: NonNullable<IssueBodyInput>['branding'] },
): Promise<StoredBranding> {
  const b: StoredBranding = { ...business.branding };
  if (!override) return b;
  if (override.logo === null) b.logoRef = null;
  else if (override.logo !== undefined) {
    const logo = decodeLogo(override.logo);
    const file = await storeFile(ex, at, { businessId: business.id, bytes: logo.bytes, mime: logo.mime, name: logo.name, store });
    b.logoRef = { fileId: file.id, sha256: file.sha256, mime: file.mime };
  }
  for (const k of ['accentColor', 'tagline', 'website', 'footerText'] as const) {
    if (override[k] !== undefined) b[k] = override[k] ?? null;
  }
  if (override.accentColor) b.accentColor = override.accentColor.toUpperCase();
  if (override.template !== undefined) b.template = override.template;
  return b;
}

/** The party as it is now: a saved party is re-read so the frozen copy is current. */
export async function currentParty(ex: Executor, businessId: string, p: DocumentParty | null): Promise<DocumentParty | null> {
  if (!p || !p.partyId) return p;
  const saved = await getParty(ex, businessId, p.partyId);
  return { partyId: saved.id, key: saved.key, name: saved.name, taxId: saved.taxId, phone: saved.phone, email: saved.email, address: saved.address };
}

/** Refusals by the type's rules (doc-types.ts): a dealer that may not issue it, lines it needs. */
export function checkIssuable(business: BusinessRecord, d: DocumentRow): void {
  if (!docTypeAllowed(business.dealerType, d.docType)) {
    throw AppError.inCase('doc_type_not_allowed', 'atIssue', docTypeRefusal(business.dealerType));
  }
  if (DOC_TYPES[d.docType].linesRequired && d.lines.length === 0) {
    throw validation('lines', `a ${d.docType} needs at least one line`);
  }
}

/** The totals at issue, their payments checked, and the frozen currency with the shekel figures (lines and payments with their amounts). */
export async function figuresAtIssue(s: Services, ex: Executor, business: BusinessRecord, d: DocumentRow) {
  const totals = totalsOfDraft(d, business);
  const payProblem = paymentsProblem(d.docType, totals, d.payments.length);
  if (payProblem) throw new AppError('payments_mismatch', `payments: ${payProblem}`);
  const lines = d.lines.map((l, i) => ({ ...l, amount: totals.lineAmounts[i] }));
  // A foreign-currency document takes its rate now (the draft's, the business's or the Bank of
  // Israel's for its date); thresholds and the books go by the shekel figures, computed here once.
  const money = frozenCurrency(await rateAtIssue(s, ex, business.id, d), { docType: d.docType, priceMode: d.priceMode, lines, payments: d.payments, totals });
  const shekelProblem = shekelFiguresProblem(money, totals);
  if (shekelProblem) throw validation(shekelProblem.field, shekelProblem.problem);
  return { totals, money };
}

/** The warnings and the allocation state at issue (decisions.md); a strict business is refused a missing number. */
export function allocationAtIssue(
  business: BusinessRecord,
  { document: d, party, ils, now }: { document: DocumentRow; party: DocumentParty | null; ils: Totals; now: Date },
) {
  const warnings: DocumentWarning[] = [];
  if (buyerTaxIdRequired(d.docType, ils.totalExVat, d.vatExemptionReason) && !party?.taxId) {
    warnings.push({
      code: 'buyer_tax_id_missing',
      message: 'the amount before VAT is 5,000 NIS or more: when the buyer is a dealer, their tax id must appear on the document',
    });
  }
  const eligibility = allocationEligibility({
    docType: d.docType,
    documentDate: d.documentDate,
    totalExVat: ils.totalExVat,
    vatAmount: ils.vatAmount,
    partyTaxId: party?.taxId,
  });
  let allocation: AllocationState = { status: 'not_required', number: d.allocationNumber, error: null, requestedAt: null, decidedAt: null };
  if (eligibility.required && d.allocationNumber) {
    // Keep the state of a number requested for this draft beforehand (strict mode), else record the caller's.
    const prior = d.allocation;
    allocation =
      prior && prior.status === 'granted' && prior.number === d.allocationNumber
        ? prior
        : { status: 'granted', number: d.allocationNumber, error: null, requestedAt: null, decidedAt: now.toISOString() };
  } else if (eligibility.required) {
    if (business.requireAllocation) {
      throw new AppError(
        'allocation_required',
        `an allocation number is required: the amount before VAT is above ${eligibility.threshold / 100} NIS and the buyer has a tax id`,
      );
    }
    allocation = { status: 'pending', number: null, error: null, requestedAt: null, decidedAt: null };
    warnings.push({
      code: 'allocation_missing',
      message: `an allocation number is required (amount before VAT above ${eligibility.threshold / 100} NIS); it is being requested from the tax authority`,
    });
  }
  return { warnings, allocation };
}

/** What issue freezes, besides the draft: the party as it is now, the figures, the branding, the lines with their amounts. */
export interface IssueParts {
  party: DocumentParty | null;
  totals: ReturnType<typeof totalsOfDraft>;
  money: FrozenCurrency;
  branding: StoredBranding;
  lines: DocumentLine[];
}

/** The frozen snapshot; its docNumber is set by the issue statement, from the counter. */
export function issuedSnapshot(business: BusinessRecord, d: DocumentRow, p: IssueParts, now: Date): DocumentSnapshot {
  const { totals, money } = p;
  return {
    docType: d.docType,
    docNumber: 0, // set by the statement below, from the counter
    documentDate: d.documentDate,
    valueDate: d.valueDate,
    issuedAt: now.toISOString(),
    dealer: dealerOf(business),
    branding: p.branding,
    party: p.party,
    lines: p.lines,
    payments: money.payments,
    priceMode: d.priceMode,
    vatRateBp: totals.vatRateBp,
    vatExemptionReason: d.vatExemptionReason,
    totals: {
      totalExVat: totals.totalExVat,
      vatAmount: totals.vatAmount,
      totalIncVat: totals.totalIncVat,
      discountAmount: totals.discountAmount,
      withholdingAmount: totals.withholdingAmount,
    },
    note: d.note,
    allocationNumber: d.allocationNumber,
    linkedDocument: null,
    metadata: d.metadata,
    currency: money.currency,
    exchangeRate: money.exchangeRate,
    exchangeRateDate: money.exchangeRateDate,
    exchangeRateSource: money.exchangeRateSource,
    ils: money.ils,
    language: d.language,
    ...donationSnapshotPart(business, d.docType),
  };
}

/** The issued row as issue_document writes it (`docNumber` aside: the database takes it). */
export function issuedRowOf(
  d: DocumentRow,
  p: IssueParts & { allocation: AllocationState; warnings: DocumentWarning[]; snapshot: DocumentSnapshot },
  now: Date,
): DocumentRow {
  const { totals, money } = p;
  return {
    ...d,
    status: 'issued',
    party: p.party,
    lines: p.lines,
    payments: money.payments,
    vatRateBp: totals.vatRateBp,
    discountAmount: totals.discountAmount,
    exchangeRate: money.exchangeRate,
    exchangeRateDate: money.exchangeRateDate,
    exchangeRateSource: money.exchangeRateSource,
    totalExVat: totals.totalExVat,
    vatAmount: totals.vatAmount,
    totalIncVat: totals.totalIncVat,
    allocation: p.allocation,
    warnings: p.warnings,
    snapshot: p.snapshot,
    issuedAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
}
