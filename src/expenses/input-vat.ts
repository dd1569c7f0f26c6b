/**
 * The input VAT a recorded expense deducts (pure): the category's share of its VAT (categories.ts), and
 * the Israel Invoices rule of the purchase side — a supplier's tax invoice (or invoice-receipt) whose
 * amount before VAT exceeds the allocation threshold in force on its date (the sales side's table,
 * documents/allocation-eligibility.ts: 25,000 NIS from 2024-05-05, 20,000 from 2025-01-01, 10,000 from
 * 2026-01-01, 5,000 from 2026-06-01, strictly greater) deducts its VAT only with the supplier's
 * allocation number (israel-tax.md §4.1: "without the number, the buyer cannot deduct the input VAT";
 * decisions.md "Books"). Without it the expense deducts nothing and says why.
 */
import { allocationThreshold } from '../documents/index.ts';
import { deductibleVat } from './categories.ts';
import { isAllocationNumber } from '../platform/allocation-number.ts';
import type { SupplierDocType } from './lists.ts';
import type { DealerType } from '../businesses/dealer-types.ts';

export interface InputVatFacts {
  dealerType: DealerType;
  categoryKey: string;
  supplierDocType: SupplierDocType | null;
  /** YYYY-MM-DD: the supplier document's date picks the threshold. */
  supplierDocDate: string;
  amountExVat: number;
  vatAmount: number;
  allocationNumber: string | null;
}

export interface ExpenseWarning {
  code: string;
  message: string;
}

/** Supplier documents the Israel Invoices model numbers: tax invoices (a missing type counts as one, as for deductibleVat). */
const ALLOCATED_DOC_TYPES: ReadonlySet<SupplierDocType | null> = new Set<SupplierDocType | null>([null, 'tax_invoice', 'tax_invoice_receipt']);

/** The threshold (agorot) the expense is above while it holds no allocation number, else null. */
function thresholdWithoutNumber(f: InputVatFacts): number | null {
  // A number of the one form (a draft stored before the form was checked may hold 000000000: that is none).
  if ((f.allocationNumber && isAllocationNumber(f.allocationNumber)) || !ALLOCATED_DOC_TYPES.has(f.supplierDocType) || f.vatAmount <= 0) return null;
  const threshold = allocationThreshold(f.supplierDocDate);
  return threshold !== null && f.amountExVat > threshold ? threshold : null;
}

export const INPUT_VAT_NEEDS_ALLOCATION = 'input_vat_needs_allocation';
/** The invoice's month was closed at recording: the expense posted on the first open day. */
export const POSTED_IN_OPEN_PERIOD = 'posted_in_open_period';

const nis = (agorot: number) => (agorot / 100).toFixed(2);

/**
 * What recording deducts, the warnings it records, and — when the allocation rule took the deduction
 * away — the refusal a strict business (`requireAllocation`) answers instead (422 `allocation_required`).
 */
export function inputVatOf(f: InputVatFacts): { deductibleVat: number; warnings: ExpenseWarning[]; refusal: string | null } {
  const share = deductibleVat({ vatAmount: f.vatAmount, categoryKey: f.categoryKey, dealerType: f.dealerType, supplierDocType: f.supplierDocType });
  const threshold = share > 0 ? thresholdWithoutNumber(f) : null;
  if (threshold === null) return { deductibleVat: share, warnings: [], refusal: null };
  const message =
    `the supplier's tax invoice of ${f.supplierDocDate} is ${nis(f.amountExVat)} NIS before VAT, above the ${nis(threshold)} NIS ` +
    `allocation threshold in force on its date: its input VAT (${nis(share)} NIS) is deductible only with the supplier's allocation ` +
    'number (Israel Invoices)';
  return {
    deductibleVat: 0,
    warnings: [
      {
        code: INPUT_VAT_NEEDS_ALLOCATION,
        message: `${message}; recorded with none deducted — to deduct it, correct the expense (storno with redraft) and record it with allocationNumber`,
      },
    ],
    refusal: `${message}: set allocationNumber before recording`,
  };
}
