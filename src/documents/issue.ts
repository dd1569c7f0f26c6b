/**
 * Issue: one short transaction that checks the guards, takes the next number of the series,
 * freezes the snapshot, and writes the audit row, the event and the follow-up jobs.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../platform/db/engine.ts';
import { prepared, queryOne } from '../platform/db/sql.ts';
import { columnList } from '../platform/db/row-reader.ts';
import { documents } from './tables.ts';
import { AppError, limitReached, validation } from '../platform/errors.ts';
import { appendAudit } from '../platform/audit.ts';
import { eventInsert } from '../platform/outbox.ts';
import { postDocumentEntry } from '../ledger/index.ts';
import { jobInsert } from '../platform/jobs.ts';
import { countDocumentIssued } from '../platform/metrics.ts';
import { israelDate, israelMonthStart } from '../platform/clock.ts';
import { allowanceTake, counterBump, subject } from '../platform/usage.ts';
import { storeFile } from '../platform/files.ts';
import type { Services } from '../platform/http/services.ts';
import type { RequestContext } from '../platform/http/context.ts';
import { businessCeilings, type BusinessRecord, type StoredBranding, decodeLogo } from '../businesses/index.ts';
import { getParty } from '../parties/index.ts';
import { allocationEligibility } from './allocation-eligibility.ts';
import {
  documentView,
  findDocumentRow,
  getDocumentRow,
  toDocumentRow,
  type AllocationState,
  dealerOf,
  type DocType,
  type DocumentLine,
  type DocumentParty,
  type DocumentRow,
  type DocumentSnapshot,
  type DocumentView,
  type DocumentWarning,
  type Totals,
} from './snapshot.ts';
import type { IssueBodyInput } from './schemas.ts';
import { buyerTaxIdRequired, paymentsProblem, totalsOfDraft } from './totals.ts';
import { DOC_TYPES, docTypeAllowed, docTypeRefusal } from './doc-types.ts';
import { nextNumberUpsert } from './numbering.ts';
import { frozenCurrency, rateAtIssue, shekelFiguresProblem, type FrozenCurrency } from './issue-currency.ts';

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

/** The upsert that counts one more document issued by the business this Israel month. */
export function monthCountBump(businessId: string, now: Date): SQL {
  return sql`INSERT INTO document_month_counts(business_id, month, count) VALUES (${businessId}, ${israelMonthStart(now)}, 1)
      ON CONFLICT (business_id, month) DO UPDATE SET count = document_month_counts.count + 1`;
}

const ceilingReached = (max: number) =>
  limitReached(`the business reached its ceiling of ${max} issued documents this month; it resets on the 1st (Israel time)`);

/**
 * Writes the audit row, the `document.issued` event, usage and the render job of a just-issued row
 * (with `extra` writes of the caller), all in one statement after the audit chain's lock.
 */
export async function afterIssue(
  tx: Tx,
  ctx: RequestContext,
  business: BusinessRecord,
  row: DocumentRow,
  now: Date,
  action: 'document.issue' | 'document.credit_note',
  extra: SQL[] = [],
): Promise<DocumentView> {
  const view = documentView(row);
  // The books: the document's journal entry, in the same transaction (src/ledger).
  await postDocumentEntry(tx, now, {
    businessId: business.id,
    dealerType: business.dealerType,
    documentId: row.id,
    snapshot: row.snapshot!,
    keyId: ctx.actor.keyId,
  });
  const event = eventInsert(now, {
    event: 'document.issued',
    accountId: business.accountId,
    businessId: business.id,
    data: {
      documentId: row.id,
      docType: row.docType,
      docNumber: row.docNumber,
      totalIncVat: row.totalIncVat,
      // The unit of totalIncVat (minor units of this currency), and the shekel total (issue 21).
      currency: row.currency,
      totalIncVatIls: view.ils?.totalIncVat ?? row.totalIncVat,
      partyName: view.party?.name ?? null,
      externalRef: row.externalRef,
    },
  });
  await appendAudit(tx, now, ctx.actor, { businessId: business.id, action, entityType: 'document', entityId: row.id, after: view }, [
    event,
    // Per business, not per account: an account-wide row would make every business of the account
    // wait for each other's commits; GET /usage sums the account's businesses.
    counterBump(israelDate(now), subject.business(business.id), 'documents_issued'),
    jobInsert(now, { kind: 'document.render', refId: row.id, businessId: business.id }),
    ...extra,
  ]);
  return view;
}

/** Refusals by the type's rules (doc-types.ts): a dealer that may not issue it, lines it needs. */
function checkIssuable(business: BusinessRecord, d: DocumentRow): void {
  if (!docTypeAllowed(business.dealerType, d.docType)) {
    throw new AppError(422, 'doc_type_not_allowed', docTypeRefusal(business.dealerType));
  }
  if (DOC_TYPES[d.docType].linesRequired && d.lines.length === 0) {
    throw validation('lines', `a ${d.docType} needs at least one line`);
  }
}

/** The totals at issue, their payments checked, and the frozen currency with the shekel figures. */
async function figuresAtIssue(s: Services, tx: Tx, business: BusinessRecord, d: DocumentRow) {
  const totals = totalsOfDraft(d, business);
  const payProblem = paymentsProblem(d.docType, totals, d.payments.length);
  if (payProblem) throw new AppError(422, 'payments_mismatch', `payments: ${payProblem}`);
  // A foreign-currency document takes its rate now (the draft's, the business's or the Bank of
  // Israel's for its date); thresholds and the books go by the shekel figures.
  const money = frozenCurrency(await rateAtIssue(s, tx, business.id, d), totals, d.payments);
  const shekelProblem = shekelFiguresProblem(money, totals);
  if (shekelProblem) throw validation(shekelProblem.field, shekelProblem.problem);
  return { totals, money };
}

/** The warnings and the allocation state at issue (decisions.md); a strict business is refused a missing number. */
function allocationAtIssue(business: BusinessRecord, d: DocumentRow, party: DocumentParty | null, ils: Totals, now: Date) {
  const warnings: DocumentWarning[] = [];
  if (buyerTaxIdRequired(d.docType, ils.totalExVat) && !party?.taxId) {
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
        422,
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
interface IssueParts {
  party: DocumentParty | null;
  totals: ReturnType<typeof totalsOfDraft>;
  money: FrozenCurrency;
  branding: StoredBranding;
  lines: DocumentLine[];
}

/** The frozen snapshot; its docNumber is set by the issue statement, from the counter. */
function issuedSnapshot(business: BusinessRecord, d: DocumentRow, p: IssueParts, now: Date): DocumentSnapshot {
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
  };
}

/**
 * One statement: the day's allowance, the month's count, the next number of the series (its row
 * stays locked until commit: keep the rest short) and the row itself. A refused allowance or
 * ceiling throws in the caller and the rollback gives the number back.
 */
function issueStatement(
  business: BusinessRecord,
  id: string,
  now: Date,
  maxPerMonth: number | null,
  p: IssueParts & { docType: DocType; allocation: AllocationState; warnings: DocumentWarning[]; snapshot: DocumentSnapshot },
): SQL {
  const { totals, money } = p;
  return sql`WITH allowance AS (${allowanceTake(israelDate(now), subject.business(business.id), 'documents_opened', DOCUMENTS_PER_BUSINESS_PER_DAY)}),
          month AS (
            INSERT INTO document_month_counts(business_id, month, count) VALUES (${business.id}, ${israelMonthStart(now)}, 1)
            ON CONFLICT (business_id, month) DO UPDATE SET count = document_month_counts.count + 1
              WHERE ${maxPerMonth}::bigint IS NULL OR document_month_counts.count < ${maxPerMonth}::bigint
            RETURNING count),
          num AS (${nextNumberUpsert(business.id, p.docType)}),
          issued AS (
            UPDATE documents SET status = 'issued', doc_number = num.last_number, party = ${JSON.stringify(p.party)}::jsonb,
              lines = ${JSON.stringify(p.lines)}::jsonb, payments = ${JSON.stringify(money.payments)}::jsonb,
              vat_rate_bp = ${totals.vatRateBp}, discount_amount = ${totals.discountAmount},
              exchange_rate = ${money.exchangeRate}, exchange_rate_date = ${money.exchangeRateDate}, exchange_rate_source = ${money.exchangeRateSource},
              total_ex_vat = ${totals.totalExVat}, vat_amount = ${totals.vatAmount}, total_inc_vat = ${totals.totalIncVat},
              allocation = ${JSON.stringify(p.allocation)}::jsonb, warnings = ${JSON.stringify(p.warnings)}::jsonb,
              snapshot = jsonb_set(${JSON.stringify(p.snapshot)}::jsonb, '{docNumber}', to_jsonb(num.last_number)),
              issued_at = ${now.toISOString()}, updated_at = ${now.toISOString()}
            FROM num WHERE documents.id = ${id} AND documents.status = 'draft'
            RETURNING ${columnList(documents, 'documents')})
        SELECT issued.*, (SELECT count FROM allowance) AS allowance, (SELECT count FROM month) AS month_count FROM issued`;
}

type IssueAnswer = Record<string, unknown> & { allowance: number | null; month_count: number | null };

/** The issue statement's answer: the issued row, or the limit it ran into. */
function issuedRowOf(updated: IssueAnswer | undefined | null, id: string, maxPerMonth: number | null): DocumentRow {
  if (!updated) throw new Error(`document ${id}: the locked draft was not updated`);
  if (updated.allowance === null || Number(updated.allowance) > DOCUMENTS_PER_BUSINESS_PER_DAY) {
    throw limitReached(`documents issued per business: the daily limit of ${DOCUMENTS_PER_BUSINESS_PER_DAY} is reached; it resets at midnight Israel time`);
  }
  if (maxPerMonth !== null && (updated.month_count === null || Number(updated.month_count) > maxPerMonth)) throw ceilingReached(maxPerMonth);
  return toDocumentRow(updated);
}

/** The issue transaction: the locked draft, its checks and figures, the one issue statement, then afterIssue. */
async function issueInTransaction(
  s: Services,
  ctx: RequestContext,
  tx: Tx,
  business: BusinessRecord,
  id: string,
  body: IssueBodyInput,
  call: { maxPerMonth: number | null; now: Date },
): Promise<{ document: DocumentView; deduped: boolean }> {
  const { maxPerMonth, now } = call;
  const d = await findDocumentRow(tx, business.id, id, true);
  if (!d) throw new AppError(404, 'not_found', 'document not found');
  if (d.status === 'issued') return { document: documentView(d), deduped: true };
  checkIssuable(business, d);
  const party = await currentParty(tx, business.id, d.party);
  const { totals, money } = await figuresAtIssue(s, tx, business, d);
  const { warnings, allocation } = allocationAtIssue(business, d, party, money.ils, now);
  if (maxPerMonth !== null && maxPerMonth <= 0) throw ceilingReached(maxPerMonth);
  const branding = await brandingFor(tx, now, business, body?.branding);
  const lines = d.lines.map((l, i) => ({ ...l, amount: totals.lineAmounts[i] }));
  const parts = { party, totals, money, branding, lines };
  const snapshot = issuedSnapshot(business, d, parts, now);
  const updated = await queryOne<IssueAnswer>(
    tx,
    prepared('issue', issueStatement(business, id, now, maxPerMonth, { ...parts, docType: d.docType, allocation, warnings, snapshot })),
  );
  const issued = issuedRowOf(updated, id, maxPerMonth);
  const allocationJob = allocation.status === 'pending' ? [jobInsert(now, { kind: 'document.allocation', refId: id, businessId: business.id })] : [];
  return { document: await afterIssue(tx, ctx, business, issued, now, 'document.issue', allocationJob), deduped: false };
}

export async function issueDocument(
  s: Services,
  ctx: RequestContext,
  business: BusinessRecord,
  id: string,
  body: IssueBodyInput,
): Promise<{ document: DocumentView; deduped: boolean }> {
  const db = ctx.database.db;
  if (business.approvalStatus !== 'approved') {
    const current = await getDocumentRow(db, business.id, id);
    if (current.status === 'issued') return { document: documentView(current), deduped: true };
    throw approvalRequired(business);
  }
  // The control plane is read before the transaction: on the embedded engine one database may
  // answer both, and a query outside an open transaction would wait for it.
  const ceilings = await businessCeilings(s, business, ctx.accountLimits);
  const now = s.clock.now();
  const result = await db.transaction((tx) => issueInTransaction(s, ctx, tx, business, id, body, { maxPerMonth: ceilings.maxDocsPerMonth, now }));
  if (!result.deduped) countDocumentIssued(ctx.database.mode, result.document.docType);
  return result;
}
