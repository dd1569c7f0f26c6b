import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { expenses } from './tables.ts';
import { AppError, conflict, notFound, validation } from '../platform/errors.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { postExpenseEntry } from '../ledger/index.ts';
import { recordEvent } from '../platform/outbox.ts';
import { canonicalJson } from '../platform/canonical-json.ts';
import { newId } from '../platform/ids.ts';
import type { Services } from '../platform/http/services.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { inputVatOf, POSTED_IN_OPEN_PERIOD, type ExpenseWarning } from './input-vat.ts';
import { requireCompleteAmounts } from './amounts.ts';
import { applyDraftInput, EMPTY_DRAFT, requireRecordable, type DraftFields } from './draft-input.ts';
import { expenseCeiling, openExpenseRows, requireApproved } from './limits.ts';
import { EXPENSE_COLUMNS, expenseRow, toExpense } from './rows.ts';
import { metadataToStore, type Metadata } from '../platform/metadata.ts';
import type { ExpenseCreateBody, ExpensePatchBody, ExpenseView } from './schemas.ts';
import type { ExpenseSource, ExpenseStatus } from './lists.ts';

export interface NewExpenseRow extends DraftFields {
  source: ExpenseSource;
  status?: ExpenseStatus;
  receiptFileId?: string | null;
  ocrExtraction?: unknown;
  externalRef?: string | null;
  requestHash?: string | null;
  reversesExpenseId?: string | null;
  deductibleVat?: number | null;
  recordedAt?: Date | null;
  metadata?: Metadata;
}

/** Inserts a row (the caller took the row limits). Answers undefined when the externalRef already exists. */
export async function insertExpense(
  tx: Tx,
  { at, actor, business: b, row: r }: { at: Date; actor: Actor; business: BusinessRecord; row: NewExpenseRow },
): Promise<ExpenseView | undefined> {
  const id = newId('exp', at.getTime());
  const row = await queryOne<Record<string, unknown>>(
    tx,
    sql`${insertInto(expenses, {
      id,
      businessId: b.id,
      status: r.status ?? 'draft',
      source: r.source,
      categoryKey: r.categoryKey,
      supplierName: r.supplierName,
      supplierTaxId: r.supplierTaxId,
      partyId: r.partyId,
      supplierDocType: r.supplierDocType,
      supplierDocNumber: r.supplierDocNumber,
      supplierDocDate: r.supplierDocDate,
      allocationNumber: r.allocationNumber,
      amountExVat: r.amountExVat,
      vatAmount: r.vatAmount,
      amountIncVat: r.amountIncVat,
      deductibleVat: r.deductibleVat ?? null,
      note: r.note,
      receiptFileId: r.receiptFileId ?? null,
      // No extraction: the column is left to its SQL NULL (not a JSON null).
      ocrExtraction: r.ocrExtraction ?? undefined,
      reversesExpenseId: r.reversesExpenseId ?? null,
      externalRef: r.externalRef ?? null,
      requestHash: r.requestHash ?? null,
      metadata: r.metadata ?? {},
      createdByKeyId: actor.keyId,
      recordedAt: r.recordedAt ?? null,
      createdAt: at,
      updatedAt: at,
    })}
        ON CONFLICT (business_id, external_ref) WHERE external_ref IS NOT NULL DO NOTHING
        RETURNING ${EXPENSE_COLUMNS}`,
  );
  if (!row) return undefined;
  const expense = toExpense(row);
  await appendAudit(tx, { at, actor }, { businessId: b.id, action: `expense.create.${r.source}`, entityType: 'expense', entityId: id, after: expense });
  return expense;
}

export function fieldsOf(e: ExpenseView): DraftFields {
  return {
    categoryKey: e.categoryKey,
    supplierName: e.supplierName,
    supplierTaxId: e.supplierTaxId,
    partyId: e.partyId,
    supplierDocType: e.supplierDocType,
    supplierDocNumber: e.supplierDocNumber,
    supplierDocDate: e.supplierDocDate,
    allocationNumber: e.allocationNumber,
    amountExVat: e.amountExVat,
    vatAmount: e.vatAmount,
    amountIncVat: e.amountIncVat,
    note: e.note,
  };
}

export function requestHashOf(body: unknown): string {
  const { externalRef: _ignored, ...rest } = (body ?? {}) as Record<string, unknown>;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}

const RACED = Symbol('raced');

/**
 * Creates a draft. An idempotency key (header or `externalRef`) that was seen before answers the
 * same row with `deduped: true` when the body is the same, 409 `conflict` when it differs.
 */
export async function createDraft(
  s: Services,
  database: Database,
  { actor, business: b, body, headerKey }: { actor: Actor; business: BusinessRecord; body: ExpenseCreateBody; headerKey: string | undefined },
): Promise<{ expense: ExpenseView; deduped: boolean }> {
  if (headerKey !== undefined && body.externalRef !== undefined && headerKey !== body.externalRef) {
    throw validation('body.externalRef', 'differs from the Idempotency-Key header; send one or make them equal');
  }
  const externalRef = headerKey ?? body.externalRef ?? null;
  const hash = requestHashOf(body);
  const ceiling = await expenseCeiling(s, b);
  const now = s.clock.now();
  const existing = async (ex: Database['db'] | Tx) => {
    if (externalRef === null) return undefined;
    const r = await queryOne<Record<string, unknown>>(
      ex,
      sql`SELECT ${EXPENSE_COLUMNS} FROM expenses WHERE business_id = ${b.id} AND external_ref = ${externalRef}`,
    );
    if (!r) return undefined;
    if (r.request_hash !== hash) throw conflict(`Idempotency-Key "${externalRef}" was already used with a different body`);
    return { expense: toExpense(r), deduped: true };
  };
  try {
    return await database.db.transaction(async (tx) => {
      const seen = await existing(tx);
      if (seen) return seen;
      const fields = await applyDraftInput(tx, b.id, EMPTY_DRAFT, body);
      await openExpenseRows(tx, b, { maxExpensesPerMonth: ceiling, at: now });
      const expense = await insertExpense(tx, {
        at: now,
        actor,
        business: b,
        row: { ...fields, source: 'manual', externalRef, requestHash: hash, metadata: body.metadata },
      });
      if (!expense) throw RACED; // a concurrent call with the same key committed first: roll back our limit take
      return { expense, deduped: false };
    });
  } catch (err) {
    if (err !== RACED) throw err;
    return (await existing(database.db))!;
  }
}

async function lockedDraft(tx: Tx, businessId: string, id: string): Promise<ExpenseView> {
  const e = toExpense(await expenseRow(tx, businessId, id, true));
  if (e.status !== 'draft') throw new AppError('not_draft', 'the expense is recorded: it cannot change; correct it with POST .../correction');
  return e;
}

export async function patchDraft(
  s: Services,
  database: Database,
  { actor, business: b, id, body }: { actor: Actor; business: BusinessRecord; id: string; body: ExpensePatchBody },
): Promise<ExpenseView> {
  const now = s.clock.now();
  return database.db.transaction(async (tx) => {
    const before = await lockedDraft(tx, b.id, id);
    const f = await applyDraftInput(tx, b.id, fieldsOf(before), body);
    const row = await queryOne<Record<string, unknown>>(
      tx,
      sql`UPDATE expenses SET category_key = ${f.categoryKey}, supplier_name = ${f.supplierName}, supplier_tax_id = ${f.supplierTaxId},
            party_id = ${f.partyId}, supplier_doc_type = ${f.supplierDocType}, supplier_doc_number = ${f.supplierDocNumber},
            supplier_doc_date = ${f.supplierDocDate}, allocation_number = ${f.allocationNumber}, amount_ex_vat = ${f.amountExVat},
            vat_amount = ${f.vatAmount}, amount_inc_vat = ${f.amountIncVat}, note = ${f.note},
            metadata = ${metadataToStore(body.metadata, before.metadata)}::jsonb, updated_at = ${now.toISOString()}
          WHERE id = ${id} RETURNING ${EXPENSE_COLUMNS}`,
    );
    const after = toExpense(row!);
    await appendAudit(tx, { at: now, actor }, { businessId: b.id, action: 'expense.update', entityType: 'expense', entityId: id, before, after });
    return after;
  });
}

/** DELETE of a draft; a recorded expense answers 404 (it is never deleted). */
export async function deleteDraft(
  s: Services,
  database: Database,
  { actor, business: b, id }: { actor: Actor; business: BusinessRecord; id: string },
): Promise<void> {
  const now = s.clock.now();
  await database.db.transaction(async (tx) => {
    const before = toExpense(await expenseRow(tx, b.id, id, true));
    if (before.status !== 'draft') throw notFound('draft expense');
    await tx.execute(sql`DELETE FROM expenses WHERE id = ${id}`);
    await appendAudit(tx, { at: now, actor }, { businessId: b.id, action: 'expense.delete', entityType: 'expense', entityId: id, before });
  });
}

/** What a recorded row (a recorded expense or its storno) writes beside it: its journal entry and its event. */
async function announceRecorded(
  tx: Tx,
  { at, business: b, expense: e, keyId }: { at: Date; business: BusinessRecord; expense: ExpenseView; keyId: string | null },
): Promise<void> {
  const party = e.partyId
    ? await queryOne<{ key: string; name: string; tax_id: string | null }>(
        tx,
        sql`SELECT key, name, tax_id FROM parties WHERE id = ${e.partyId} AND business_id = ${b.id}`,
      )
    : undefined;
  // A saved supplier with a tax id books to its own account; otherwise the expense's supplier tax id (ledger/journal.ts partyAccountOf).
  const supplier = party?.tax_id
    ? { partyId: e.partyId, key: party.key, name: party.name, taxId: party.tax_id }
    : { partyId: null, key: null, name: e.supplierName ?? '', taxId: e.supplierTaxId };
  await postExpenseEntry(tx, at, {
    businessId: b.id,
    dealerType: b.dealerType,
    expenseId: e.id,
    date: e.supplierDocDate!,
    supplierName: e.supplierName ?? '',
    supplierDocNumber: e.supplierDocNumber,
    storno: e.reversesExpenseId !== null,
    keyId,
    categoryKey: e.categoryKey!,
    amountExVat: e.amountExVat!,
    vatAmount: e.vatAmount!,
    amountIncVat: e.amountIncVat!,
    deductibleVat: e.deductibleVat!,
    supplier,
  });
  await recordEvent(tx, at, {
    event: 'expense.recorded',
    accountId: b.accountId,
    businessId: b.id,
    data: { expenseId: e.id, amountIncVat: e.amountIncVat, supplierName: e.supplierName },
  });
}

/**
 * `posted_in_open_period` when the invoice's month is closed: the entry goes to the first open day
 * (journal_entries_stamp), and the expense says where.
 */
async function closedPeriodWarning(tx: Tx, businessId: string, invoiceDate: string): Promise<ExpenseWarning[]> {
  const r = await queryOne<{ day: string }>(tx, sql`SELECT ledger_open_day(${businessId}, ${invoiceDate}::date)::text AS day`);
  if (r!.day === invoiceDate) return [];
  return [
    {
      code: POSTED_IN_OPEN_PERIOD,
      message: `the invoice date ${invoiceDate} is in ${invoiceDate.slice(0, 7)}, a closed period of the books: the expense is posted on ${r!.day}, the first open day, and its input VAT is claimed in that period`,
    },
  ];
}

/**
 * Records a draft: completes the amounts, computes the deductible input VAT from the category,
 * the dealer type, the supplier document type and the allocation rule (input-vat.ts; a strict
 * business is refused 422 `allocation_required` instead), freezes the row, emits `expense.recorded`.
 * Recording a recorded expense answers it again with `deduped: true`.
 */
export async function recordDraft(
  s: Services,
  database: Database,
  { actor, business: b, id }: { actor: Actor; business: BusinessRecord; id: string },
): Promise<{ expense: ExpenseView; deduped: boolean }> {
  const now = s.clock.now();
  return database.db.transaction(async (tx) => {
    const before = toExpense(await expenseRow(tx, b.id, id, true));
    if (before.status === 'recorded') return { expense: before, deduped: true };
    requireApproved(b, 'recording an expense');
    const f = fieldsOf(before);
    requireRecordable(f);
    const amounts = requireCompleteAmounts(f);
    const input = inputVatOf({
      dealerType: b.dealerType,
      categoryKey: f.categoryKey!,
      supplierDocType: f.supplierDocType,
      supplierDocDate: f.supplierDocDate!,
      amountExVat: amounts.amountExVat,
      vatAmount: amounts.vatAmount,
      allocationNumber: f.allocationNumber,
    });
    // A strict business records no tax invoice whose VAT waits for a number (nothing is written).
    if (input.refusal && b.requireAllocation) throw new AppError('allocation_required', input.refusal);
    const warnings = [...input.warnings, ...(await closedPeriodWarning(tx, b.id, f.supplierDocDate!))];
    const row = await queryOne<Record<string, unknown>>(
      tx,
      sql`UPDATE expenses SET status = 'recorded', amount_ex_vat = ${amounts.amountExVat}, vat_amount = ${amounts.vatAmount},
            amount_inc_vat = ${amounts.amountIncVat}, deductible_vat = ${input.deductibleVat}, warnings = ${JSON.stringify(warnings)}::jsonb,
            recorded_at = ${now.toISOString()}, updated_at = ${now.toISOString()}
          WHERE id = ${id} RETURNING ${EXPENSE_COLUMNS}`,
    );
    const after = toExpense(row!);
    await appendAudit(tx, { at: now, actor }, { businessId: b.id, action: 'expense.record', entityType: 'expense', entityId: id, before, after });
    await announceRecorded(tx, { at: now, business: b, expense: after, keyId: actor.keyId });
    return { expense: after, deduped: false };
  });
}

/** The storno of one recorded expense (refused for a draft, a storno, or an expense already corrected), linked from the original. */
async function writeReversal(
  tx: Tx,
  { now, actor, business: b, ceiling, id }: { now: Date; actor: Actor; business: BusinessRecord; ceiling: number | null; id: string },
): Promise<{ reversal: ExpenseView; original: ExpenseView }> {
  const original = toExpense(await expenseRow(tx, b.id, id, true));
  if (original.status !== 'recorded') throw new AppError('not_draft', 'only a recorded expense is corrected; edit or delete the draft instead');
  if (original.reversesExpenseId) throw conflict('this row is itself a storno and cannot be corrected');
  if (original.reversedByExpenseId) throw conflict(`the expense was already corrected by ${original.reversedByExpenseId}`);
  await openExpenseRows(tx, b, { maxExpensesPerMonth: ceiling, at: now });
  const neg = (v: number | null) => (v === null ? null : -v + 0);
  const reversal = (await insertExpense(tx, {
    at: now,
    actor,
    business: b,
    row: {
      ...fieldsOf(original),
      amountExVat: neg(original.amountExVat),
      vatAmount: neg(original.vatAmount),
      amountIncVat: neg(original.amountIncVat),
      deductibleVat: neg(original.deductibleVat),
      note: original.note,
      source: 'reversal',
      status: 'recorded',
      recordedAt: now,
      receiptFileId: original.receiptFileId,
      reversesExpenseId: original.id,
      metadata: original.metadata, // a metadata filter finds the storno beside the row it corrects
    },
  }))!;
  await tx.execute(sql`UPDATE expenses SET reversed_by_expense_id = ${reversal.id} WHERE id = ${original.id}`);
  await appendAudit(
    tx,
    { at: now, actor },
    {
      businessId: b.id,
      action: 'expense.reverse',
      entityType: 'expense',
      entityId: original.id,
      before: { reversedByExpenseId: null },
      after: { reversedByExpenseId: reversal.id },
    },
  );
  await announceRecorded(tx, { at: now, business: b, expense: reversal, keyId: actor.keyId });
  return { reversal, original };
}

/**
 * Storno: writes a recorded reversing row (every amount negated, same supplier document) and links
 * the original to it. A second correction answers 409 `conflict`; a draft answers 409 `not_draft`
 * (discard or edit a draft instead); a storno row itself cannot be corrected (409 `conflict`).
 * With `redraft`, a new draft cloned from the original (same receipt file) is opened in a SECOND
 * transaction: the reversal stands even if the draft cannot be opened (`draftError` then says why).
 */
export async function correctExpense(
  s: Services,
  database: Database,
  { actor, business: b, id, redraft }: { actor: Actor; business: BusinessRecord; id: string; redraft: boolean },
): Promise<{ expense: ExpenseView; draft?: ExpenseView; draftError?: { error: string; reason: string } }> {
  requireApproved(b, 'correcting an expense');
  const ceiling = await expenseCeiling(s, b);
  const now = s.clock.now();
  const { reversal, original } = await database.db.transaction((tx) => writeReversal(tx, { now, actor, business: b, ceiling, id }));
  if (!redraft) return { expense: reversal };
  try {
    const draft = await database.db.transaction(async (tx) => {
      await openExpenseRows(tx, b, { maxExpensesPerMonth: ceiling, at: now });
      return (await insertExpense(tx, {
        at: now,
        actor,
        business: b,
        row: {
          ...fieldsOf(original),
          source: 'redraft',
          receiptFileId: original.receiptFileId,
          metadata: original.metadata,
        },
      }))!;
    });
    return { expense: reversal, draft };
  } catch (err) {
    if (err instanceof AppError) return { expense: reversal, draftError: { error: err.message, reason: err.reason } };
    s.logger.error({ err: (err as Error).message, expenseId: id }, 'redraft after a storno failed');
    return { expense: reversal, draftError: { error: 'the draft could not be opened; the reversal stands', reason: 'internal' } };
  }
}
