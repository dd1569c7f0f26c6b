import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { validation } from '../platform/errors.ts';
import { checkedDate } from '../platform/http/formats.ts';
import { normalizeTaxId } from '../platform/tax-id.ts';
import { categoryOf } from './categories.ts';
import { completeAmounts } from './amounts.ts';
import { EXPENSE_LIMITS, type ExpensePatchBody } from './schemas.ts';
import { carrier, textProblemOf } from '../openfrmt/index.ts';
import type { SupplierDocType } from './lists.ts';

/** The writable columns of a draft, in domain names. */
export interface DraftFields {
  categoryKey: string | null;
  supplierName: string | null;
  supplierTaxId: string | null;
  partyId: string | null;
  supplierDocType: SupplierDocType | null;
  supplierDocNumber: string | null;
  supplierDocDate: string | null;
  allocationNumber: string | null;
  amountExVat: number | null;
  vatAmount: number | null;
  amountIncVat: number | null;
  note: string | null;
}

export const EMPTY_DRAFT: DraftFields = {
  categoryKey: null,
  supplierName: null,
  supplierTaxId: null,
  partyId: null,
  supplierDocType: null,
  supplierDocNumber: null,
  supplierDocDate: null,
  allocationNumber: null,
  amountExVat: null,
  vatAmount: null,
  amountIncVat: null,
  note: null,
};

export function checkedTaxId(raw: string | null | undefined, field: string): string | null {
  if (raw === undefined || raw === null || raw.trim() === '') return null;
  const r = normalizeTaxId(raw);
  if (!r.ok) throw validation(field, r.problem);
  return r.value;
}

const AMOUNT_KEYS = ['amountExVat', 'vatAmount', 'amountIncVat'] as const;

/**
 * Applies a create or patch body over the current draft fields. Omitted fields keep their value,
 * null clears. A body that mentions any amount replaces all three (omitted ones are derived from
 * the other two, else cleared), so an edited total never contradicts a stale VAT.
 */
export async function applyDraftInput(ex: Executor, businessId: string, current: DraftFields, body: ExpensePatchBody): Promise<DraftFields> {
  const next: DraftFields = { ...current };
  if (body.categoryKey !== undefined) {
    if (body.categoryKey !== null && !categoryOf(body.categoryKey)) {
      throw validation('body.categoryKey', `unknown category "${body.categoryKey}" (see GET /v1/expense-categories)`);
    }
    next.categoryKey = body.categoryKey;
  }
  if (body.supplier === null) {
    next.supplierName = next.supplierTaxId = next.partyId = null;
  } else if (body.supplier !== undefined) {
    const sup = body.supplier;
    let party: { name: string; tax_id: string | null } | undefined;
    if (sup.partyId !== undefined) {
      party = await queryOne(ex, sql`SELECT name, tax_id FROM parties WHERE id = ${sup.partyId} AND business_id = ${businessId}`);
      if (!party) throw validation('body.supplier.partyId', 'no saved party with this id in the business');
      next.partyId = sup.partyId;
    } else next.partyId = null;
    next.supplierName = sup.name?.trim() || party?.name || null;
    const nameProblem = next.supplierName ? textProblemOf(next.supplierName, 'supplierName') : null;
    if (nameProblem) throw validation(sup.name?.trim() ? 'body.supplier.name' : 'body.supplier.partyId', `the supplier name ${nameProblem}`);
    next.supplierTaxId = sup.taxId !== undefined ? checkedTaxId(sup.taxId, 'body.supplier.taxId') : (party?.tax_id ?? null);
  }
  // The schema holds supplierDocType to its closed list; the free texts are trimmed, empty is none.
  if (body.supplierDocType !== undefined) next.supplierDocType = body.supplierDocType ?? null;
  for (const k of ['supplierDocNumber', 'allocationNumber', 'note'] as const) {
    if (body[k] !== undefined) next[k] = typeof body[k] === 'string' ? body[k].trim() || null : null;
  }
  if (body.supplierDocDate !== undefined) {
    next.supplierDocDate = body.supplierDocDate === null ? null : checkedDate(body.supplierDocDate, 'body.supplierDocDate');
  }
  if (AMOUNT_KEYS.some((k) => body[k] !== undefined)) {
    const given = completeAmounts({
      amountExVat: body.amountExVat ?? null,
      vatAmount: body.vatAmount ?? null,
      amountIncVat: body.amountIncVat ?? null,
    });
    // Each given amount fits (schema); a derived one (ex + vat) may not: refused, never stored.
    for (const k of AMOUNT_KEYS) {
      const v = given[k];
      if (v !== null && (!Number.isSafeInteger(v) || Math.abs(v) > EXPENSE_LIMITS.amountAgorot)) {
        throw validation(`body.${k}`, `comes to ${v} agorot, more than the ${EXPENSE_LIMITS.amountAgorot} ${carrier('expenseAmount')} carries`);
      }
    }
    Object.assign(next, given);
  }
  return next;
}

/** What must hold to record; names the first missing field (`expense.<field>`). */
export function requireRecordable(d: DraftFields): void {
  if (!d.supplierName) throw validation('expense.supplierName', 'is required to record (set supplier.name or supplier.partyId)');
  if (!d.supplierDocDate) throw validation('expense.supplierDocDate', 'is required to record');
  checkedDate(d.supplierDocDate, 'expense.supplierDocDate');
  if (!d.categoryKey) throw validation('expense.categoryKey', 'is required to record');
}
