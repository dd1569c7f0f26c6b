/**
 * Issue: one short transaction that checks the guards, takes the next number of the series,
 * freezes the snapshot, and writes the audit row, the event and the follow-up jobs.
 */
import { sql } from 'drizzle-orm';
import type { Tx } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { AppError, limitReached, validation } from '../platform/errors.ts';
import { appendAudit } from '../platform/audit.ts';
import { recordEvent } from '../platform/outbox.ts';
import { enqueueJob } from '../platform/jobs.ts';
import { israelDate, israelMonthStart } from '../platform/clock.ts';
import { bumpCounter, subject, takeDailyAllowance } from '../platform/usage.ts';
import { storeFile } from '../platform/files.ts';
import type { Services } from '../platform/http/services.ts';
import type { RequestContext } from '../platform/http/context.ts';
import { businessCeilings, type BusinessRecord, type StoredBranding } from '../businesses/service.ts';
import { decodeLogo } from '../businesses/logo.ts';
import { getParty } from '../parties/service.ts';
import { allocationEligibility } from '../allocation/eligibility.ts';
import {
  documentView,
  findDocumentRow,
  getDocumentRow,
  toDocumentRow,
  type AllocationState,
  type DocumentParty,
  type DocumentRow,
  type DocumentSnapshot,
  type DocumentView,
  type DocumentWarning,
} from './snapshot.ts';
import type { IssueBodyInput } from './schemas.ts';
import { buyerTaxIdRequired, docTypeAllowed, paymentsProblem, totalsOfDraft } from './totals.ts';
import { takeNextNumber } from './numbering.ts';

/** "Documents opened per business per day" (service-api.md Limits). */
export const DOCUMENTS_PER_BUSINESS_PER_DAY = 300;

export const approvalRequired = (b: BusinessRecord) =>
  new AppError(403, 'approval_required', `the business is ${b.approvalStatus}: issuing waits for approval`);

/** The business's branding, or the issue body's override applied on top of it. */
async function brandingFor(tx: Tx, at: Date, business: BusinessRecord, override: NonNullable<IssueBodyInput>['branding']): Promise<StoredBranding> {
  const b: StoredBranding = { ...business.branding };
  if (!override) return b;
  if (override.logo === null) b.logoRef = null;
  else if (override.logo !== undefined) {
    const logo = decodeLogo(override.logo);
    const file = await storeFile(tx, at, { businessId: business.id, bytes: logo.bytes, mime: logo.mime, name: logo.name });
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
async function currentParty(tx: Tx, businessId: string, p: DocumentParty | null): Promise<DocumentParty | null> {
  if (!p || !p.partyId) return p;
  const saved = await getParty(tx, businessId, p.partyId);
  return { partyId: saved.id, key: saved.key, name: saved.name, taxId: saved.taxId, phone: saved.phone, email: saved.email, address: saved.address };
}

/** Exact monthly ceiling: the business row lock serializes issuers of one business while counting. */
async function checkMonthlyCeiling(tx: Tx, business: BusinessRecord, max: number | null, now: Date): Promise<void> {
  if (max === null) return;
  await tx.execute(sql`SELECT 1 FROM businesses WHERE id = ${business.id} FOR NO KEY UPDATE`);
  const r = await queryOne<{ n: number }>(
    tx,
    sql`SELECT count(*)::int AS n FROM documents
        WHERE business_id = ${business.id} AND status = 'issued'
          AND issued_at >= (${israelMonthStart(now)}::timestamp AT TIME ZONE 'Asia/Jerusalem')`,
  );
  if (Number(r!.n) >= max) {
    throw limitReached(`the business reached its ceiling of ${max} issued documents this month; it resets on the 1st (Israel time)`);
  }
}

/** Writes the `document.issued` event, the audit row, usage and the render job of a just-issued row. */
export async function afterIssue(tx: Tx, s: Services, ctx: RequestContext, business: BusinessRecord, row: DocumentRow, now: Date, action: string): Promise<DocumentView> {
  const view = documentView(row);
  await appendAudit(tx, now, ctx.actor, { businessId: business.id, action, entityType: 'document', entityId: row.id, after: view });
  await recordEvent(tx, now, {
    event: 'document.issued',
    accountId: business.accountId,
    businessId: business.id,
    data: {
      documentId: row.id,
      docType: row.docType,
      docNumber: row.docNumber,
      totalIncVat: row.totalIncVat,
      partyName: view.party?.name ?? null,
      externalRef: row.externalRef,
    },
  });
  await bumpCounter(tx, israelDate(now), subject.account(business.accountId), 'documents_issued');
  await enqueueJob(tx, now, { kind: 'document.render', refId: row.id, businessId: business.id });
  return view;
}

export async function issueDocument(
  s: Services,
  ctx: RequestContext,
  business: BusinessRecord,
  id: string,
  body: IssueBodyInput,
): Promise<{ document: DocumentView; deduped: boolean }> {
  const db = ctx.database.db;
  const first = await getDocumentRow(db, business.id, id);
  if (first.status === 'issued') return { document: documentView(first), deduped: true };
  if (business.approvalStatus !== 'approved') throw approvalRequired(business);
  // The control plane is read before the transaction: on the embedded engine one database may
  // answer both, and a query outside an open transaction would wait for it.
  const ceilings = await businessCeilings(s, business);
  const now = s.clock.now();

  return db.transaction(async (tx) => {
    const d = await findDocumentRow(tx, business.id, id, true);
    if (!d) throw new AppError(404, 'not_found', 'document not found');
    if (d.status === 'issued') return { document: documentView(d), deduped: true };

    if (!docTypeAllowed(business.dealerType, d.docType)) {
      throw new AppError(422, 'doc_type_not_allowed', `a ${business.dealerType} business issues receipts (400) only`);
    }
    if ((d.docType === 305 || d.docType === 320) && d.lines.length === 0) {
      throw validation('lines', `a ${d.docType} needs at least one line`);
    }
    const party = await currentParty(tx, business.id, d.party);
    const totals = totalsOfDraft(d, business);
    const { vatRateBp } = totals;
    const payProblem = paymentsProblem(d.docType, totals, d.payments.length);
    if (payProblem) throw new AppError(422, 'payments_mismatch', `payments: ${payProblem}`);

    const warnings: DocumentWarning[] = [];
    if (buyerTaxIdRequired(d.docType, totals.totalExVat) && !party?.taxId) {
      warnings.push({
        code: 'buyer_tax_id_missing',
        message: 'the amount before VAT is 5,000 NIS or more: when the buyer is a dealer, their tax id must appear on the document',
      });
    }
    const eligibility = allocationEligibility({
      docType: d.docType,
      documentDate: d.documentDate,
      totalExVat: totals.totalExVat,
      vatAmount: totals.vatAmount,
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
        throw new AppError(422, 'allocation_required', `an allocation number is required: the amount before VAT is above ${eligibility.threshold / 100} NIS and the buyer has a tax id`);
      }
      allocation = { status: 'pending', number: null, error: null, requestedAt: null, decidedAt: null };
      warnings.push({
        code: 'allocation_missing',
        message: `an allocation number is required (amount before VAT above ${eligibility.threshold / 100} NIS); it is being requested from the tax authority`,
      });
    }

    await takeDailyAllowance(tx, {
      day: israelDate(now),
      subject: subject.business(business.id),
      metric: 'documents_opened',
      limit: DOCUMENTS_PER_BUSINESS_PER_DAY,
      what: 'documents issued per business',
    });
    await checkMonthlyCeiling(tx, business, ceilings.maxDocsPerMonth, now);
    const branding = await brandingFor(tx, now, business, body?.branding);

    // The counter row stays locked from here to commit: keep the rest short.
    const docNumber = await takeNextNumber(tx, business.id, d.docType);
    const lines = d.lines.map((l, i) => ({ ...l, amount: totals.lineAmounts[i] }));
    const snapshot: DocumentSnapshot = {
      docType: d.docType,
      docNumber,
      documentDate: d.documentDate,
      valueDate: d.valueDate,
      issuedAt: now.toISOString(),
      dealer: { name: business.name, taxId: business.taxId, dealerType: business.dealerType, address: business.address, phone: business.phone, email: business.email },
      branding,
      party,
      lines,
      payments: d.payments,
      priceMode: d.priceMode,
      vatRateBp,
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
    };
    const updated = await queryOne<Record<string, unknown>>(
      tx,
      sql`UPDATE documents SET status = 'issued', doc_number = ${docNumber}, party = ${JSON.stringify(party)}::jsonb,
            lines = ${JSON.stringify(lines)}::jsonb, vat_rate_bp = ${vatRateBp}, discount_amount = ${totals.discountAmount},
            total_ex_vat = ${totals.totalExVat}, vat_amount = ${totals.vatAmount}, total_inc_vat = ${totals.totalIncVat},
            allocation = ${JSON.stringify(allocation)}::jsonb, warnings = ${JSON.stringify(warnings)}::jsonb,
            snapshot = ${JSON.stringify(snapshot)}::jsonb, issued_at = ${now.toISOString()}, updated_at = ${now.toISOString()}
          WHERE id = ${id} AND status = 'draft'
          RETURNING *`,
    );
    if (allocation.status === 'pending') {
      await enqueueJob(tx, now, { kind: 'document.allocation', refId: id, businessId: business.id });
    }
    const issued = toDocumentRow(updated!);
    return { document: await afterIssue(tx, s, ctx, business, issued, now, 'document.issue'), deduped: false };
  });
}
