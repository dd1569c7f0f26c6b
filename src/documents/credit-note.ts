/**
 * Credit notes: the only way to undo an issued document. A 305/320 gets a linked 330 in its own
 * series mirroring the original's amounts and VAT rate (positive amounts: the type carries the
 * meaning, OPENFRMT §2.4(יב)), or crediting part of it — chosen lines and quantities, or an amount
 * (partial-credit.ts); a 400 gets a negative receipt in the 400 series (doc-types.ts `creditedBy`).
 * The original stays issued and shows cancelledByDocumentId once its credits reach its whole total.
 */
import { sql } from 'drizzle-orm';
import { query, queryOne } from '../platform/db/sql.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { documents } from './tables.ts';
import { AppError, conflict, validation } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { countDocumentIssued } from '../platform/metrics.ts';
import { israelDate as israelToday } from '../platform/clock.ts';
import type { Services } from '../platform/http/services.ts';
import type { RequestContext } from '../platform/http/context.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import type { Tx } from '../platform/db/engine.ts';
import { dealerOf, getDocumentRow, toDocumentRow, type DocumentRow, type DocumentView } from './snapshot.ts';
import { type AllocationState, type DocumentSnapshot } from './snapshot-types.ts';
import { DOC_TYPES, type CreditRule } from './doc-types.ts';
import { takeNextNumber } from './numbering.ts';
import { datingRefusal } from './issue-dates.ts';
import { afterIssue, approvalRequired, monthCountBump } from './issue.ts';
import { creditedSoFar, partialCreditOf, type CreditRequest, type PartialCredit } from './partial-credit.ts';

/** How the original is undone (doc-types.ts `creditedBy`); a 409 for a type that cannot be credited or a reversal. */
function creditRuleOf(original: DocumentRow): CreditRule {
  const rule = DOC_TYPES[original.docType];
  const credit = rule.creditedBy;
  if (!rule.taxDocument) throw conflict(`a ${rule.code} ${rule.noun} is not a tax document and cannot be credited; goods coming back are a 210 return note`);
  if (!credit || original.linkedDocumentId) throw conflict('a credit note or negative receipt cannot itself be credited');
  return credit;
}

/** The content of the reversing document, from the original's frozen snapshot. Pure. */
export function reversalOf(original: DocumentRow, reason: string | null): Omit<DocumentSnapshot, 'docNumber' | 'issuedAt' | 'documentDate' | 'valueDate'> {
  const snap = original.snapshot!;
  // The credit mirrors the original's currency and rate (an older snapshot is a shekel one).
  const ils = snap.ils ?? snap.totals;
  const money = {
    currency: snap.currency ?? 'ILS',
    exchangeRate: snap.exchangeRate ?? null,
    exchangeRateDate: snap.exchangeRateDate ?? null,
    exchangeRateSource: snap.exchangeRateSource ?? null,
    language: snap.language ?? 'he',
  };
  const linkedDocument = { id: original.id, docType: original.docType, docNumber: original.docNumber! };
  const credit = creditRuleOf(original);
  if (credit.as === 'negative') {
    // A negative receipt: the money goes back by the same methods.
    const payments = snap.payments.map((p) => ({
      ...p,
      amount: -p.amount,
      ...(p.originalAmount !== undefined ? { originalAmount: -p.originalAmount } : {}),
      // The shekel amount frozen at issue, negated: a credit never converts again.
      ...(p.amountIls !== undefined ? { amountIls: -p.amountIls } : {}),
    }));
    return {
      ...snap,
      ...money,
      docType: credit.docType,
      payments,
      ils: {
        totalExVat: -ils.totalExVat,
        vatAmount: -ils.vatAmount,
        totalIncVat: -ils.totalIncVat,
        discountAmount: 0,
        withholdingAmount: -ils.withholdingAmount,
      },
      totals: {
        totalExVat: -snap.totals.totalExVat,
        vatAmount: -snap.totals.vatAmount,
        totalIncVat: -snap.totals.totalIncVat,
        discountAmount: 0,
        withholdingAmount: -snap.totals.withholdingAmount,
      },
      note: reason,
      allocationNumber: null,
      linkedDocument,
    };
  }
  // A 330 mirrors the invoice part: same lines, same rate, same amounts; no payments, no withholding.
  return {
    ...snap,
    ...money,
    docType: credit.docType,
    payments: [],
    totals: { ...snap.totals, withholdingAmount: 0 },
    ils: { ...ils, withholdingAmount: 0 },
    note: reason,
    allocationNumber: null,
    linkedDocument,
  };
}

/** A partial credit's content in place of the mirror's lines and totals (and, in a foreign currency, shekel figures). */
function withPart(whole: ReturnType<typeof reversalOf>, part: PartialCredit | null): ReturnType<typeof reversalOf> {
  if (!part) return { ...whole, credited: { kind: 'whole' } };
  return { ...whole, lines: part.lines, totals: part.totals, ils: part.ils, credited: part.credited };
}

/** The reversing document's snapshot: the original's content (or the part credited), today's dealer and branding, its own number, dated the day it is issued. */
function creditSnapshot(
  business: BusinessRecord,
  c: { original: DocumentRow; reason: string | null; part: PartialCredit | null; docNumber: number; now: Date },
): DocumentSnapshot {
  const { original, now } = c;
  const day = israelToday(now);
  // A new document: the dealer's details and branding as they are today.
  return {
    ...withPart(reversalOf(original, c.reason), c.part),
    docNumber: c.docNumber,
    issuedAt: now.toISOString(),
    documentDate: day,
    valueDate: day,
    dealer: dealerOf(business),
    branding: business.branding,
    metadata: {}, // the credit note's own (its row starts empty), not the original's
  };
}

/** Inserts the issued reversing document and marks the original as cancelled by it. */
async function insertCredit(
  tx: Tx,
  ctx: RequestContext,
  { business, original, snapshot, now, full }: { business: BusinessRecord; original: DocumentRow; snapshot: DocumentSnapshot; now: Date; full: boolean },
): Promise<DocumentRow> {
  const allocation: AllocationState = { status: 'not_required', number: null, error: null, requestedAt: null, decidedAt: null };
  const id = newId('doc', now.getTime());
  const day = snapshot.documentDate;
  const r = await queryOne<Record<string, unknown>>(
    tx,
    sql`${insertInto(documents, {
      id,
      businessId: business.id,
      status: 'issued',
      docType: snapshot.docType,
      docNumber: snapshot.docNumber,
      partyId: original.partyId,
      party: snapshot.party,
      priceMode: snapshot.priceMode,
      lines: snapshot.lines,
      payments: snapshot.payments,
      note: snapshot.note,
      documentDate: day,
      valueDate: day,
      vatRateBp: snapshot.vatRateBp,
      vatExemptionReason: snapshot.vatExemptionReason,
      discountAmount: snapshot.totals.discountAmount,
      withholdingAmount: snapshot.totals.withholdingAmount,
      totalExVat: snapshot.totals.totalExVat,
      vatAmount: snapshot.totals.vatAmount,
      totalIncVat: snapshot.totals.totalIncVat,
      currency: snapshot.currency,
      exchangeRate: snapshot.exchangeRate,
      exchangeRateDate: snapshot.exchangeRateDate,
      exchangeRateSource: snapshot.exchangeRateSource,
      language: snapshot.language,
      linkedDocumentId: original.id,
      allocation,
      warnings: [],
      snapshot,
      issuedAt: now,
      createdByKeyId: ctx.key.id,
      createdAt: now,
      updatedAt: now,
    })} RETURNING *`,
  );
  // Only the credit that reaches the whole total cancels the original (a partial one leaves it open).
  if (full) await tx.execute(sql`UPDATE documents SET cancelled_by_document_id = ${id}, updated_at = ${now.toISOString()} WHERE id = ${original.id}`);
  return toDocumentRow(r!);
}

/** The credit notes of a document written before, in number order (read under the original's row lock). */
async function earlierCredits(tx: Tx, businessId: string, originalId: string): Promise<DocumentSnapshot[]> {
  const rows = await query<{ snapshot: DocumentSnapshot }>(
    tx,
    sql`SELECT snapshot FROM documents WHERE business_id = ${businessId} AND linked_document_id = ${originalId} AND status = 'issued' ORDER BY doc_number`,
  );
  return rows.map((r) => r.snapshot);
}

/**
 * What this credit takes of the original (documents/partial-credit.ts): null for the plain mirror. A
 * negative receipt reverses a receipt whole, once.
 */
function partOf(original: DocumentRow, credit: CreditRule, earlier: DocumentSnapshot[], request: CreditRequest): PartialCredit | null {
  if (credit.as === 'negative') {
    if (request.lines || request.amount !== undefined) {
      // A receipt attests money received (bookkeeping instructions §5); its negative receipt hands back
      // the same means of payment (the cheque, the card charge). Money returned in part is a new payment out.
      throw validation(
        request.lines ? 'body.lines' : 'body.amount',
        `a ${original.docType} is reversed whole by a negative receipt that hands back its means of payment; money returned in part is a new payment, not a correction of the receipt — partial credits are of invoices (305, 320) (docs/documents.md "Partial credit notes")`,
      );
    }
    if (earlier.length > 0) throw conflict(`document ${original.id} was already credited`);
    return null;
  }
  return partialCreditOf({ original: original.snapshot!, soFar: creditedSoFar(original.snapshot!, earlier), request });
}

/**
 * Credits an issued document, whole or in part (`request`). The original's row is locked first, so the
 * credits of one document are written one at a time, each after reading those before it: together they
 * never pass its total, however many race.
 */
export async function issueCreditNote(
  s: Services,
  ctx: RequestContext,
  { business, id, body }: { business: BusinessRecord; id: string; body: { reason: string | null } & CreditRequest },
): Promise<DocumentView> {
  const db = ctx.database.db;
  const first = await getDocumentRow(db, business.id, id);
  if (first.status !== 'issued') throw new AppError('not_draft', 'a draft cannot be credited: delete or edit it instead');
  if (business.approvalStatus !== 'approved') throw approvalRequired(business);
  const now = s.clock.now();
  try {
    const creditNote = await db.transaction(async (tx) => {
      const original = await getDocumentRow(tx, business.id, id, true);
      if (original.cancelledByDocumentId) throw conflict(`document ${id} was already credited in full, by ${original.cancelledByDocumentId}`);
      const credit = creditRuleOf(original);
      const part = partOf(original, credit, await earlierCredits(tx, business.id, id), body);
      const docNumber = await takeNextNumber(tx, business.id, credit.docType, israelToday(now));
      const snapshot = creditSnapshot(business, { original, reason: body.reason, part, docNumber, now });
      const row = await insertCredit(tx, ctx, { business, original, snapshot, now, full: part?.full ?? true });
      return afterIssue(tx, ctx, { business, row, now, action: 'document.credit_note', extra: [monthCountBump(business.id, now)] });
    });
    countDocumentIssued(ctx.database.mode, creditNote.docType);
    return creditNote;
  } catch (err) {
    throw datingRefusal(err, israelToday(now)) ?? err;
  }
}
