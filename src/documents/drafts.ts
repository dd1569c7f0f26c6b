/** Draft create (idempotent), patch and delete. Drafts consume no number. */
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Executor, Tx } from '../platform/db/engine.ts';
import { pgErrorCode, queryOne, queryText } from '../platform/db/sql.ts';
import { insertText, rawRowOf, type InsertValues } from '../platform/db/insert-values.ts';
import { documents } from './tables.ts';
import { AppError, conflict, validation } from '../platform/errors.ts';
import { appendAudit, auditRowCall } from '../platform/audit.ts';
import { canonicalJson } from '../platform/canonical-json.ts';
import { israelDate } from '../platform/clock.ts';
import { newId } from '../platform/ids.ts';
import type { Services } from '../platform/http/services.ts';
import type { RequestContext } from '../platform/http/context.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { getParty } from '../parties/index.ts';
import { documentColumns, documentView, findDocumentRow, getDocumentRow, toDocumentRow, type DocumentRow, type DocumentView } from './snapshot.ts';
import { type DocumentParty } from './snapshot-types.ts';
import type { DraftCreateBody, DraftPatchBody, PartyInputBody } from './schemas.ts';
import { checkDraft, normalizeInlineParty, normalizeLine, normalizePayment, type DraftFields } from './draft-input.ts';
import { totalsOfDraft } from './totals.ts';
import { forgetDraft, rememberDraft } from './draft-cache.ts';
import { metadataToStore, type Metadata } from '../platform/metadata.ts';
import { SHEKEL } from '../platform/currencies.ts';

export const notDraft = (id: string) => new AppError('not_draft', `document ${id} is issued: it cannot be changed or deleted; issue a credit note instead`);

async function resolveParty(ex: Executor, businessId: string, p: PartyInputBody | null | undefined): Promise<DocumentParty | null> {
  if (p === undefined || p === null) return null;
  if ('partyId' in p) {
    try {
      const saved = await getParty(ex, businessId, p.partyId);
      return { partyId: saved.id, key: saved.key, name: saved.name, taxId: saved.taxId, phone: saved.phone, email: saved.email, address: saved.address };
    } catch (err) {
      if (err instanceof AppError && err.status === 404) throw validation('body.party.partyId', 'no saved party with this id in the business');
      throw err;
    }
  }
  return normalizeInlineParty(p);
}

/**
 * The idempotency fingerprint of a create body: everything except the key itself. Null without a key:
 * only a create under a key can be replayed, and only it is compared (sha256 of the canonical JSON).
 */
export function requestHash(body: DraftCreateBody, externalRef: string | null): string | null {
  if (externalRef === null) return null;
  const { externalRef: _ignored, ...rest } = body;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}

interface DraftToInsert {
  fields: DraftFields;
  totals: { totalExVat: number; vatAmount: number; totalIncVat: number };
  externalRef: string | null;
  hash: string | null;
  metadata: Metadata | undefined;
  datedAtIssue: boolean;
}

/** The new draft's row. */
function draftValues(ctx: RequestContext, at: Date, businessId: string, draft: DraftToInsert): InsertValues<typeof documents> {
  const { fields: d, totals } = draft;
  return {
    id: newId('doc', at.getTime()),
    businessId,
    status: 'draft',
    docType: d.docType,
    partyId: d.party?.partyId ?? null,
    party: d.party,
    priceMode: d.priceMode,
    lines: d.lines,
    payments: d.payments,
    note: d.note,
    documentDate: d.documentDate,
    valueDate: d.valueDate,
    datedAtIssue: draft.datedAtIssue,
    vatRateBp: d.vatRateBp,
    vatExemptionReason: d.vatExemptionReason,
    discountAmount: d.discountAmount,
    withholdingAmount: d.withholdingAmount,
    totalExVat: totals.totalExVat,
    vatAmount: totals.vatAmount,
    totalIncVat: totals.totalIncVat,
    externalRef: draft.externalRef,
    requestHash: draft.hash,
    allocationNumber: d.allocationNumber,
    metadata: draft.metadata ?? {},
    currency: d.currency,
    exchangeRate: d.exchangeRate,
    language: d.language,
    createdByKeyId: ctx.key.id,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * Inserts the draft and its audit row in one statement, and remembers it with its row version for
 * its issue (draft-cache.ts); undefined when a draft with the same externalRef exists (its own create
 * answered, or a racing one).
 */
export async function insertDraft(
  ex: Executor,
  ctx: RequestContext,
  { at, businessId, draft }: { at: Date; businessId: string; draft: DraftToInsert },
): Promise<DocumentView | undefined> {
  const values = draftValues(ctx, at, businessId, draft);
  const row = toDocumentRow(rawRowOf(documents, values));
  const view = documentView(row);
  const audit = auditRowCall(at, ctx.actor, { businessId, action: 'document.create', entityType: 'document', entityId: view.id, after: view });
  const insert = insertText(documents, values);
  const inserted = await queryText<{ version: string }>(
    ex,
    'draft_insert',
    `WITH inserted AS (${insert.text}
     ON CONFLICT (business_id, external_ref) WHERE external_ref IS NOT NULL DO NOTHING RETURNING id, xmin::text AS version)
     SELECT version, audit_append($${insert.params.length + 1}::jsonb, NULL) FROM inserted`,
    [...insert.params, JSON.stringify(audit)],
  );
  if (inserted.length === 0) return undefined;
  rememberDraft(ctx.database, { row, version: inserted[0].version });
  return view;
}

function replay(existing: DocumentRow, hash: string | null): { document: DocumentView; deduped: true } {
  if (existing.requestHash !== hash) {
    throw conflict(`Idempotency-Key / externalRef "${existing.externalRef}" was already used with a different body`);
  }
  return { document: documentView(existing), deduped: true };
}

/** The one idempotency key of a create: the header or `externalRef` (they must agree when both are sent). */
function externalRefOf(body: DraftCreateBody, headerKey: string | undefined): string | null {
  const header = headerKey?.trim() || undefined;
  if (header && body.externalRef && header !== body.externalRef) {
    throw validation('body.externalRef', 'differs from the Idempotency-Key header; they are the same key, send one or make them equal');
  }
  const externalRef = header ?? body.externalRef ?? null;
  if (externalRef !== null && externalRef.length > 200) throw validation('Idempotency-Key', 'is longer than 200 characters');
  return externalRef;
}

/** A create body with its defaults filled in (the party resolved), checked for the business's dealer type. */
async function draftFieldsOf(ex: Executor, business: BusinessRecord, body: DraftCreateBody, today: string): Promise<DraftFields> {
  const fields: DraftFields = {
    docType: body.docType,
    party: await resolveParty(ex, business.id, body.party),
    priceMode: body.priceMode ?? 'net',
    lines: (body.lines ?? []).map(normalizeLine),
    payments: (body.payments ?? []).map(normalizePayment),
    note: body.note ?? null,
    documentDate: body.documentDate ?? today,
    valueDate: body.valueDate ?? body.documentDate ?? today,
    vatRateBp: body.vatRateBp ?? null,
    vatExemptionReason: body.vatExemptionReason ?? null,
    discountAmount: body.discountAmount ?? 0,
    withholdingAmount: body.withholdingAmount ?? 0,
    allocationNumber: body.allocationNumber ?? null,
    currency: body.currency ?? SHEKEL,
    exchangeRate: body.exchangeRate ?? null,
    language: body.language ?? 'he',
  };
  checkDraft(fields, business.dealerType);
  return fields;
}

/** Creates a draft in one statement (row and audit row); a create whose key was used answers the first create's draft. */
export async function createDraft(
  s: Services,
  ctx: RequestContext,
  { business, body, headerKey }: { business: BusinessRecord; body: DraftCreateBody; headerKey: string | undefined },
): Promise<{ document: DocumentView; deduped: boolean }> {
  const externalRef = externalRefOf(body, headerKey);
  const hash = requestHash(body, externalRef);
  const db = ctx.database.db;
  const now = s.clock.now();
  const fields = await draftFieldsOf(db, business, body, israelDate(now));
  const totals = totalsOfDraft(fields, business);
  const document = await insertDraft(db, ctx, {
    at: now,
    businessId: business.id,
    draft: {
      fields,
      totals,
      externalRef,
      hash,
      metadata: body.metadata,
      datedAtIssue: body.documentDate === undefined,
    },
  });
  if (document) return { document, deduped: false };
  const first = await queryOne<Record<string, unknown>>(
    db,
    sql`SELECT ${documentColumns()} FROM documents WHERE business_id = ${business.id} AND external_ref = ${externalRef}`,
  );
  return replay(toDocumentRow(first!), hash);
}

/** A draft's fields after a patch: absent keys keep the stored value, null clears a nullable one; checked for the dealer type. */
async function patchedFields(tx: Tx, business: BusinessRecord, cur: DocumentRow, body: DraftPatchBody): Promise<DraftFields> {
  // A converted draft's lines are its sources' quantities, checked again at issue: they change only by converting.
  if (cur.lines.some((l) => l.source) && (body.lines !== undefined || (body.docType !== undefined && body.docType !== cur.docType))) {
    throw conflict(
      `document ${cur.id} was converted from other documents: its lines and type come from them; convert again with the quantities wanted (or delete the draft)`,
    );
  }
  const pick = <K extends keyof DraftPatchBody, V>(k: K, fallback: V, map: (v: NonNullable<DraftPatchBody[K]>) => V): V => {
    const v = body[k];
    if (v === undefined) return fallback;
    return v === null ? (null as V) : map(v);
  };
  const fields: DraftFields = {
    docType: body.docType ?? cur.docType,
    party: body.party === undefined ? cur.party : await resolveParty(tx, business.id, body.party),
    priceMode: body.priceMode ?? cur.priceMode,
    lines: body.lines ? body.lines.map(normalizeLine) : cur.lines,
    payments: body.payments ? body.payments.map(normalizePayment) : cur.payments,
    note: pick('note', cur.note, (v) => v),
    documentDate: body.documentDate ?? cur.documentDate,
    valueDate: body.valueDate ?? cur.valueDate,
    vatRateBp: pick('vatRateBp', cur.vatRateBp, (v) => v),
    vatExemptionReason: pick('vatExemptionReason', cur.vatExemptionReason, (v) => v),
    discountAmount: body.discountAmount ?? cur.discountAmount,
    withholdingAmount: body.withholdingAmount ?? cur.withholdingAmount,
    allocationNumber: pick('allocationNumber', cur.allocationNumber, (v) => v),
    currency: body.currency ?? cur.currency,
    // A new currency without a new rate drops the old currency's rate.
    exchangeRate: body.exchangeRate !== undefined ? body.exchangeRate : body.currency !== undefined && body.currency !== cur.currency ? null : cur.exchangeRate,
    language: body.language ?? cur.language,
  };
  checkDraft(fields, business.dealerType);
  return fields;
}

export async function patchDraft(
  s: Services,
  ctx: RequestContext,
  { business, id, body }: { business: BusinessRecord; id: string; body: DraftPatchBody },
): Promise<DocumentView> {
  const now = s.clock.now();
  forgetDraft(ctx.database, id);
  return ctx.database.db.transaction(async (tx) => {
    const cur = await getDocumentRow(tx, business.id, id, true);
    if (cur.status !== 'draft') throw notDraft(id);
    const fields = await patchedFields(tx, business, cur, body);
    const t = totalsOfDraft(fields, business);
    await tx.execute(
      sql`UPDATE documents SET doc_type = ${fields.docType}, party_id = ${fields.party?.partyId ?? null}, party = ${JSON.stringify(fields.party)}::jsonb,
            price_mode = ${fields.priceMode}, lines = ${JSON.stringify(fields.lines)}::jsonb, payments = ${JSON.stringify(fields.payments)}::jsonb,
            note = ${fields.note}, document_date = ${fields.documentDate}, value_date = ${fields.valueDate},
            dated_at_issue = ${cur.datedAtIssue && body.documentDate === undefined}, vat_rate_bp = ${fields.vatRateBp},
            vat_exemption_reason = ${fields.vatExemptionReason}, discount_amount = ${fields.discountAmount},
            withholding_amount = ${fields.withholdingAmount}, total_ex_vat = ${t.totalExVat}, vat_amount = ${t.vatAmount},
            total_inc_vat = ${t.totalIncVat}, allocation_number = ${fields.allocationNumber},
            currency = ${fields.currency}, exchange_rate = ${fields.exchangeRate}, language = ${fields.language},
            metadata = ${metadataToStore(body.metadata, cur.metadata)}::jsonb, updated_at = ${now.toISOString()}
          WHERE id = ${id}`,
    );
    return draftUpdated(tx, { at: now, actor: ctx.actor, before: cur });
  });
}

/** A draft changed in this transaction: its view read back, the `document.update` audit row from before to after. */
export async function draftUpdated(tx: Tx, { at, actor, before }: { at: Date; actor: RequestContext['actor']; before: DocumentRow }): Promise<DocumentView> {
  const after = documentView(await getDocumentRow(tx, before.businessId, before.id));
  const entry = { businessId: before.businessId, entityId: before.id, before: documentView(before), after };
  await appendAudit(tx, { at, actor }, { ...entry, action: 'document.update', entityType: 'document' });
  return after;
}

export async function deleteDraft(s: Services, ctx: RequestContext, business: BusinessRecord, id: string): Promise<void> {
  const now = s.clock.now();
  forgetDraft(ctx.database, id);
  await ctx.database.db.transaction(async (tx) => {
    const cur = await findDocumentRow(tx, business.id, id, true);
    if (!cur) throw new AppError('not_found', 'document not found');
    if (cur.status !== 'draft') throw notDraft(id);
    try {
      await tx.execute(sql`DELETE FROM documents WHERE id = ${id} AND status = 'draft'`);
    } catch (err) {
      if (pgErrorCode(err) === 'P0001') throw notDraft(id);
      throw err;
    }
    await appendAudit(
      tx,
      { at: now, actor: ctx.actor },
      {
        businessId: business.id,
        action: 'document.delete',
        entityType: 'document',
        entityId: id,
        before: documentView(cur),
      },
    );
  });
}
