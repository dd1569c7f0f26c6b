/**
 * POST …/documents/{id}/convert (issue 30): an issued document becomes a draft of another type with its
 * party and its lines (all that is left of them at the target's stage, or a chosen part), or adds its
 * lines to a converted draft of the same party (`draftId`: two delivery notes invoiced by one 305).
 * conversion.ts decides; conversion-store.ts checks again at issue under the source's lock.
 */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { AppError, conflict, validation } from '../platform/errors.ts';
import { canonicalJson } from '../platform/canonical-json.ts';
import { israelDate } from '../platform/clock.ts';
import type { Services } from '../platform/http/services.ts';
import type { RequestContext } from '../platform/http/context.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { docTypeAllowed, docTypeRefusal, type DocType } from './doc-types.ts';
import { checkDraft, type DraftFields } from './draft-input.ts';
import { totalsOfDraft } from './totals.ts';
import { draftUpdated, insertDraft, notDraft } from './drafts.ts';
import { forgetDraft } from './draft-cache.ts';
import { getDocumentRow, type DocumentRow, type DocumentView } from './snapshot.ts';
import { type DocumentParty } from './snapshot-types.ts';
import { conversionRefusal, convertedLines, discountShare, quantitiesFrom, stageOf, type ChosenLines, type ConversionSource } from './conversion.ts';
import { takenInStage } from './conversion-store.ts';

export interface ConvertRequest {
  docType: DocType;
  lines?: ChosenLines;
  draftId?: string;
}

/** The issued source, its conversion into `to` allowed (404, 409 `conflict`, 400 `doc_type_not_allowed`). */
async function convertibleSource(ex: Executor, business: BusinessRecord, id: string, to: DocType): Promise<DocumentRow> {
  if (!docTypeAllowed(business.dealerType, to)) throw new AppError('doc_type_not_allowed', `docType: ${docTypeRefusal(business.dealerType)}`);
  const source = await getDocumentRow(ex, business.id, id);
  if (source.status !== 'issued') throw conflict(`document ${id} is a draft: issue it before converting it`);
  const refusal = conversionRefusal(source.docType, to);
  if (refusal) throw conflict(refusal);
  return source;
}

const asSource = (d: DocumentRow): ConversionSource => ({
  id: d.id,
  docType: d.docType,
  docNumber: d.docNumber!,
  lines: d.snapshot!.lines,
  discountAmount: d.snapshot!.totals.discountAmount,
});

/** The new draft's fields: the source's party, price mode, currency, language, VAT treatment and note. */
function draftOf(source: DocumentRow, to: DocType, lines: DraftFields['lines'], today: string): DraftFields {
  const snap = source.snapshot!;
  return {
    docType: to,
    party: snap.party,
    priceMode: snap.priceMode,
    lines,
    payments: [],
    note: snap.note,
    documentDate: today,
    valueDate: today,
    // An exempt sale stays exempt; otherwise the target takes the rate in force when it is issued.
    vatRateBp: snap.vatExemptionReason ? 0 : null,
    vatExemptionReason: snap.vatExemptionReason,
    discountAmount: discountShare(asSource(source), lines),
    withholdingAmount: 0,
    allocationNumber: null,
    currency: source.currency,
    exchangeRate: null,
    language: source.language,
  };
}

const sameParty = (a: DocumentParty | null, b: DocumentParty | null) =>
  (a?.partyId ?? null) === (b?.partyId ?? null) && (a?.name ?? null) === (b?.name ?? null) && (a?.taxId ?? null) === (b?.taxId ?? null);

/** Refuses a draft that cannot take the source's lines: not a draft, another type or party, or lines priced another way. */
function checkJoinable(draft: DocumentRow, source: DocumentRow, docType: DocumentRow['docType']): void {
  if (draft.status !== 'draft') throw notDraft(draft.id);
  if (draft.docType !== docType) throw conflict(`draft ${draft.id} is a ${draft.docType}, not a ${docType}`);
  if (!draft.lines.every((l) => l.source))
    throw conflict(`draft ${draft.id} was not converted from other documents: only a converted draft takes more sources`);
  const snap = source.snapshot!;
  if (!sameParty(draft.party, snap.party)) throw conflict(`draft ${draft.id} is for another party than ${source.docType} #${source.docNumber}`);
  // Lines priced another way (net/gross, currency, VAT treatment) would not add up in one document.
  if (draft.currency !== source.currency || draft.priceMode !== snap.priceMode || draft.vatExemptionReason !== snap.vatExemptionReason) {
    throw conflict(
      `draft ${draft.id} and ${source.docType} #${source.docNumber} differ in currency, price mode or VAT treatment: their lines cannot be one document`,
    );
  }
}

/** Adds the source's lines to a converted draft of the same type and party, in one transaction with the draft locked. */
async function addToDraft(
  s: Services,
  ctx: RequestContext,
  { business, source, req }: { business: BusinessRecord; source: DocumentRow; req: ConvertRequest & { draftId: string } },
) {
  const now = s.clock.now();
  // The draft changes: its issue reads it again rather than the copy remembered at its create (draft-cache.ts).
  forgetDraft(ctx.database, req.draftId);
  return ctx.database.db.transaction(async (tx) => {
    const draft = await getDocumentRow(tx, business.id, req.draftId, true);
    checkJoinable(draft, source, req.docType);
    const src = asSource(source);
    const issued = await takenInStage(tx, { id: source.id, lineCount: src.lines.length }, stageOf(req.docType));
    const inDraft = quantitiesFrom(source.id, src.lines.length, draft.lines);
    const added = convertedLines({ source: src, taken: issued.map((q, i) => q + inDraft[i]), chosen: req.lines });
    // The draft as it is, with the lines added and their share of the source's document discount.
    const fields: DraftFields = {
      docType: draft.docType,
      party: draft.party,
      priceMode: draft.priceMode,
      lines: [...draft.lines, ...added],
      payments: draft.payments,
      note: draft.note,
      documentDate: draft.documentDate,
      valueDate: draft.valueDate,
      vatRateBp: draft.vatRateBp,
      vatExemptionReason: draft.vatExemptionReason,
      discountAmount: draft.discountAmount + discountShare(src, added),
      withholdingAmount: draft.withholdingAmount,
      allocationNumber: draft.allocationNumber,
      currency: draft.currency,
      exchangeRate: draft.exchangeRate,
      language: draft.language,
    };
    checkDraft(fields, business.dealerType);
    const t = totalsOfDraft(fields, business);
    await tx.execute(
      sql`UPDATE documents SET lines = ${JSON.stringify(fields.lines)}::jsonb, discount_amount = ${fields.discountAmount},
            total_ex_vat = ${t.totalExVat}, vat_amount = ${t.vatAmount}, total_inc_vat = ${t.totalIncVat}, updated_at = ${now.toISOString()}
          WHERE id = ${draft.id} AND status = 'draft'`,
    );
    return draftUpdated(tx, { at: now, actor: ctx.actor, before: draft });
  });
}

/** Converts the issued document `id` (see the header): answers the draft, new or added to. */
export async function convertDocument(
  s: Services,
  ctx: RequestContext,
  { business, id, req }: { business: BusinessRecord; id: string; req: ConvertRequest },
): Promise<DocumentView> {
  const db = ctx.database.db;
  const source = await convertibleSource(db, business, id, req.docType);
  if (req.draftId !== undefined) {
    if (req.draftId === id) throw validation('body.draftId', 'is the document being converted');
    return addToDraft(s, ctx, { business, source, req: { ...req, draftId: req.draftId } });
  }
  const now = s.clock.now();
  const src = asSource(source);
  const taken = await takenInStage(db, { id, lineCount: src.lines.length }, stageOf(req.docType));
  const fields = draftOf(source, req.docType, convertedLines({ source: src, taken, chosen: req.lines }), israelDate(now));
  checkDraft(fields, business.dealerType);
  const hash = createHash('sha256')
    .update(canonicalJson({ convert: id, ...req }))
    .digest('hex');
  const view = await insertDraft(db, ctx, {
    at: now,
    businessId: business.id,
    draft: {
      fields,
      totals: totalsOfDraft(fields, business),
      externalRef: null,
      hash,
      metadata: undefined,
      datedAtIssue: true,
    },
  });
  // Without an externalRef the insert never meets a conflict: it always answers the row.
  return view!;
}
